//go:build cuda

package cuda

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/internal/abi"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas/driver"
	"github.com/symchan/symchan/pgas/internal/gpuop"
)

// gpu is one PE: its GPU's context, kernels, partition and streams.
type gpu struct {
	id    int
	owner bool            // created ctx (PEs sharing a GPU share its context)
	progs *gpuop.Programs // loaded in ctx (GPU.Load), shared like it
	ctx   *device.Context
	mod   *device.Module
	k     gpuop.StreamKernels // mod's kernels that streams launch (the atomic, …)
	win   *device.Window      // the partition: the heap mapped at 0, registered buffers past it
	heap  device.Ptr          // win's base
	desc  device.Ptr          // the PE's heap descriptor, in its device memory

	mu    sync.Mutex // serialises the routines this PE issues
	st    *device.Stream
	agent *gpuop.Agent // its GPU's (shared by the PEs on one GPU)
	lane  *gpuop.Lane  // this PE's lane of agent
}

type transport struct {
	gpus  []*gpu
	size  int64
	abort *gpuop.AbortWord // the world's (driver.AbortTransport), watched by every GPU's waits
	// Registered buffers (pgas.RegisterSymmetric) go at offsets
	// [regLo, regHi) of every partition's window, each at a multiple of
	// gran; ordinals are the world's GPUs, which reach every mapping.
	regLo, regHi, gran int64
	ordinals           []int

	regMu  sync.Mutex
	mapped map[[2]int64]int64 // bytes Register mapped, by PE and offset
}

// Open opens a world of cfg.PEs PEs on the GPUs (one per GPU unless
// ShareGPUs; cfg.PEs 0: one per GPU). PE i runs on GPU i mod #GPUs: the
// first PE of a GPU makes its context and loads the kernels (openGPU),
// the others share them; every PE gets its partition and stream
// (openPartition); then the GPUs are connected (connect).
func (b Backend) Open(ctx context.Context, cfg driver.Config) (driver.Transport, error) {
	pes, ngpu, err := b.placement(cfg.PEs)
	if err != nil {
		return nil, err
	}
	ptx, err := kernels.PTX(b.PTXFile)
	if err != nil {
		return nil, err
	}
	t := &transport{size: cfg.HeapSize}
	for i := range pes {
		g := &gpu{id: i}
		t.gpus = append(t.gpus, g)
		if i < ngpu {
			err = t.openGPU(g, ptx, (pes-i+ngpu-1)/ngpu)
		} else {
			o := t.gpus[i%ngpu]
			g.ctx, g.mod, g.k, g.agent, g.progs = o.ctx, o.mod, o.k, o.agent, o.progs
		}
		if err == nil {
			err = t.openPartition(g, pes, ngpu, b.registerBytes())
		}
		if err != nil {
			t.Close()
			return nil, fmt.Errorf("cuda backend: %w", err)
		}
	}
	if err := t.connect(ngpu); err != nil {
		t.Close()
		return nil, fmt.Errorf("cuda backend: %w", err)
	}
	return t, nil
}

// placement is the PEs of a world asked for asked PEs (0: one per GPU)
// and the GPUs they run on, which must all reach each other's memory.
func (b Backend) placement(asked int) (pes, ngpu int, err error) {
	n, err := device.Count()
	if err != nil {
		return 0, 0, err
	}
	if n == 0 {
		return 0, 0, errors.New("cuda backend: no GPU visible")
	}
	share := b.ShareGPUs || os.Getenv(EnvShareGPUs) == "1"
	switch pes = asked; {
	case pes == 0:
		pes = n
	case pes > n && !share:
		return 0, 0, fmt.Errorf("cuda backend: %d PEs asked for, but only %d GPUs are visible (one PE per GPU; %s=1 shares them, for tests)", pes, n, EnvShareGPUs)
	}
	ngpu = min(pes, n)
	for a := range ngpu {
		for b := range ngpu {
			if a == b {
				continue
			}
			ok, err := device.CanAccessPeer(a, b)
			if err != nil {
				return 0, 0, err
			}
			if !ok {
				return 0, 0, fmt.Errorf("cuda backend: GPU %d cannot access GPU %d's memory (no NVLink or PCIe peer access): the cuda backend needs peer access between every pair; use fewer GPUs (SYMCHAN_PES) or the nvshmem backend", a, b)
			}
		}
	}
	return pes, ngpu, nil
}

