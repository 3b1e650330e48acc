//go:build cuda

package nvshmem

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/internal/abi"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas/driver"
)

// The backend's kernels are symchan.cu compiled with SYMCHAN_NVSHMEM
// (kernels.NVSHMEMPTX) and linked with NVSHMEM's device library when they
// load, so that symchan.cuh's routines, ours and users' kernels alike,
// reach PEs this GPU cannot map (nvshmem_ptr null: another host, or every
// other PE under Config.ForceRemote) through NVSHMEM. Atomics on such PEs,
// which NVSHMEM's host API lacks, are one of those kernels.

// deviceLib is NVSHMEM's device library: NVSHMEM_HOME/lib's when that is
// set, else the one beside the host library this process loaded.
func deviceLib() (string, error) {
	var dirs []string
	if h := os.Getenv(EnvHome); h != "" {
		dirs = append(dirs, filepath.Join(h, "lib"))
	}
	if p := nvLibPath(); p != "" {
		dirs = append(dirs, filepath.Dir(p))
	}
	for _, d := range dirs {
		p := filepath.Join(d, "libnvshmem_device.a")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	return "", fmt.Errorf("nvshmem backend: symchan's kernels link NVSHMEM's device library, libnvshmem_device.a, which is neither beside its host library nor in %s/lib; looked in %v", EnvHome, dirs)
}

// loadKernels links the backend's PTX with NVSHMEM's device library into
// the GPU's primary context, initialises NVSHMEM's state in it, and finds
// the remote atomic's kernel. NVSHMEM has started.
func loadKernels(ptxFile string) error {
	ptx, err := kernels.NVSHMEMPTX(ptxFile)
	if err != nil {
		return err
	}
	if proc.mod, err = linkWithNVSHMEM(kernels.Runtime, ptx); err != nil {
		return err
	}
	proc.remoteAtomic, err = proc.mod.Function(abi.RemoteAtomic)
	return err
}

// linkWithNVSHMEM links ptx, the relocatable code of program p, with
// NVSHMEM's device library into the GPU's primary context (through p's
// cache of linked images: linkIdentity) and initialises NVSHMEM's state
// in the module. NVSHMEM has started.
func linkWithNVSHMEM(p kernels.Program, ptx string) (*device.Module, error) {
	lib, err := deviceLib()
	if err != nil {
		return nil, err
	}
	id, err := linkIdentity(lib)
	if err != nil {
		return nil, fmt.Errorf("nvshmem backend: program %s: %w", p.Name, err)
	}
	var mod *device.Module
	err = p.LinkedImage(ptx, id, func() ([]byte, error) { return proc.ctx.Link(ptx, lib) }, func(image []byte) error {
		m, err := proc.ctx.LoadLinked(image, ptx)
		mod = m
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("nvshmem backend: program %s: %w", p.Name, err)
	}
	var rc int
	call(func() { rc = nvCumoduleInit(mod.Handle()) })
	if rc != 0 {
		return nil, fmt.Errorf("nvshmem backend: nvshmemx_cumodule_init of program %s failed (%d)", p.Name, int(rc))
	}
	return mod, nil
}

// linkIdentity names what an image linked with the device library lib
// depends on besides its PTX, for kernels.Program.LinkedImage: the
// library's file and the host library's, NVSHMEM's version, the GPU's
// architecture and the driver's version.
func linkIdentity(lib string) ([]string, error) {
	fi, err := os.Stat(lib)
	if err != nil {
		return nil, err
	}
	gpu, err := device.Describe(proc.ctx.Ordinal())
	if err != nil {
		return nil, err
	}
	drv, err := device.DriverVersion()
	if err != nil {
		return nil, err
	}
	return []string{
		fmt.Sprintf("lib %s %d %d", lib, fi.Size(), fi.ModTime().UnixNano()),
		"host " + nvLibPath(),
		fmt.Sprintf("nvshmem %d", nvVersion()),
		fmt.Sprintf("sm %d.%d", gpu.Major, gpu.Minor),
		fmt.Sprintf("driver %d", drv),
	}, nil
}

// remoteAtomic runs an atomic on unmapped PE pe's word at off with
// NVSHMEM's device routine, after this PE's earlier operations on the
// stream are complete.
func (t *transport) remoteAtomic(pe int, off int64, k driver.Kind, op driver.AtomicOp, operand, cond uint64) (uint64, error) {
	unlock, err := t.stream()
	if err != nil {
		return 0, err
	}
	defer unlock()
	call(func() { nvQuietOnStream(t.handle()) })
	one := device.D1(1)
	if err := t.st.Launch(proc.remoteAtomic, one, one, 0, uint64(t.addr(off)), uint64(k), uint64(op), operand, cond, uint64(pe), uint64(t.result.Ptr())); err != nil {
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
