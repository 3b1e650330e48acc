//go:build cuda

package gpuop

import (
	"math"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas/driver"
)

// SignalAdd enqueues on st, after its earlier work, the addition of v to
// the uint64 signal word at addr (kernels.Atomic, fn; no result).
func SignalAdd(st *device.Stream, fn *device.Function, addr device.Ptr, v uint64) error {
	return st.Launch(fn, device.D1(1), device.D1(1), 0, uint64(addr), uint64(driver.KindUint64)|uint64(driver.OpFetchAdd)<<8, v, 0, 0)
}

// Signal enqueues on st a signal update of the word at addr: SignalSet as
// a 64-bit stream write (the copy engine's, no kernel), SignalAdd as
// SignalAdd does.
func Signal(st *device.Stream, fn *device.Function, addr device.Ptr, v uint64, op driver.SigOp) error {
	if op == driver.SignalSet {
		return st.WriteValue64(addr, v)
	}
	return SignalAdd(st, fn, addr, v)
}

// WaitOnStream holds st until the uint64 word at addr compares as cmp says
// to v: a stream memory operation for ≥ (and > below the largest value),
// the wait kernel (kernels.WaitOnStream, fn) for the other comparisons.
func WaitOnStream(st *device.Stream, fn *device.Function, addr device.Ptr, cmp driver.Cmp, v uint64) error {
	switch {
	case cmp == driver.CmpGE:
		return st.WaitValue64(addr, v)
	case cmp == driver.CmpGT && v < math.MaxUint64:
		return st.WaitValue64(addr, v+1)
	}
	return st.Launch(fn, device.D1(1), device.D1(1), 0, uint64(addr), uint64(cmp), v)
}

// CopyOnStream enqueues a copy of n bytes from src to dst (any memory the
// stream's GPU addresses) on st: with the copy engines (peer, which calls
// with the contexts of dst and src), or, while st is being captured into a
// graph, where peer copies cannot go, with the copy kernel (kernels.Copy,
// fn).
func CopyOnStream(st *device.Stream, fn *device.Function, dst, src device.Ptr, n int64, peer func() error) error {
	capturing, err := st.Capturing()
	if err != nil {
		return err
	}
	if !capturing {
		return peer()
	}
	blocks := min(max((n+(64<<10)-1)>>16, 1), 64) // 64 KiB a block, at most 64 blocks
	return st.Launch(fn, device.D1(int(blocks)), device.D1(256), 0, uint64(dst), uint64(src), uint64(n))
}
