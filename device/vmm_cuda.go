//go:build cuda

package device

// CUDA's virtual memory management (cuMemCreate, cuMemAddressReserve,
// cuMemMap): physical device memory mapped into ranges of virtual
// addresses that a program reserves, so that one allocation can appear at
// an address of the program's choosing, as the memory another library
// allocated does in a symmetric heap (pgas.RegisterSymmetric).

/*
#include <cuda.h>

static CUresult symchan_vmm_granularity(int dev, size_t *g) {
	CUmemAllocationProp prop = {};
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	return cuMemGetAllocationGranularity(g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
}

// symchan_vmm_map maps n bytes at addr: new memory of GPU dev (from 0;
// exportable as a file descriptor to other processes when exportable), or
// the allocation whose mapping starts at from; then lets GPUs devs[0..ndevs)
// read and write them. The mapping keeps the memory; the handle goes.
static CUresult symchan_vmm_map(CUdeviceptr addr, size_t n, int dev, CUdeviceptr from, int exportable, const int *devs, int ndevs) {
	CUmemGenericAllocationHandle h;
	CUresult r;
	if (from) {
		r = cuMemRetainAllocationHandle(&h, (void *)from);
	} else {
		CUmemAllocationProp prop = {};
		prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		prop.location.id = dev;
		if (exportable)
			prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
		r = cuMemCreate(&h, n, &prop, 0);
	}
	if (r != CUDA_SUCCESS) return r;
	r = cuMemMap(addr, n, 0, h, 0);
	CUresult rr = cuMemRelease(h);
	if (r != CUDA_SUCCESS) return r;
	for (int i = 0; i < ndevs && r == CUDA_SUCCESS; i++) {
		CUmemAccessDesc d = {};
		d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		d.location.id = devs[i];
		d.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
		r = cuMemSetAccess(addr, n, &d, 1);
	}
	if (r != CUDA_SUCCESS) {
		cuMemUnmap(addr, n);
		return r;
	}
	return rr;
}

// symchan_vmm_owned reports whether p lies in memory mapped with CUDA's
// virtual memory management (it has an allocation handle).
static CUresult symchan_vmm_owned(CUdeviceptr p) {
	CUmemGenericAllocationHandle h;
	CUresult r = cuMemRetainAllocationHandle(&h, (void *)p);
	if (r == CUDA_SUCCESS)
		cuMemRelease(h);
	return r;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// Granularity is the size and alignment of the context's GPU's mapped
// memory (cuMemGetAllocationGranularity): every length and offset of a
// Window's mappings is a multiple of it.
func (c *Context) Granularity() (int64, error) {
	var g C.size_t
	err := c.Do(func() error {
		return check("cuMemGetAllocationGranularity", C.symchan_vmm_granularity(C.int(c.ordinal), &g))
	})
	if err != nil {
		return 0, fmt.Errorf("device: granularity of GPU %d: %w", c.ordinal, err)
	}
	return int64(g), nil
}

// A Window is a range of virtual addresses reserved in the context's
// address space (cuMemAddressReserve), into which device memory is mapped
// at offsets of the caller's choosing. Close releases the range once its
// mappings are unmapped.
type Window struct {
	ctx  *Context
	base Ptr
	size int64
}

// Reserve reserves size bytes of addresses (rounded up to the
// granularity) as a Window.
func (c *Context) Reserve(size int64) (*Window, error) {
	g, err := c.Granularity()
	if err != nil {
		return nil, err
	}
	if size <= 0 {
		return nil, fmt.Errorf("device: reserve %d bytes", size)
	}
	size = (size + g - 1) / g * g
	w := &Window{ctx: c, size: size}
	err = c.Do(func() error {
		var p C.CUdeviceptr
		if err := check("cuMemAddressReserve", C.cuMemAddressReserve(&p, C.size_t(size), C.size_t(g), 0, 0)); err != nil {
			return err
		}
		w.base = Ptr(p)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("device: reserve %d bytes on GPU %d: %w", size, c.ordinal, err)
	}
	return w, nil
}

// Base is the window's first address.
func (w *Window) Base() Ptr { return w.base }

// Size is the window's length in bytes.
func (w *Window) Size() int64 { return w.size }

// MapNew maps n bytes of new memory of the window's GPU at off, readable
// and writable by the GPUs ordinals names (the window's own included).
func (w *Window) MapNew(off, n int64, ordinals []int) error {
	return w.mapAt(off, n, 0, false, ordinals)
}

// MapShared maps at off the n bytes of device memory that start at from:
// the start of a mapping made with CUDA's virtual memory management
// (cuMemCreate and cuMemMap, such as AllocVMM's), not memory from
// cuMemAlloc. The window's addresses then reach the same memory as from's,
// readable and writable by the GPUs ordinals names.
func (w *Window) MapShared(off int64, from Ptr, n int64, ordinals []int) error {
	if from == 0 {
		return fmt.Errorf("device: map a shared allocation at nil")
	}
	return w.mapAt(off, n, from, false, ordinals)
}

func (w *Window) mapAt(off, n int64, from Ptr, exportable bool, ordinals []int) error {
	if off < 0 || n <= 0 || off > w.size-n {
		return fmt.Errorf("device: map %d bytes at %d of a %d-byte window", n, off, w.size)
	}
	devs := make([]C.int, len(ordinals))
	for i, o := range ordinals {
		devs[i] = C.int(o)
	}
	if len(devs) == 0 {
		devs = []C.int{C.int(w.ctx.ordinal)}
	}
	err := w.ctx.Do(func() error {
		return check("cuMemMap", C.symchan_vmm_map(C.CUdeviceptr(w.base+Ptr(off)), C.size_t(n), C.int(w.ctx.ordinal), C.CUdeviceptr(from),
			C.int(bool2int(exportable)), (*C.int)(unsafe.Pointer(&devs[0])), C.int(len(devs))))
	})
	if err != nil {
		what := "new memory"
		if from != 0 {
			what = fmt.Sprintf("the allocation at %#x (a mapping of CUDA's virtual memory management, from its start?)", uintptr(from))
		}
		return fmt.Errorf("device: map %d bytes of %s at offset %d of GPU %d's window: %w", n, what, off, w.ctx.ordinal, err)
	}
	return nil
}

// Unmap unmaps the n bytes at off, a whole earlier mapping.
func (w *Window) Unmap(off, n int64) error {
	if off < 0 || n <= 0 || off > w.size-n {
		return fmt.Errorf("device: unmap %d bytes at %d of a %d-byte window", n, off, w.size)
	}
	return w.ctx.Do(func() error { return check("cuMemUnmap", C.cuMemUnmap(C.CUdeviceptr(w.base+Ptr(off)), C.size_t(n))) })
}

// Close releases the window's addresses; its mappings must be unmapped.
func (w *Window) Close() error {
	return w.ctx.Do(func() error {
		return check("cuMemAddressFree", C.cuMemAddressFree(C.CUdeviceptr(w.base), C.size_t(w.size)))
	})
}

// AllocVMM allocates n bytes (rounded up to the granularity) of the GPU's
// memory with CUDA's virtual memory management, in a window of their own
// whose Base is their address: memory that a Window elsewhere can map too
// (MapShared), as NVSHMEM's nvshmemx_buffer_register_symmetric requires of
// the buffers it takes; it can be exported to other processes (as NVSHMEM
// does to map it into its peers). FreeVMM frees it.
func (c *Context) AllocVMM(n int64) (*Window, error) {
	w, err := c.Reserve(n)
	if err != nil {
		return nil, err
	}
	if err := w.mapAt(0, w.size, 0, true, nil); err != nil {
		return nil, errors.Join(err, w.Close())
	}
	return w, nil
}

// CheckVMM returns an error unless p lies in device memory mapped with
// CUDA's virtual memory management (AllocVMM's, or cuMemCreate and
// cuMemMap's), as registered buffers must be: memory from cuMemAlloc, or
// no device memory, is refused.
func (c *Context) CheckVMM(p Ptr) error {
	err := c.Do(func() error { return check("cuMemRetainAllocationHandle", C.symchan_vmm_owned(C.CUdeviceptr(p))) })
	if err != nil {
		return fmt.Errorf("device: %#x is not memory of CUDA's virtual memory management (cuMemCreate and cuMemMap, as AllocVMM's): %w", uintptr(p), err)
	}
	return nil
}

// FreeVMM frees AllocVMM's memory: the mapping, then the window. Memory
// another window still maps (MapShared) lives on until that is unmapped.
func (c *Context) FreeVMM(w *Window) error {
	if w == nil {
		return nil
	}
	return errors.Join(w.Unmap(0, w.size), w.Close())
}

func bool2int(b bool) int {
	if b {
		return 1
	}
	return 0
}
