package host

import "syscall"

const mapNoReserve = syscall.MAP_NORESERVE

// adviseHuge asks for transparent huge pages where the system gives them
// on request, as the Go heap does: large copies into a partition then
// miss the TLB as rarely as they would in Go memory. Pages are still
// taken only when touched (2 MiB at a time). Failure is harmless.
func adviseHuge(b []byte) { _ = syscall.Madvise(b, 14 /* MADV_HUGEPAGE */) }
