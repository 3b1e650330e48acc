//go:build cuda

package nvshmem

import (
	"errors"
	"fmt"
)

var errFinalized = errors.New("nvshmem backend: NVSHMEM was finalized in this process (Finalize)")

// Finalize ends NVSHMEM in this process (nvshmemx_hostlib_finalize), for
// a program about to exit: every process of the job calls it, after its
// last world has ended. Under Open MPI's mpirun without symchan's
// rendezvous, where NVSHMEM's MPI bootstrap initialised MPI, it also
// finalizes MPI, which lets the process exit as mpirun expects; elsewhere
// it is optional. NVSHMEM cannot start again in the process: later worlds
// fail. A process that never started NVSHMEM (or finalized it already) has
// nothing to finalize.
func Finalize() error {
	proc.mu.Lock()
	defer proc.mu.Unlock()
	if !proc.done || proc.err != nil {
		return nil
	}
	var rc, mpi int
	call(func() {
		if rc = nvFinalize(); rc == 0 && proc.ownsMPI && nvMPIInitialized() {
			mpi = nvMPIFinalize()
		}
	})
	if rc != 0 {
		return fmt.Errorf("nvshmem backend: this NVSHMEM has no nvshmemx_hostlib_finalize")
	}
	proc.err = errFinalized
	if mpi != 0 {
		return fmt.Errorf("nvshmem backend: MPI_Finalize after NVSHMEM's MPI bootstrap: %d", int(mpi))
	}
	return nil
}
