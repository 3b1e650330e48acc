//go:build cuda

package device

// #include <cuda.h>
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"unsafe"
)

// Stream is a CUDA stream of a Context. It never synchronises with the
// legacy default stream, so a kernel that waits on the device (a waiting
// kernel on another stream) cannot block it. A Stream is not safe for
// concurrent use; its methods enqueue and return unless they say otherwise.
type Stream struct {
	ctx *Context
	s   C.CUstream
}

// NewStream creates a non-blocking stream.
func (c *Context) NewStream() (*Stream, error) {
	st := &Stream{ctx: c}
	err := c.Do(func() (err error) {
		st.s, err = streamCreate()
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("device: stream on GPU %d: %w", c.ordinal, err)
	}
	return st, nil
}

func (s *Stream) c() C.CUstream { return s.s }

// Handle is the stream's CUstream (a cudaStream_t to the runtime), for
// handing to C libraries that enqueue on it (NVSHMEM's on-stream calls).
func (s *Stream) Handle() unsafe.Pointer { return unsafe.Pointer(s.c()) }

// Context is the stream's context.
func (s *Stream) Context() *Context { return s.ctx }

// Sync blocks until everything enqueued on s has completed.
func (s *Stream) Sync() error { return s.ctx.Do(func() error { return streamSynchronize(s.s) }) }

// Done reports whether all the work queued on s has completed, without
// waiting; an error is that of a failed operation (a faulting kernel).
func (s *Stream) Done() (done bool, err error) {
	err = s.ctx.Do(func() (err error) {
		done, err = streamQuery(s.c())
		return err
	})
	return done, err
}

// Destroy releases s once its work completes.
func (s *Stream) Destroy() error { return s.ctx.Do(func() error { return streamDestroy(s.s) }) }

// CopyIn enqueues a host-to-device copy. From pageable memory (any Go
// slice) the driver stages src before it returns, so src may be reused at
// once. Up to smallCopy bytes, 8-byte aligned at both ends, go as 64-bit
// stream writes instead: no staging, and none of the implicit stream
// synchronisation a pageable copy brings.
func (s *Stream) CopyIn(dst Ptr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return s.ctx.Do(func() error {
		if len(src) <= smallCopy && len(src)%8 == 0 && dst%8 == 0 {
			for i := 0; i < len(src); i += 8 {
				if err := streamWriteValue64(s.c(), dst+Ptr(i), binary.LittleEndian.Uint64(src[i:])); err != nil {
					return err
				}
			}
			return nil
		}
		return copyIn(dst, src, s.c())
	})
}

// CopyIn2D enqueues a strided host-to-device copy: height rows of width
// bytes, src's rows srcPitch bytes apart, dst's dstPitch apart (pitches ≥
// width). src is staged, as by CopyIn, before it returns.
func (s *Stream) CopyIn2D(dst Ptr, dstPitch int64, src []byte, srcPitch, width, height int64) error {
	if width == 0 || height == 0 {
		return nil
	}
	if need := (height-1)*srcPitch + width; int64(len(src)) < need {
		return fmt.Errorf("device: CopyIn2D: src has %d bytes, %d rows need %d", len(src), height, need)
	}
	return s.ctx.Do(func() error { return copy2D(true, dst, dstPitch, src, srcPitch, width, height, s.c()) })
}

// CopyOut2D copies height rows of width bytes from device memory (rows
// srcPitch apart) into dst (rows dstPitch apart); it returns when dst is
// filled.
func (s *Stream) CopyOut2D(dst []byte, dstPitch int64, src Ptr, srcPitch, width, height int64) error {
	if width == 0 || height == 0 {
		return nil
	}
	if need := (height-1)*dstPitch + width; int64(len(dst)) < need {
		return fmt.Errorf("device: CopyOut2D: dst has %d bytes, %d rows need %d", len(dst), height, need)
	}
	return s.ctx.Do(func() error {
		if err := copy2D(false, src, srcPitch, dst, dstPitch, width, height, s.c()); err != nil {
			return err
		}
		return streamSynchronize(s.s)
	})
}

// smallCopy is the largest CopyIn sent as stream writes.
const smallCopy = 64

// CopyOut copies device memory to dst. Into pageable memory the driver
// returns only when dst is filled.
func (s *Stream) CopyOut(dst []byte, src Ptr) error {
	if len(dst) == 0 {
		return nil
	}
	return s.ctx.Do(func() error {
		return copyOut(dst, src, s.c())
	})
}

// After makes s's later work start once the work queued on other (a
// stream of the same context) so far is complete, as cuStreamWaitEvent
// does; it does not block.
func (s *Stream) After(other *Stream) error {
	if other.ctx != s.ctx {
		return errors.New("device: After: the streams are of different contexts")
	}
	return s.ctx.Do(func() error { return streamAfter(s.c(), other.c()) })
}

// CopyPeer enqueues a copy of n bytes from src (memory of context sc) to
// dst (memory of context dc) on the copy engines.
func (s *Stream) CopyPeer(dst Ptr, dc *Context, src Ptr, sc *Context, n int64) error {
	if n == 0 {
		return nil
	}
	return s.ctx.Do(func() error {
		return memcpyPeerAsync(dst, dc.ctx, src, sc.ctx, n, s.s)
	})
}

// Memset enqueues setting n bytes at dst to b.
func (s *Stream) Memset(dst Ptr, b byte, n int64) error {
	return s.ctx.Do(func() error { return memsetD8Async(dst, b, n, s.s) })
}

// WriteValue64 enqueues a 64-bit store of v to addr (any GPU's memory
// mapped here, or mapped host memory), ordered after the stream's earlier
// work and its memory writes: the copy engine's signal, no kernel.
func (s *Stream) WriteValue64(addr Ptr, v uint64) error {
	return s.ctx.Do(func() error { return streamWriteValue64(s.c(), addr, v) })
}

// WaitValue64 makes the stream's later work wait until the 64-bit word at
// addr is ≥ v.
func (s *Stream) WaitValue64(addr Ptr, v uint64) error {
	return s.ctx.Do(func() error { return streamWaitValue64(s.c(), addr, v) })
}

// Launch enqueues f on s. Every argument is an 8-byte word; a smaller
// parameter reads its low bytes. Where f's parameters are known
// (Function.Params), a launch with another number of arguments, or of a
// kernel with a parameter larger than 8 bytes (a struct by value), fails
// before anything is queued.
func (s *Stream) Launch(f *Function, grid, block Dim3, shared int, args ...uint64) error {
	return s.launch(f, grid, block, shared, args, false)
}

// LaunchCooperative is Launch with cuLaunchCooperativeKernel: all blocks
// are resident at once, as kernels that wait on each other need.
func (s *Stream) LaunchCooperative(f *Function, grid, block Dim3, shared int, args ...uint64) error {
	return s.launch(f, grid, block, shared, args, true)
}

func (s *Stream) launch(f *Function, grid, block Dim3, shared int, args []uint64, coop bool) error {
	if err := paramsError(f.name, f.params, len(args)); err != nil {
		return err
	}
	fix := func(d Dim3) Dim3 {
		if d.Y == 0 {
			d.Y = 1
		}
		if d.Z == 0 {
			d.Z = 1
		}
		return d
	}
	err := s.ctx.Do(func() error {
		return launch(f.f, fix(grid), fix(block), shared, s.c(), args, coop)
	})
	if err != nil {
		return fmt.Errorf("device: launch %s on GPU %d: %w", f.name, s.ctx.ordinal, err)
	}
	return nil
}

// Module is PTX loaded into a Context (JIT-compiled by the driver).
//
// Every kernel the PTX defines is resolved when the module is loaded, not
// when it is first launched. With the driver's lazy loading (its default
// since CUDA 12.2) resolving a kernel loads it, and loading may wait for
// the context's running kernels: a PE whose kernel on a stream waits for
// another PE's signal, while that PE (of the same context, or the same PE
// later) resolves the kernel that would send it, would wait for ever.
type Module struct {
	ctx   *Context
	m     C.CUmodule
	funcs map[string]*Function // every .entry, resolved at load; read-only after
}

// LoadModule JIT-compiles and loads PTX text, and resolves its kernels.
func (c *Context) LoadModule(ptx string) (*Module, error) { return c.load("PTX", ptx, ptx) }

// load loads data, PTX text or a linked image (what names it in errors),
// into the context and resolves the kernels that ptx, its PTX, declares.
func (c *Context) load(what, data, ptx string) (*Module, error) {
	m := &Module{ctx: c}
	err := c.Do(func() (err error) {
		if m.m, err = moduleLoadData(data); err != nil {
			return err
		}
		return m.resolve(ptxKernels(ptx))
	})
	if err != nil {
		return nil, fmt.Errorf("device: load %s on GPU %d: %w", what, c.ordinal, err)
	}
	return m, nil
}

// resolve looks up the kernels names, in the module's context, into
// m.funcs.
func (m *Module) resolve(ks []ptxKernel) error {
	m.funcs = make(map[string]*Function, len(ks))
	for _, k := range ks {
		f, err := moduleFunction(m.m, k.name)
		if err != nil {
			return fmt.Errorf("kernel %q: %w", k.name, err)
		}
		m.funcs[k.name] = &Function{name: k.name, f: f, ctx: m.ctx, params: k.params}
	}
	return nil
}

// Function is a kernel of a Module.
type Function struct {
	name   string
	f      C.CUfunction
	ctx    *Context
	params []int // the byte size of each parameter; nil: not known
}

// MaxActiveBlocks is how many blocks of threads threads, with shared
// bytes of dynamic shared memory each, one multiprocessor of the GPU
// runs at once (cuOccupancyMaxActiveBlocksPerMultiprocessor): times the
// GPU's SMs (Info), the largest grid a cooperative launch takes.
func (f *Function) MaxActiveBlocks(threads, shared int) (int, error) {
	var n int
	err := f.ctx.Do(func() (err error) {
		n, err = maxActiveBlocks(f.f, threads, shared)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("device: kernel %s: %w", f.name, err)
	}
	return n, nil
}

// Params returns the byte size of each of the kernel's parameters, as the
// module's PTX declares them, and whether they are known: they are for
// every kernel the PTX defines, not for one that Module.Function found
// otherwise. Launch refuses a launch with another number of arguments.
func (f *Function) Params() (sizes []int, known bool) {
	return append([]int(nil), f.params...), f.params != nil
}

// Function looks up an extern "C" kernel by name: one the module's PTX
// defines was resolved when the module was loaded.
func (m *Module) Function(name string) (*Function, error) {
	if fn := m.funcs[name]; fn != nil {
		return fn, nil
	}
	fn := &Function{name: name, ctx: m.ctx}
	err := m.ctx.Do(func() (err error) {
		fn.f, err = moduleFunction(m.m, name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("device: kernel %q: %w", name, err)
	}
	return fn, nil
}

// HostMem is pinned host memory mapped into every context's address space:
// the host reads and writes Bytes, kernels use Ptr.
type HostMem struct {
	ctx   *Context
	host  unsafe.Pointer
	bytes []byte
	dev   Ptr
}

// HostAlloc allocates n bytes of mapped pinned host memory, zeroed.
func (c *Context) HostAlloc(n int) (*HostMem, error) {
	if n <= 0 {
		return nil, fmt.Errorf("device: pinned allocation of %d bytes", n)
	}
	h := &HostMem{ctx: c}
	err := c.Do(func() (err error) {
		h.host, h.dev, err = hostAlloc(n)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("device: pinned allocation of %d bytes: %w", n, err)
	}
	h.bytes = unsafe.Slice((*byte)(h.host), n)
	clear(h.bytes)
	return h, nil
}

// Bytes is the host view.
func (h *HostMem) Bytes() []byte { return h.bytes }

// Ptr is the device address of the memory.
func (h *HostMem) Ptr() Ptr { return h.dev }

// Free releases the memory.
func (h *HostMem) Free() error {
	if h.host == nil {
		return nil
	}
	p := h.host
	h.host, h.bytes = nil, nil
	return h.ctx.Do(func() error { return hostFree(p) })
}

// Event marks a point in a stream, for timing.
type Event struct {
	ctx *Context
	e   C.CUevent
}

// NewEvent creates a timing event.
func (c *Context) NewEvent() (*Event, error) {
	ev := &Event{ctx: c}
	err := c.Do(func() (err error) {
		ev.e, err = eventCreate()
		return err
	})
	return ev, err
}

// Record enqueues the event on s.
func (e *Event) Record(s *Stream) error {
	return e.ctx.Do(func() error { return eventRecord(e.e, s.c()) })
}

// Sync blocks until the event has happened.
func (e *Event) Sync() error { return e.ctx.Do(func() error { return eventSync(e.e) }) }

// Destroy releases the event.
func (e *Event) Destroy() error { return e.ctx.Do(func() error { return eventDestroy(e.e) }) }

// Elapsed is the time in milliseconds between two recorded events.
func Elapsed(from, to *Event) (float32, error) {
	var ms float32
	err := from.ctx.Do(func() (err error) {
		ms, err = eventElapsed(from.e, to.e)
		return err
	})
	return ms, err
}

// Graph is work captured from a stream (BeginCapture … EndCapture) and
// instantiated, to be replayed with Launch: a loop of kernels and
// routines queued on one stream costs one launch per replay.
type Graph struct {
	ctx  *Context
	g    C.CUgraph
	exec C.CUgraphExec
}

// BeginCapture starts capturing s: the work queued on it until EndCapture
// is recorded into a graph, not run.
func (s *Stream) BeginCapture() error {
	return s.ctx.Do(func() error { return streamBeginCapture(s.c()) })
}

// Capturing reports whether s is being captured (between BeginCapture and
// EndCapture): some operations, peer copies among them, cannot be
// captured, and callers then take another way (a copy kernel).
func (s *Stream) Capturing() (bool, error) {
	var on bool
	err := s.ctx.Do(func() (err error) {
		on, err = streamIsCapturing(s.c())
		return err
	})
	return on, err
}

// EndCapture ends s's capture and returns the captured work as a Graph,
// ready to Launch.
func (s *Stream) EndCapture() (*Graph, error) {
	gr := &Graph{ctx: s.ctx}
	err := s.ctx.Do(func() (err error) {
		if gr.g, err = streamEndCapture(s.c()); err != nil {
			return err
		}
		if gr.exec, err = graphInstantiate(gr.g); err != nil {
			return errors.Join(err, graphDestroy(gr.g))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("device: graph on GPU %d: %w", s.ctx.ordinal, err)
	}
	return gr, nil
}

// Launch queues one replay of the graph on s.
func (gr *Graph) Launch(s *Stream) error {
	return s.ctx.Do(func() error { return graphLaunch(gr.exec, s.c()) })
}

// Destroy releases the graph; replays already queued still run.
func (gr *Graph) Destroy() error {
	return gr.ctx.Do(func() error { return errors.Join(graphExecDestroy(gr.exec), graphDestroy(gr.g)) })
}
