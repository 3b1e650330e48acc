//go:build cuda

package nvshmem

/*
int sc_cumodule_init(void *mod);
const char *sc_lib_path(void);
void sc_quiet_on_stream(void *st);
*/
import "C"

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas/driver"
)

// The routines on PEs this GPU cannot map (nvshmem_ptr null: another
// host, or every other PE under Config.ForceRemote) that NVSHMEM's host
// API lacks run as kernels of remote.cu, linked at first use with the
// device library beside NVSHMEM's host library.

// remote is the process's linked remote module, made once.
var remote struct {
	once   sync.Once
	atomic *device.Function
	err    error
}

// deviceLib is NVSHMEM's device library: NVSHMEM_HOME/lib's when that is
// set, else the one beside the host library this process loaded.
func deviceLib() (string, error) {
	var dirs []string
	if h := os.Getenv(EnvHome); h != "" {
		dirs = append(dirs, filepath.Join(h, "lib"))
	}
	if p := C.GoString(C.sc_lib_path()); p != "" {
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, d := range dirs {
		if p := filepath.Join(d, "libnvshmem_device.a"); fileExists(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("nvshmem backend: routines on unmapped PEs need NVSHMEM's device library, libnvshmem_device.a, beside its host library or in %s/lib; looked in %v", EnvHome, dirs)
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// remoteKernels links remote.cu's PTX with NVSHMEM's device library into
// the GPU's primary context and initialises NVSHMEM's state in it.
func remoteKernels() error {
	remote.once.Do(func() {
		remote.err = func() error {
			ptx, err := kernels.RemotePTX()
			if err != nil {
				return err
			}
			lib, err := deviceLib()
			if err != nil {
				return err
			}
			mod, err := proc.ctx.LinkModule(ptx, lib)
			if err != nil {
				return fmt.Errorf("nvshmem backend: %w", err)
			}
			var rc C.int
			call(func() { rc = C.sc_cumodule_init(mod.Handle()) })
			if rc != 0 {
				return fmt.Errorf("nvshmem backend: nvshmemx_cumodule_init of the remote routines failed (%d)", int(rc))
			}
			remote.atomic, err = mod.Function(kernels.RemoteAtomic)
			return err
		}()
	})
	return remote.err
}

// remoteAtomic runs an atomic on unmapped PE pe's word at off with
// NVSHMEM's device routine, after this PE's earlier operations on the
// stream are complete.
func (t *transport) remoteAtomic(pe int, off int64, k driver.Kind, op driver.AtomicOp, operand, cond uint64) (uint64, error) {
	if err := remoteKernels(); err != nil {
		return 0, err
	}
	unlock, err := t.stream()
	if err != nil {
		return 0, err
	}
	defer unlock()
	call(func() { C.sc_quiet_on_stream(t.handle()) })
	one := device.D1(1)
	if err := t.st.Launch(remote.atomic, one, one, 0, uint64(t.addr(off)), uint64(k), uint64(op), operand, cond, uint64(pe), uint64(t.result.Ptr())); err != nil {
		return 0, err
	}
	if err := t.synced(); err != nil {
		return 0, err
	}
	old := binary.LittleEndian.Uint64(t.result.Bytes())
	if k.Size() == 4 {
		old &= 0xffffffff
	}
	return old, nil
}
