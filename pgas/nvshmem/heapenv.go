package nvshmem

import (
	"os"
	"strconv"

	"github.com/symchan/symchan/pgas"
)

// EnvNVSHMEMSize is NVSHMEM's own variable for the size of its symmetric
// heap, which the backend sets from the world's heap size unless it is
// already set.
const EnvNVSHMEMSize = "NVSHMEM_SYMMETRIC_SIZE"

// EnvNVSHMEMGranularity is NVSHMEM's own variable for the unit it maps
// memory in (512 MiB by default), which the backend sets to the GPU's own
// granularity (2 MiB) unless it is already set: NVSHMEM maps a registered
// buffer (pgas.RegisterSymmetric) only in whole units of it, and
// device.Context.AllocVMM allocates in the GPU's.
const EnvNVSHMEMGranularity = "NVSHMEM_CUMEM_GRANULARITY"

// nvshmemGranularity is NVSHMEM's default EnvNVSHMEMGranularity.
const nvshmemGranularity = 512 << 20

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

// passGranularity sets NVSHMEM_CUMEM_GRANULARITY to g, the GPU's own
// granularity, before NVSHMEM starts, unless the user set it.
func passGranularity(g int64) error {
	if _, ok := os.LookupEnv(EnvNVSHMEMGranularity); ok {
		return nil
	}
	return os.Setenv(EnvNVSHMEMGranularity, strconv.FormatInt(g, 10))
}

// registerAlign is the unit registered buffers come in: NVSHMEM's
// granularity as its variable says (NVSHMEM's default where it does not
// parse), at least the GPU's (g).
func registerAlign(g int64) int64 {
	v, err := pgas.ParseSize(os.Getenv(EnvNVSHMEMGranularity))
	if err != nil {
		v = nvshmemGranularity
	}
	return max(v, g)
}
