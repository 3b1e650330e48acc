//go:build cuda

package gpuop

import (
	"errors"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/internal/abi"
	"github.com/symchan/symchan/pgas/driver"
)

// SignalAdd enqueues on st, after its earlier work, the addition of v to
// the uint64 signal word at addr (abi.Atomic, fn; no result).
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
// to v, or until the world's abort word at abort is set (AbortWord): the
// wait kernel (abi.WaitOnStream, fn) for every comparison, since a
// stream memory operation (cuStreamWaitValue64) watches one word only and
// a stream waiting on a PE that failed would hold the GPU for good.
func WaitOnStream(st *device.Stream, fn *device.Function, addr device.Ptr, cmp driver.Cmp, v uint64, abort device.Ptr) error {
	return st.Launch(fn, device.D1(1), device.D1(1), 0, uint64(addr), uint64(cmp), v, uint64(abort))
}

// CopyOnStream enqueues a copy of n bytes from src (memory of context
// sc) to dst (of dc) on st: with the copy engines, or, while st is being
// captured into a graph, where peer copies cannot go, with the copy
// kernel (abi.Copy, fn).
func CopyOnStream(st *device.Stream, fn *device.Function, dst device.Ptr, dc *device.Context, src device.Ptr, sc *device.Context, n int64) error {
	capturing, err := st.Capturing()
	if err != nil {
		return err
	}
	if !capturing {
		return st.CopyPeer(dst, dc, src, sc, n)
	}
	blocks := min(max((n+(64<<10)-1)>>16, 1), 64) // 64 KiB a block, at most 64 blocks
	return st.Launch(fn, device.D1(int(blocks)), device.D1(256), 0, uint64(dst), uint64(src), uint64(n))
}

// StreamKernels are the runtime's kernels that a stream's routines launch:
// the wait (abi.WaitOnStream), the copy while captured (abi.Copy),
// the atomic (abi.Atomic) and the small put-with-signal
// (abi.PutSignalOnStream).
type StreamKernels struct{ Wait, Copy, Atomic, PutSignal *device.Function }

// LoadStreamKernels finds the stream kernels in mod, the runtime's module
// on a GPU.
func LoadStreamKernels(mod *device.Module) (StreamKernels, error) {
	var k StreamKernels
	var errs [4]error
	k.Wait, errs[0] = mod.Function(abi.WaitOnStream)
	k.Copy, errs[1] = mod.Function(abi.Copy)
	k.Atomic, errs[2] = mod.Function(abi.Atomic)
	k.PutSignal, errs[3] = mod.Function(abi.PutSignalOnStream)
	return k, errors.Join(errs[:]...)
}

// SmallPutSignal is the largest put-with-signal PutSignalOnStream moves
// with its one-block kernel; larger ones go to the copy engines, then a
// signal.
const SmallPutSignal = 16 << 10

// PutSignalOnStream enqueues on st a put of n bytes from src (memory of
// context sc) to dst (of dc), then the update of the signal word at sig by
// op with v, both after st's earlier work: up to SmallPutSignal bytes in
// one launch of the put-with-signal kernel (k.PutSignal), one operation on
// the stream where a copy and a signal are two, captured or not; larger
// ones as CopyOnStream, then Signal.
func PutSignalOnStream(st *device.Stream, k StreamKernels, dst device.Ptr, dc *device.Context, src device.Ptr, sc *device.Context, n int64,
	sig device.Ptr, v uint64, op driver.SigOp) error {
	if n <= SmallPutSignal {
		return st.Launch(k.PutSignal, device.D1(1), device.D1(256), 0, uint64(dst), uint64(src), uint64(n), uint64(sig), v, uint64(op))
	}
	if err := CopyOnStream(st, k.Copy, dst, dc, src, sc, n); err != nil {
		return err
	}
	return Signal(st, k.Atomic, sig, v, op)
}
