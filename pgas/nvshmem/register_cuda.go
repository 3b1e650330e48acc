//go:build cuda

package nvshmem

import (
	"errors"
	"fmt"

	"github.com/symchan/symchan/device"
)

// Registered buffers (pgas.RegisterSymmetric) are NVSHMEM's own: it maps
// a buffer into every process (nvshmemx_buffer_register_symmetric, a
// collective) at a symmetric address of its choosing, which pgas names by
// its offset from this transport's heap. symchan's kernels reach a mapped
// PE's partition at its base plus an offset, so NVSHMEM must have mapped
// the buffer at the same distance from each peer's heap as from ours;
// Register checks that it did. NVSHMEM maps whole units of its
// granularity only (NVSHMEM_CUMEM_GRANULARITY, which the backend sets to
// the GPU's own unless the user set it); RegisterSpan's align is that unit.

// registerEnd bounds the offsets NVSHMEM's symmetric addresses may lie at,
// from this transport's heap.
const registerEnd = 1 << 48

// registerSpan is where a transport whose heap is size bytes places
// registered buffers, found once at Open (RegisterSpan bounds every
// device address pgas hands out): past the heap, in whole units of
// NVSHMEM's granularity; lo 0 where the library does not register.
func registerSpan(size int64) (lo, align int64) {
	if !nvCanRegister() {
		return 0, 1
	}
	g, err := proc.ctx.Granularity()
	if err != nil {
		return 0, 1
	}
	a := registerAlign(g)
	return (size + a - 1) / a * a, a
}

// RegisterSpan implements driver.RegisterTransport: anywhere past the
// heap, where NVSHMEM puts it; empty where the library does not register.
func (t *transport) RegisterSpan() (lo, hi, align int64) {
	if t.regLo == 0 {
		return 0, 0, 1
	}
	return t.regLo, registerEnd, t.regAlign
}

// Register has NVSHMEM map the n bytes at buf and returns their offset;
// n is a whole number of RegisterSpan's units (pgas rounds it): NVSHMEM
// maps no other length.
func (t *transport) Register(_ int, _ int64, buf uintptr, n int64) (int64, error) {
	var at uintptr
	call(func() { at = nvRegister(buf, n) })
	if at == 0 {
		return 0, fmt.Errorf("nvshmem backend: nvshmemx_buffer_register_symmetric refused %d bytes at %#x (memory from CUDA's virtual memory management, exportable, as device.Context.AllocVMM's, is required)", n, buf)
	}
	off := int64(uintptr(at) - uintptr(t.heap))
	if uintptr(at) < uintptr(t.heap) || off < t.size || off+n > registerEnd {
		return 0, errors.Join(fmt.Errorf("nvshmem backend: NVSHMEM mapped the registered buffer at %#x, outside [heap end, heap + %d) of this PE's heap at %#x", uintptr(at), int64(registerEnd), uintptr(t.heap)),
			t.Unregister(0, off, n))
	}
	for pe, base := range t.peers {
		if base == 0 {
			continue
		}
		var p uintptr
		call(func() { p = uintptr(nvPtr(device.Ptr(at), pe)) })
		if want := uintptr(base) + uintptr(off); p != want {
			return 0, errors.Join(fmt.Errorf("nvshmem backend: NVSHMEM maps the registered buffer for PE %d at %#x, not at its heap's distance (%#x): symchan's kernels could not reach it", pe, uintptr(p), want),
				t.Unregister(0, off, n))
		}
	}
	return off, nil
}

// Unregister implements driver.RegisterTransport.
func (t *transport) Unregister(_ int, off, n int64) error {
	var rc int
	call(func() { rc = nvUnregister(t.addr(off), int64(n)) })
	if rc != 0 {
		return fmt.Errorf("nvshmem backend: nvshmemx_buffer_unregister_symmetric of %d bytes at offset %d: error %d", n, off, int(rc))
	}
	return nil
}
