//go:build cuda

package nvshmem

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas/bootstrap"
)

// initFromLauncher starts NVSHMEM with its own bootstrap (boot and pmi:
// launcherBootstrap), through what the launcher provides.
func initFromLauncher(info bootstrap.Info, boot, pmi string) error {
	os.Setenv("NVSHMEM_BOOTSTRAP", boot)
	if pmi != "" {
		os.Setenv("NVSHMEM_BOOTSTRAP_PMI", pmi)
	}
	if strings.EqualFold(os.Getenv("NVSHMEM_BOOTSTRAP_PMI"), "PMIX") {
		plugin := filepath.Join(filepath.Dir(nvLibPath()), "nvshmem_bootstrap_pmix.so.3")
		if err := nvPreloadPMIx(plugin); err != nil {
			return fmt.Errorf("nvshmem backend: NVSHMEM's PMIx bootstrap under %s: %s; give every rank %s (and %s) to use symchan's rendezvous instead",
				info.Source, err, bootstrap.EnvAddr, bootstrap.EnvSecret)
		}
	}
	var err error
	call(func() {
		// NVSHMEM's MPI bootstrap initialises MPI unless the program did:
		// then Finalize finalizes it.
		proc.ownsMPI = boot == "MPI" && !nvMPIInitialized()
		if rc := nvInitDefault(); rc != 0 {
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
	var mine, all device.Ptr
	call(func() {
		mine = nvMalloc(8)
		all = nvMalloc(int64(8 * n))
	})
	defer call(func() {
		nvBarrierAll() // nobody still reads mine
		nvFree(all)
		nvFree(mine)
	})
	if mine == 0 || all == 0 {
		return fmt.Errorf("nvshmem backend: nvshmem_malloc of %d bytes for the PEs' nodes failed", 8*(n+1))
	}
	key := make([]byte, 8)
	binary.LittleEndian.PutUint64(key, hostKey(host))
	if err := st.CopyIn(mine, key); err != nil {
		return err
	}
	if err := st.Sync(); err != nil {
		return err
	}
	call(func() {
		nvBarrierAll() // every key is there
		for pe := range n {
			nvGet(uintptr(all)+uintptr(8*pe), uintptr(mine), 8, pe, st.Handle())
		}
		nvQuietOnStream(st.Handle())
	})
	buf := make([]byte, 8*n)
	if err := st.CopyOut(buf, all); err != nil {
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
