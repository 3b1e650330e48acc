//go:build cuda

package nvshmem

/*
#include <stdint.h>
#include <stddef.h>
int sc_init_default(void);
int sc_mpi_initialized(void);
uintptr_t sc_malloc(size_t n);
void sc_free(uintptr_t p);
void sc_get(uintptr_t dst, uintptr_t src, size_t n, int pe, void *st);
void sc_quiet_on_stream(void *st);
void sc_barrier_all(void);
const char *sc_lib_path(void);
const char *sc_preload_pmix(const char *path);
#include <stdlib.h>
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas/bootstrap"
)

func devPtr(p C.uintptr_t) device.Ptr { return device.Ptr(uintptr(p)) }

// initFromLauncher starts NVSHMEM with its own bootstrap (boot and pmi:
// launcherBootstrap), through what the launcher provides.
func initFromLauncher(info bootstrap.Info, boot, pmi string) error {
	os.Setenv("NVSHMEM_BOOTSTRAP", boot)
	if pmi != "" {
		os.Setenv("NVSHMEM_BOOTSTRAP_PMI", pmi)
	}
	if strings.EqualFold(os.Getenv("NVSHMEM_BOOTSTRAP_PMI"), "PMIX") {
		plugin := C.CString(filepath.Join(filepath.Dir(C.GoString(C.sc_lib_path())), "nvshmem_bootstrap_pmix.so.3"))
		msg := C.sc_preload_pmix(plugin)
		C.free(unsafe.Pointer(plugin))
		if msg != nil {
			return fmt.Errorf("nvshmem backend: NVSHMEM's PMIx bootstrap under %s: %s; give every rank %s (and %s) to use symchan's rendezvous instead",
				info.Source, C.GoString(msg), bootstrap.EnvAddr, bootstrap.EnvSecret)
		}
	}
	var err error
	call(func() {
		// NVSHMEM's MPI bootstrap initialises MPI unless the program did:
		// then Finalize finalizes it.
		proc.ownsMPI = boot == "MPI" && C.sc_mpi_initialized() == 0
		if rc := C.sc_init_default(); rc != 0 {
			err = fmt.Errorf("nvshmem backend: NVSHMEM init with its %s bootstrap (%s) under %s failed (%d); give every rank %s (and %s) to use symchan's rendezvous instead",
				boot, pmi, info.Source, rc, bootstrap.EnvAddr, bootstrap.EnvSecret)
		}
	})
	return err
}

// findNodes learns every PE's node: each PE publishes a key of its host's
// name in symmetric memory, reads every other's (NVSHMEM's get, so it
// works across hosts), and numbers the distinct keys in order of their
// lowest PE (nodesOf). Collective: every process calls it once, at start.
func findNodes(n int) error {
	host, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("nvshmem backend: this host's name: %w", err)
	}
	st, err := proc.ctx.NewStream()
	if err != nil {
		return err
	}
	defer st.Destroy()
	var mine, all C.uintptr_t
	call(func() {
		mine = C.sc_malloc(8)
		all = C.sc_malloc(C.size_t(8 * n))
	})
	defer call(func() {
		C.sc_barrier_all() // nobody still reads mine
		C.sc_free(all)
		C.sc_free(mine)
	})
	if mine == 0 || all == 0 {
		return fmt.Errorf("nvshmem backend: nvshmem_malloc of %d bytes for the PEs' nodes failed", 8*(n+1))
	}
	key := make([]byte, 8)
	binary.LittleEndian.PutUint64(key, hostKey(host))
	if err := st.CopyIn(devPtr(mine), key); err != nil {
		return err
	}
	if err := st.Sync(); err != nil {
		return err
	}
	call(func() {
		C.sc_barrier_all() // every key is there
		for pe := range n {
			C.sc_get(all+C.uintptr_t(8*pe), mine, 8, C.int(pe), st.Handle())
		}
		C.sc_quiet_on_stream(st.Handle())
	})
	buf := make([]byte, 8*n)
	if err := st.CopyOut(buf, devPtr(all)); err != nil {
		return err
	}
	if err := st.Sync(); err != nil {
		return err
	}
	keys := make([]uint64, n)
	for pe := range keys {
		keys[pe] = binary.LittleEndian.Uint64(buf[8*pe:])
	}
	proc.nodes = nodesOf(keys)
	return nil
}