// openGPU makes g's GPU (ordinal g.id) ready for the lanes PEs that run
// on it, once their heaps were found to fit: its context, the world's
// abort word (made with the first context), the kernels and the agent.
func (t *transport) openGPU(g *gpu, ptx string, lanes int) error {
	var err error
	g.owner, g.progs = true, &gpuop.Programs{}
	if g.ctx, err = device.NewContext(g.id); err != nil {
		return err
	}
	if t.abort == nil {
		if t.abort, err = gpuop.NewAbortWord(g.ctx); err != nil {
			return err
		}
	}
	free, _, err := g.ctx.MemInfo()
	if err != nil {
		return err
	}
	if need := t.size * int64(lanes); need > free {
		return fmt.Errorf("symmetric heap of %d bytes (× %d PEs) does not fit GPU %d (%d bytes free); lower SYMCHAN_SYMMETRIC_SIZE", t.size, lanes, g.id, free)
	}
	if g.mod, err = g.ctx.LoadModule(ptx); err != nil {
		return err
	}
	if g.k, err = gpuop.LoadStreamKernels(g.mod); err != nil {
		return err
	}
	g.agent, err = gpuop.NewAgent(g.ctx, g.mod, lanes)
	return err
}

// openPartition gives PE g its partition, a window of reserved addresses
// with the heap mapped at its start (memory every GPU of the world may
// reach), so that a registered buffer can be mapped past it (up to
// register bytes) at the same offset on every PE; its heap descriptor;
// and its stream, with the heap zeroed.
func (t *transport) openPartition(g *gpu, pes, ngpu int, register int64) error {
	var err error
	if t.gran == 0 {
		if t.gran, err = g.ctx.Granularity(); err != nil {
			return err
		}
		t.regLo = (t.size + t.gran - 1) / t.gran * t.gran
		t.regHi = t.regLo + (register+t.gran-1)/t.gran*t.gran
		t.ordinals = make([]int, ngpu)
		for o := range t.ordinals {
			t.ordinals[o] = o
		}
	}
	if g.win, err = g.ctx.Reserve(t.regHi); err != nil {
		return err
	}
	if err = g.win.MapNew(0, t.regLo, t.ordinals); err != nil {
		err = errors.Join(err, g.win.Close())
		g.win = nil
		return err
	}
	g.heap = g.win.Base()
	if g.desc, err = g.ctx.Alloc(abi.HeapDescriptorSize(pes)); err != nil {
		return err
	}
	if g.st, err = g.ctx.NewStream(); err != nil {
		return err
	}
	if err = g.st.Memset(g.heap, 0, t.size); err != nil {
		return err
	}
	g.lane = g.agent.Lane(g.id / ngpu)
	g.lane.Bind(g.st.Sync)
	return nil
}

// connect lets the world's first ngpu contexts (one per GPU) reach each
// other's memory and writes every PE's heap descriptor.
func (t *transport) connect(ngpu int) error {
	for _, a := range t.gpus[:ngpu] {
		for _, b := range t.gpus[:ngpu] {
			if a != b {
				if err := a.ctx.EnablePeer(b.ctx); err != nil {
					return err
				}
			}
		}
	}
	for _, g := range t.gpus {
		if err := g.st.CopyIn(g.desc, t.descriptor(g.id)); err != nil {
			return err
		}
		if err := g.st.Sync(); err != nil {
			return err
		}
	}
	return nil
}

// descriptor is PE pe's struct symchan_heap: every partition, through
// peer access.
func (t *transport) descriptor(pe int) []byte {
	bases := make([]uint64, len(t.gpus))
	for i, g := range t.gpus {
		bases[i] = uint64(g.heap)
	}
	return abi.HeapDescriptor(uint64(t.gpus[pe].desc), bases, t.size, pe, uint64(t.abort.Ptr()))
}

func (t *transport) NumPEs() int { return len(t.gpus) }

