//go:build cuda

package cuda

import (
	"fmt"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/pgas/internal/gpuop"
)

// GPU is a PE's GPU on the cuda backend, for programs that launch their
// own kernels on the symmetric heap (examples/jacobi does).
type GPU struct {
	t *transport
	g *gpu
}

// On returns pe's GPU, or an error when pe's world is not on the cuda
// backend.
func On(pe *pgas.PE) (*GPU, error) {
	t, ok := pe.World().Transport().(*transport)
	if !ok {
		return nil, fmt.Errorf("cuda: PE %d runs on the %s backend, not cuda", pe.ID(), pe.World().Config().Backend)
	}
	return &GPU{t: t, g: t.gpus[pe.ID()]}, nil
}

// Context is the GPU's context.
func (x *GPU) Context() *device.Context { return x.g.ctx }

// Stream is the stream of the PE's host-initiated copies. The PE's
// routines issued before Stream is called have completed when it returns
// (an error of theirs is reported by the next routine), and routines
// issued after it run after the work queued on it by then.
func (x *GPU) Stream() *device.Stream {
	x.g.mu.Lock()
	defer x.g.mu.Unlock()
	_ = x.g.lane.StreamOp()
	return x.g.st
}

// Module is symchan.cu loaded on this GPU (kernels names its kernels).
func (x *GPU) Module() *device.Module { return x.g.mod }

// HeapDescriptor is the device address of this PE's struct symchan_heap,
// the first argument of kernels written against symchan.cuh.
func (x *GPU) HeapDescriptor() device.Ptr { return x.g.desc }

// Addr is the device address of byte off of pe's partition.
func (x *GPU) Addr(pe int, off int64) device.Ptr { return x.t.addr(pe, off) }

// PutSignalOnStream enqueues on s (a stream of this GPU) a put-with-signal
// from device memory src to pe's partition: the copy engines move n bytes,
// then the signal word at sigOff is updated, both after s's earlier work
// (nvshmemx_putmem_signal_on_stream).
func (x *GPU) PutSignalOnStream(s *device.Stream, pe int, off int64, src device.Ptr, n int64, sigOff int64, sig uint64, op pgas.SigOp) error {
	dst := x.t.gpus[pe]
	if err := s.CopyPeer(x.t.addr(pe, off), dst.ctx, src, x.g.ctx, n); err != nil {
		return err
	}
	return gpuop.Signal(s, x.g.atomic, x.t.addr(pe, sigOff), sig, op)
}

// SignalWaitOnStream makes s's later work wait until this PE's signal word
// at sigOff is ≥ v (nvshmemx_signal_wait_until_on_stream with GE).
func (x *GPU) SignalWaitOnStream(s *device.Stream, sigOff int64, v uint64) error {
	return s.WaitValue64(x.t.addr(x.g.id, sigOff), v)
}

// PeerContext is the context of PE pe's GPU (for peer copies).
func (x *GPU) PeerContext(pe int) *device.Context { return x.t.gpus[pe].ctx }
