package nvshmem

import (
	"os"
	"strconv"
)

// EnvNVSHMEMSize is NVSHMEM's own variable for the size of its symmetric
// heap, which the backend sets from the world's heap size unless it is
// already set.
const EnvNVSHMEMSize = "NVSHMEM_SYMMETRIC_SIZE"

const (
	// stagingSize is the symmetric buffer host data passes through.
	stagingSize = 4 << 20
	// nvshmemReserve is room for NVSHMEM's own symmetric allocations
	// (barriers, collectives' work arrays, teams).
	nvshmemReserve = 256 << 20
	// nvshmemDefault is NVSHMEM's own default heap size: never less, as
	// the process's later worlds (NVSHMEM starts once) may be larger.
	nvshmemDefault = 1 << 30
)

// symmetricSize is the NVSHMEM heap a world of heap bytes per PE needs:
// its partition, the staging buffer and NVSHMEM's own allocations, and at
// least NVSHMEM's default.
func symmetricSize(heap int64) int64 { return max(heap+stagingSize+nvshmemReserve, nvshmemDefault) }

// passHeapSize sets NVSHMEM_SYMMETRIC_SIZE for a world of heap bytes per
// PE (SYMCHAN_SYMMETRIC_SIZE, resolved by pgas) before NVSHMEM starts,
// unless the user set it; it returns the value NVSHMEM will see.
func passHeapSize(heap int64) (string, error) {
	if v, ok := os.LookupEnv(EnvNVSHMEMSize); ok {
		return v, nil
	}
	v := strconv.FormatInt(symmetricSize(heap), 10)
	return v, os.Setenv(EnvNVSHMEMSize, v)
}