func (t *transport) LocalPEs() []int {
	ids := make([]int, len(t.gpus))
	for i := range ids {
		ids[i] = i
	}
	return ids
}

func (t *transport) Node(int) int                      { return 0 }
func (t *transport) HeapSize() int64                   { return t.size }
func (t *transport) Heap(int) []byte                   { return nil } // device memory: not host-addressable
func (t *transport) addr(pe int, off int64) device.Ptr { return t.gpus[pe].heap + device.Ptr(off) }

// issue runs fn, which queues work on from's stream, under its lock after
// the PE's lane routines; with sync it also waits for the stream, so the
// routine is complete when issue returns.
func (t *transport) issue(from int, sync bool, fn func(g *gpu) error) error {
	g := t.gpus[from]
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.lane.StreamOp(); err != nil {
		return err
	}
	if err := fn(g); err != nil {
		return err
	}
	if !sync {
		return nil
	}
	if err := g.st.Sync(); err != nil {
		return err
	}
	g.lane.StreamSynced()
	return nil
}

// lane runs fn with from's lane under its lock.
func (t *transport) lane(from int, fn func(l *gpuop.Lane) error) error {
	g := t.gpus[from]
	g.mu.Lock()
	defer g.mu.Unlock()
	return fn(g.lane)
}

// Blocking puts return once src may be reused, as OpenSHMEM's do: the
// lane has copied small src into its ring, CopyIn has staged pageable src.
// Delivery is in program order (lane and stream, see gpuop.Lane) and
// completed by Quiet (every barrier quiets first).
func (t *transport) Put(from, pe int, off int64, src []byte) error {
	if len(src) <= gpuop.LaneMax {
		return t.lane(from, func(l *gpuop.Lane) error { return l.Put(t.addr(pe, off), src, false, 0, 0, 0) })
	}
	return t.issue(from, false, func(g *gpu) error { return g.st.CopyIn(t.addr(pe, off), src) })
}

func (t *transport) PutNBI(from, pe int, off int64, src []byte) error {
	return t.Put(from, pe, off, src)
}

func (t *transport) Get(from, pe int, off int64, dst []byte) error {
	if len(dst) <= gpuop.LaneMax {
		return t.lane(from, func(l *gpuop.Lane) error { return l.Get(dst, t.addr(pe, off)) })
	}
	// Into pageable dst the copy is complete when CopyOut returns.
	return t.issue(from, false, func(g *gpu) error { return g.st.CopyOut(dst, t.addr(pe, off)) })
}

func (t *transport) GetNBI(from, pe int, off int64, dst []byte) error {
	return t.Get(from, pe, off, dst)
}

// Copy moves n bytes between partitions: up to gpuop.LaneCopyMax on the
// agent, larger with the copy engines, which on H200s over NVLink beat
// symchan's copy kernel (abi.Copy) at every size from 4 KiB to
// 256 MiB (BenchmarkGPUPut measures both).
func (t *transport) Copy(from, dstPE int, dstOff int64, srcPE int, srcOff int64, n int64) error {
	if n <= gpuop.LaneCopyMax { // the agent's warp: no stream synchronisation
		return t.lane(from, func(l *gpuop.Lane) error { return l.Copy(t.addr(dstPE, dstOff), t.addr(srcPE, srcOff), int(n)) })
	}
	return t.issue(from, true, func(g *gpu) error {
		return g.st.CopyPeer(t.addr(dstPE, dstOff), t.gpus[dstPE].ctx, t.addr(srcPE, srcOff), t.gpus[srcPE].ctx, n)
	})
}

// Strided puts and gets are one 2-D copy (rows of one element) instead of
// an operation per element, where the stride fits a 2-D copy's pitch.
func (t *transport) PutStrided(from, pe int, off, stride, elem int64, n int, src []byte, _ bool) error {
	if stride > device.MaxPitch {
		return errors.ErrUnsupported
	}
	return t.issue(from, false, func(g *gpu) error { return g.st.CopyIn2D(t.addr(pe, off), stride, src, elem, elem, int64(n)) })
}

