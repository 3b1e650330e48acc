//go:build cuda

package gpuop

import (
	"sync/atomic"
	"unsafe"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// Atomic runs one atomic operation of kind k on the word at addr (any
// memory the stream's GPU can address) with kernels.Atomic (fn) on st,
// after st's earlier work, and returns the old value, which the kernel
// leaves in res (8 bytes of mapped pinned memory). Calls sharing st or
// res must be serialised by the caller.
func Atomic(st *device.Stream, fn *device.Function, res *device.HostMem, addr device.Ptr, k pgas.Kind, op pgas.AtomicOp, operand, cond uint64) (uint64, error) {
	err := st.Launch(fn, device.D1(1), device.D1(1), 0, uint64(addr), uint64(k)|uint64(op)<<8, operand, cond, uint64(res.Ptr()))
	if err == nil {
		err = st.Sync()
	}
	old := atomic.LoadUint64((*uint64)(unsafe.Pointer(&res.Bytes()[0])))
	if k.Size() == 4 {
		old &= 0xffffffff
	}
	return old, err
}

// SignalAdd enqueues on st, after its earlier work, the addition of v to
// the uint64 signal word at addr (kernels.Atomic, fn; no result).
func SignalAdd(st *device.Stream, fn *device.Function, addr device.Ptr, v uint64) error {
	return st.Launch(fn, device.D1(1), device.D1(1), 0, uint64(addr), uint64(pgas.KindUint64)|uint64(pgas.OpFetchAdd)<<8, v, 0, 0)
}

// Signal enqueues on st a signal update of the word at addr: SignalSet as
// a 64-bit stream write (the copy engine's, no kernel), SignalAdd as
// SignalAdd does.
func Signal(st *device.Stream, fn *device.Function, addr device.Ptr, v uint64, op pgas.SigOp) error {
	if op == pgas.SignalSet {
		return st.WriteValue64(addr, v)
	}
	return SignalAdd(st, fn, addr, v)
}
