package pgas

import "syscall"

const mapNoReserve = syscall.MAP_NORESERVE

// MachineMemory is the machine's physical memory in bytes (0 if unknown).
func MachineMemory() int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// adviseHuge asks for transparent huge pages where the system gives them
// on request, as the Go heap does: large copies into a partition then
// miss the TLB as rarely as they would in Go memory. Pages are still
// taken only when touched (2 MiB at a time). Failure is harmless.
func adviseHuge(b []byte) { _ = syscall.Madvise(b, 14 /* MADV_HUGEPAGE */) }