func (t *transport) GetStrided(from, pe int, off, stride, elem int64, n int, dst []byte) error {
	if stride > device.MaxPitch {
		return errors.ErrUnsupported
	}
	return t.issue(from, false, func(g *gpu) error { return g.st.CopyOut2D(dst, elem, t.addr(pe, off), stride, elem, int64(n)) })
}

func (t *transport) PutSignal(from, pe int, off int64, src []byte, sigOff int64, sig uint64, op driver.SigOp, nbi bool) error {
	if len(src) <= gpuop.LaneMax {
		return t.lane(from, func(l *gpuop.Lane) error { return l.Put(t.addr(pe, off), src, true, t.addr(pe, sigOff), sig, op) })
	}
	return t.issue(from, false, func(g *gpu) error {
		if err := g.st.CopyIn(t.addr(pe, off), src); err != nil {
			return err
		}
		return gpuop.Signal(g.st, g.k.Atomic, t.addr(pe, sigOff), sig, op)
	})
}

// PutSignalUnordered leaves out the agent's fence between data and
// signal; a put too large for the lane is PutSignal.
func (t *transport) PutSignalUnordered(from, pe int, off int64, src []byte, sigOff int64, sig uint64, op driver.SigOp) error {
	if len(src) > gpuop.LaneMax {
		return t.PutSignal(from, pe, off, src, sigOff, sig, op, false)
	}
	return t.lane(from, func(l *gpuop.Lane) error {
		return l.PutSignalUnordered(t.addr(pe, off), src, t.addr(pe, sigOff), sig, op)
	})
}

// ClaimPutSignal runs on from's lane: the claim, the data and the signal
// in one routine of the agent.
func (t *transport) ClaimPutSignal(from, pe int, off int64, src []byte, sigOff int64, cond, claim, v uint64) (uint64, error) {
	var old uint64
	err := t.lane(from, func(l *gpuop.Lane) (err error) {
		old, err = l.ClaimPut(t.addr(pe, off), src, t.addr(pe, sigOff), cond, claim, v)
		return err
	})
	return old, err
}

func (t *transport) Atomic(from, pe int, off int64, k driver.Kind, op driver.AtomicOp, operand, cond uint64) (uint64, error) {
	var old uint64
	err := t.lane(from, func(l *gpuop.Lane) (err error) {
		old, err = l.Atomic(t.addr(pe, off), k, op, operand, cond)
		return err
	})
	return old, err
}

// Fence is free: a PE's routines run in program order (gpuop.Lane).
func (t *transport) Fence(int) error { return nil }

func (t *transport) Quiet(from int) error {
	return t.issue(from, true, func(*gpu) error { return nil })
}

func (t *transport) Wait(ctx context.Context, pe int, abort <-chan struct{}, req driver.WaitRequest) (driver.WaitResult, error) {
	return t.gpus[pe].agent.Wait(ctx, abort, t.addr(pe, req.Off), req)
}

// Abort sets the world's abort word: every wait on its GPUs ends.
func (t *transport) Abort() { t.abort.Set() }

func (t *transport) Close() error {
	t.Abort() // no GPU wait of the world outlives it
	var errs []error
	for _, g := range t.gpus {
		if g.ctx == nil {
			continue
		}
		if g.lane != nil {
			errs = append(errs, g.lane.Quiet())
		}
		if g.st != nil {
			errs = append(errs, g.st.Sync(), g.st.Destroy())
		}
		if g.desc != 0 {
			errs = append(errs, g.ctx.Free(g.desc))
		}
		if g.win != nil {
			t.regMu.Lock()
			for k, n := range t.mapped {
				if k[0] == int64(g.id) {
					errs = append(errs, g.win.Unmap(k[1], n))
				}
			}
			t.regMu.Unlock()
			errs = append(errs, g.win.Unmap(0, t.regLo), g.win.Close())
		}
	}
	// In the first GPU's context, before it closes.
	errs = append(errs, t.abort.Free())
	for _, g := range t.gpus { // after every lane is quiet
		if g.owner && g.agent != nil {
			errs = append(errs, g.agent.Close())
		}
		if g.owner && g.ctx != nil {
			errs = append(errs, g.ctx.Close())
		}
	}
	return errors.Join(errs...)
}
