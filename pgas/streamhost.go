package pgas

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/symchan/symchan/device"
)

// Host memory and ordering on a stream: what NVSHMEM programs do with
// cudaMemcpyAsync, nvshmemx_quiet_on_stream and events between a kernel's
// stream and the routines' stream.

// CopyInOnStream enqueues on s a copy of src into the first len(src)
// elements of dst, this PE's copy (cudaMemcpyAsync to symmetric memory):
// src is read before it returns, so it may change at once. On the GPU
// backends the data goes through pinned memory of the stream's own
// (reused; Close frees it), so the copy never waits for the stream's
// earlier work on the host; a stream being captured into a graph refuses
// it.
func CopyInOnStream[T any](s *Stream, dst Sym[T], src []T) error {
	if err := s.hostCopyArgs("CopyInOnStream", dst.rec, len(src), dst.n); err != nil || len(src) == 0 {
		return err
	}
	p := s.p
	if s.ds == nil {
		snap := slices.Clone(src)
		return s.host.enqueue(func(context.Context) error { return Put(p, dst, snap, p.id) })
	}
	return s.gpuHostCopy("CopyInOnStream", dst.off, asBytes(src), true)
}

// CopyOutOnStream enqueues on s a copy of the first len(dst) elements of
// src, this PE's copy, into dst (cudaMemcpyAsync from symmetric memory):
// dst holds them once Sync (or Close) has returned without an error, and
// must not be used before. A GPU stream being captured into a graph
// refuses it.
func CopyOutOnStream[T any](s *Stream, dst []T, src Sym[T]) error {
	if err := s.hostCopyArgs("CopyOutOnStream", src.rec, len(dst), src.n); err != nil || len(dst) == 0 {
		return err
	}
	p := s.p
	if s.ds == nil {
		return s.host.enqueue(func(context.Context) error { return Get(p, dst, src, p.id) })
	}
	return s.gpuHostCopy("CopyOutOnStream", src.off, asBytes(dst), false)
}

// gpuHostCopy enqueues on GPU stream s the copy of routine name between
// host bytes b and this PE's partition at off, through pinned memory
// (stage): in, b into the partition (read now); else the partition into b
// (filled once the stream has run it, by Sync).
func (s *Stream) gpuHostCopy(name string, off int64, b []byte, in bool) error {
	g, err := s.p.GPU()
	if err != nil {
		return err
	}
	out := b
	if in {
		out = nil
	}
	mem, err := s.stage(len(b), out)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	at := g.Addr(s.p.id, off)
	if in {
		copy(mem, b)
		return s.Device().CopyIn(at, mem)
	}
	return s.Device().CopyOut(mem, at)
}

// QuietOnStream makes s's later work start once the puts, atomics and
// puts with signal that its earlier work issued, and those this PE issued
// from Go before the call, are complete (nvshmemx_quiet_on_stream). It
// completes the PE's own before it returns.
func QuietOnStream(s *Stream) error {
	if err := s.usable(); err != nil {
		return err
	}
	p := s.p
	if s.ds == nil {
		return s.host.enqueue(func(context.Context) error { return p.Quiet() })
	}
	if err := p.Quiet(); err != nil {
		return err
	}
	return s.ds.Quiet()
}

// WaitLaunched makes s's later work start once everything queued so far
// on its PE's own stream (the kernels of Launch, GPU.Stream's work) is
// complete, as an event recorded there and waited for on s would: a
// kernel of Launch followed by BarrierOnStream, say. It does not block.
// Where the PE is not a GPU there is nothing to wait for.
func (s *Stream) WaitLaunched() error {
	if err := s.usable(); err != nil {
		return err
	}
	if s.ds == nil {
		return nil
	}
	g, err := s.p.GPU()
	if err != nil {
		return err
	}
	return s.Device().After(g.Stream())
}

// hostCopyArgs checks a copy between host memory and n elements of this
// PE's copy of a symmetric array (rec, of size elements).
func (s *Stream) hostCopyArgs(name string, rec *allocRec, n, size int) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := s.p.checkRMA(rec, s.p.id); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return checkFits(name, n, size)
}

// staged is pinned host memory that a GPU stream copies through: in use
// by work not yet known to be complete, or free for the next copy.
type staged struct {
	mem *device.HostMem
	out []byte // a copy-out's destination, filled once the stream completes
}

// stage returns n bytes of pinned memory for a copy that s queues next;
// out, for a copy-out, is where the bytes go once the stream has run it.
// A stream being captured into a graph has none: a replay would copy
// whatever the memory then held.
func (s *Stream) stage(n int, out []byte) ([]byte, error) {
	if capturing, err := s.Device().Capturing(); err != nil || capturing {
		if err == nil {
			err = fmt.Errorf("%w: the stream is being captured into a graph, and a host copy on it is not replayable", ErrBadArg)
		}
		return nil, err
	}
	i := slices.IndexFunc(s.stageFree, func(m *device.HostMem) bool { return len(m.Bytes()) >= n })
	var mem *device.HostMem
	if i >= 0 {
		mem = s.stageFree[i]
		s.stageFree = slices.Delete(s.stageFree, i, i+1)
	} else {
		size := 4096
		for size < n {
			size *= 2
		}
		var err error
		if mem, err = s.Device().Context().HostAlloc(size); err != nil {
			return nil, err
		}
	}
	s.stageUsed = append(s.stageUsed, staged{mem, out})
	return mem.Bytes()[:n], nil
}

// unstage, once s's work is complete, fills the copy-outs' destinations
// (where it completed without an error) and frees their memory for
// later copies.
func (s *Stream) unstage(completed bool) {
	for _, u := range s.stageUsed {
		if completed && u.out != nil {
			copy(u.out, u.mem.Bytes())
		}
		s.stageFree = append(s.stageFree, u.mem)
	}
	s.stageUsed = s.stageUsed[:0]
}

// freeStaged releases s's pinned memory, its work complete or abandoned.
// cuMemFreeHost waits for the context's running kernels.
func (s *Stream) freeStaged() error {
	var errs []error
	for _, u := range s.stageUsed {
		errs = append(errs, u.mem.Free())
	}
	for _, m := range s.stageFree {
		errs = append(errs, m.Free())
	}
	s.stageUsed, s.stageFree = nil, nil
	return errors.Join(errs...)
}
