//go:build cuda

package cuda

import (
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/pgas/driver"
	"github.com/symchan/symchan/pgas/internal/gpuop"
)

// gpuAPI is a PE's GPU as pgas.PE.GPU returns it (pgas.GPU).
type gpuAPI struct {
	t *transport
	g *gpu
}

// GPU implements driver.GPUTransport.
func (t *transport) GPU(pe int) (driver.GPU, error) { return &gpuAPI{t: t, g: t.gpus[pe]}, nil }

// Context is the GPU's context.
func (x *gpuAPI) Context() *device.Context { return x.g.ctx }

// Stream is the stream of the PE's host-initiated copies. The PE's
// routines issued before Stream is called have completed when it returns
// (an error of theirs is reported by the next routine), and routines
// issued after it run after the work queued on it by then.
func (x *gpuAPI) Stream() *device.Stream {
	x.g.mu.Lock()
	defer x.g.mu.Unlock()
	_ = x.g.lane.StreamOp()
	return x.g.st
}

// Module is symchan.cu loaded on this GPU (kernels names its kernels).
func (x *gpuAPI) Module() *device.Module { return x.g.mod }

// Load loads p's PTX into the GPU's context, once per context.
func (x *gpuAPI) Load(p kernels.Program) (*device.Module, error) {
	return x.g.progs.Load(p.Key(), func() (*device.Module, error) {
		ptx, err := p.Code(false)
		if err != nil {
			return nil, err
		}
		return x.g.ctx.LoadModule(ptx)
	})
}

// HeapDescriptor is the device address of this PE's struct symchan_heap,
// the first argument of kernels written against symchan.cuh.
func (x *gpuAPI) HeapDescriptor() device.Ptr { return x.g.desc }

// Addr is the device address of byte off of pe's partition.
func (x *gpuAPI) Addr(pe int, off int64) device.Ptr { return x.t.addr(pe, off) }

// PutSignalOnStream enqueues on s (a stream of this GPU) a put-with-signal
// from device memory src to pe's partition: n bytes, then the signal word
// at sigOff updated, both after s's earlier work
// (nvshmemx_putmem_signal_on_stream); a small one is one kernel, a larger
// one the copy engines and a signal (gpuop.PutSignalOnStream).
func (x *gpuAPI) PutSignalOnStream(s *device.Stream, pe int, off int64, src device.Ptr, n int64, sigOff int64, sig uint64, op pgas.SigOp) error {
	return gpuop.PutSignalOnStream(s, x.g.k, x.t.addr(pe, off), x.t.gpus[pe].ctx, src, x.g.ctx, n, x.t.addr(pe, sigOff), sig, op)
}

// SignalWaitOnStream makes s's later work wait until this PE's signal word
// at sigOff is ≥ v (nvshmemx_signal_wait_until_on_stream with GE), or the
// world aborts (gpuop.WaitOnStream).
func (x *gpuAPI) SignalWaitOnStream(s *device.Stream, sigOff int64, v uint64) error {
	return gpuop.WaitOnStream(s, x.g.k.Wait, x.t.addr(x.g.id, sigOff), driver.CmpGE, v, x.t.abort.Ptr())
}
