//go:build cuda

package nvshmem

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/internal/abi"
	"github.com/symchan/symchan/pgas/bootstrap"
	"github.com/symchan/symchan/pgas/driver"
	"github.com/symchan/symchan/pgas/internal/gpuop"
)

// proc is this process's NVSHMEM state, made once: NVSHMEM cannot be
// started again in a process.
var proc struct {
	mu   sync.Mutex
	done bool // started, or failed for good
	err  error
	info bootstrap.Info
	ctx  *device.Context // the GPU's primary context (NVSHMEM's)
	// nodes[pe] is PE pe's node (launch.go).
	nodes   []int
	ownsMPI bool           // NVSHMEM's MPI bootstrap initialised MPI (launch_cuda.go)
	mod     *device.Module // symchan.cu, linked with NVSHMEM's device library (remote_cuda.go)
	progs   gpuop.Programs // the programs GPU.Load linked

	remoteAtomic *device.Function
}

// nvMu serialises NVSHMEM calls (NVSHMEM_THREAD_SERIALIZED: any thread,
// one at a time).
var nvMu sync.Mutex

// call runs fn, which calls NVSHMEM, on this goroutine's OS thread with the
// primary context current, one call at a time. (A goroutine that owned
// every call cost a thread wake-up per call.)
func call(fn func()) {
	nvMu.Lock()
	defer nvMu.Unlock()
	proc.ctx.Do(func() error { fn(); return nil })
}

// start starts NVSHMEM for the process, once, sized for the first world's
// heap (per PE) unless NVSHMEM_SYMMETRIC_SIZE is set. The processes meet
// within ctx; when ctx ends first, a later Open tries again.
func start(ctx context.Context, b Backend, heap int64) error {
	proc.mu.Lock()
	defer proc.mu.Unlock()
	if proc.done {
		return proc.err
	}
	err := startOnce(ctx, b, heap)
	if err != nil && ctx.Err() != nil {
		return err
	}
	proc.done, proc.err = true, err
	return err
}

func startOnce(ctx context.Context, b Backend, heap int64) error {
	if err := load(b.Library); err != nil {
		return err
	}
	if _, err := passHeapSize(heap); err != nil {
		return fmt.Errorf("nvshmem backend: %w", err)
	}
	info, err := b.job()
	if err != nil {
		return fmt.Errorf("nvshmem backend: %w", err)
	}
	proc.info = info
	n, err := device.Count()
	if err != nil {
		return err
	}
	if n == 0 {
		return errors.New("nvshmem backend: no GPU visible")
	}
	gpu := info.LocalRank % n
	if proc.ctx, err = device.PrimaryContext(gpu); err != nil {
		return err
	}
	g, err := proc.ctx.Granularity()
	if err != nil {
		return err
	}
	if err := passGranularity(g); err != nil {
		return fmt.Errorf("nvshmem backend: %w", err)
	}
	if boot, pmi := launcherBootstrap(info); boot != "" {
		if err := initFromLauncher(info, boot, pmi); err != nil {
			return err
		}
		return started(info, b.PTXFile)
	}
	// The unique id: rank 0 asks NVSHMEM for it, everyone gets it through
	// the rendezvous (symrun's, or rank 0's own under mpirun or srun).
	newUID := func() ([]byte, error) {
		id := make([]byte, 128)
		if rc := nvGetUniqueID(id); rc != 0 {
			return nil, fmt.Errorf("nvshmemx_get_uniqueid: %d", rc)
		}
		return id, nil
	}
	var uid []byte
	if info.Size == 1 {
		uid, err = newUID()
	} else {
		uid, err = bootstrap.Share(ctx, info, "nvshmem-uid", newUID)
	}
	if err != nil {
		return fmt.Errorf("nvshmem backend: %w", err)
	}
	if len(uid) != 128 {
		return fmt.Errorf("nvshmem backend: unique id of %d bytes", len(uid))
	}
	var initErr error
	call(func() {
		if rc := nvInit(info.Rank, info.Size, uid); rc != 0 {
			initErr = fmt.Errorf("nvshmem backend: NVSHMEM init failed (%d)", rc)
		}
	})
	if initErr != nil {
		return initErr
	}
	return started(info, b.PTXFile)
}

// started finishes the process's start once NVSHMEM runs: where each PE's
// node is, and symchan's kernels.
func started(info bootstrap.Info, ptxFile string) error {
	var me, np int
	call(func() { me, np = nvMyPE(), nvNPEs() })
	if me != info.Rank || np != info.Size {
		return fmt.Errorf("nvshmem backend: NVSHMEM says PE %d of %d, the launcher rank %d of %d", me, np, info.Rank, info.Size)
	}
	if err := findNodes(info.Size); err != nil {
		return err
	}
	return loadKernels(ptxFile)
}

type transport struct {
	me, n   int
	size    int64
	heap    device.Ptr   // this PE's partition (nvshmem_malloc)
	staging device.Ptr   // symmetric staging for host data, then the failure record (failure_cuda.go)
	peers   []device.Ptr // nvshmem_ptr of the heap on each PE; 0 if not mapped
	desc    device.Ptr   // struct symchan_heap for kernels (bases = peers)
	// Where registered buffers go (register_cuda.go): offsets from
	// regLo (0: none), in units of regAlign.
	regLo, regAlign int64

	mu     sync.Mutex // serialises this PE's routines
	st     *device.Stream
	agent  *gpuop.Agent
	lane   *gpuop.Lane      // runs routines on mapped peers (see Put)
	result *device.HostMem  // what the remote routines answer (remote.go)
	abort  *gpuop.AbortWord // the world's (driver.AbortTransport), watched by this GPU's waits
	wait   *device.Function // the wait kernel (gpuop.WaitOnStream), for GPU.SignalWaitOnStream
}

// Open opens this process's PE of the world the launcher started (one PE
// per process; cfg.PEs must be 0 or the process count).
func (b Backend) Open(ctx context.Context, cfg driver.Config) (driver.Transport, error) {
	if err := start(ctx, b, cfg.HeapSize); err != nil {
		return nil, err
	}
	info := proc.info
	if cfg.PEs != 0 && cfg.PEs != info.Size {
		return nil, fmt.Errorf("nvshmem backend: %d PEs asked for, but the launcher started %d processes (one PE each)", cfg.PEs, info.Size)
	}
	t := &transport{me: info.Rank, n: info.Size, size: cfg.HeapSize}
	t.regLo, t.regAlign = registerSpan(t.size)
	var heap, staging device.Ptr
	call(func() {
		heap = nvMalloc(cfg.HeapSize)
		staging = nvMalloc(int64(stagingSize + ctlBytes(info.Size)))
	})
	if heap == 0 || staging == 0 {
		call(func() {
			if heap != 0 {
				nvFree(heap)
			}
			if staging != 0 {
				nvFree(staging)
			}
		})
		return nil, fmt.Errorf("nvshmem backend: nvshmem_malloc of %d bytes failed; lower SYMCHAN_SYMMETRIC_SIZE (NVSHMEM_SYMMETRIC_SIZE must hold it too)", cfg.HeapSize)
	}
	t.heap, t.staging = heap, staging
	t.peers = make([]device.Ptr, t.n)
	call(func() {
		for pe := range t.n {
			if pe == t.me || !cfg.ForceRemote {
				t.peers[pe] = nvPtr(heap, pe)
			}
		}
	})
	fail := func(err error) (driver.Transport, error) {
		t.Close()
		return nil, fmt.Errorf("nvshmem backend: %w", err)
	}
	var err error
	if t.st, err = proc.ctx.NewStream(); err != nil {
		return fail(err)
	}
	if t.abort, err = gpuop.NewAbortWord(proc.ctx); err != nil {
		return fail(err)
	}
	if t.wait, err = proc.mod.Function(abi.WaitOnStream); err != nil {
		return fail(err)
	}
	if t.desc, err = proc.ctx.Alloc(abi.HeapDescriptorSize(len(t.peers))); err != nil {
		return fail(err)
	}
	if t.result, err = proc.ctx.HostAlloc(8); err != nil {
		return fail(err)
	}
	if err := t.st.CopyIn(t.desc, t.descriptor()); err != nil {
		return fail(err)
	}
	if err := t.st.Memset(t.ctl(), 0, int64(ctlBytes(t.n))); err != nil {
		return fail(err)
	}
	if err := t.st.Memset(t.heap, 0, cfg.HeapSize); err != nil {
		return fail(err)
	}
	if err := t.st.Sync(); err != nil {
		return fail(err)
	}
	if t.agent, err = gpuop.NewAgent(proc.ctx, proc.mod, 1); err != nil {
		return fail(err)
	}
	t.lane = t.agent.Lane(0)
	t.lane.Bind(func() error { // NVSHMEM's routines complete, then the stream
		call(func() { nvQuietOnStream(t.handle()) })
		return t.st.Sync()
	})
	call(func() { nvBarrierAll() }) // every heap zeroed before anyone writes
	return t, nil
}

// descriptor is this PE's struct symchan_heap: the partitions of the PEs
// this GPU can address (nvshmem_ptr), 0 for the others.
func (t *transport) descriptor() []byte {
	bases := make([]uint64, len(t.peers))
	for pe := range bases {
		bases[pe] = uint64(t.peers[pe])
	}
	return abi.HeapDescriptor(uint64(t.desc), bases, t.size, t.me, uint64(t.abort.Ptr()))
}

func (t *transport) NumPEs() int            { return t.n }
func (t *transport) LocalPEs() []int        { return []int{t.me} }
func (t *transport) HeapSize() int64        { return t.size }
func (t *transport) Heap(int) []byte        { return nil }
func (t *transport) Fence(int) error        { return t.quiet(false) }
func (t *transport) Quiet(int) error        { return t.quiet(true) }
func (t *transport) addr(off int64) uintptr { return uintptr(t.heap) + uintptr(off) }

// Node is pe's node, numbered in order of each node's lowest PE, for any
// placement of ranks on nodes (launch.go).
func (t *transport) Node(pe int) int { return proc.nodes[pe] }

func (t *transport) handle() unsafe.Pointer { return t.st.Handle() }

// quiet completes this PE's lane routines, and its NVSHMEM operations in
// stream order; with wait the host also waits for them.
func (t *transport) quiet(wait bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lane != nil {
		if err := t.lane.StreamOp(); err != nil {
			return err
		}
	}
	call(func() { nvQuietOnStream(t.handle()) })
	if !wait {
		return nil
	}
	return t.synced()
}

// staged runs fn (an NVSHMEM call) over src in pieces of at most
// stagingSize, each first put into the staging buffer. Stream order keeps
// a piece in the buffer until its put has read it.
func (t *transport) staged(src []byte, fn func(at int, n int)) error {
	for at := 0; at < len(src); at += stagingSize {
		n := min(stagingSize, len(src)-at)
		if err := t.st.CopyIn(t.staging, src[at:at+n]); err != nil {
			return err
		}
		call(func() { fn(at, n) })
	}
	return nil
}

// onLane reports whether a routine of n bytes on pe's memory goes to the
// lane: small, and pe's partition mapped here (nvshmem_ptr; peers over
// NVLink or PCIe). The lane's stores and loads then reach it directly,
// without NVSHMEM's stream calls and the synchronisations they need.
func (t *transport) onLane(pe, n int) bool { return n <= gpuop.LaneMax && t.peers[pe] != 0 }

// stream takes the PE's lock for stream work, after its lane routines.
func (t *transport) stream() (unlock func(), err error) {
	t.mu.Lock()
	if err := t.lane.StreamOp(); err != nil {
		t.mu.Unlock()
		return nil, err
	}
	return t.mu.Unlock, nil
}

func (t *transport) Put(_, pe int, off int64, src []byte) error {
	if t.onLane(pe, len(src)) {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.lane.Put(t.peers[pe]+device.Ptr(off), src, false, 0, 0, 0)
	}
	unlock, err := t.stream()
	if err != nil {
		return err
	}
	defer unlock()
	return t.staged(src, func(at, n int) {
		nvPut(t.addr(off+int64(at)), uintptr(t.staging), int64(n), pe, t.handle())
	})
}

// NVSHMEM's host API has no strided put or get (its iput and iget are
// device routines), so where pe's partition is mapped here (nvshmem_ptr)
// a strided transfer is one 2-D copy on the PE's stream, straight from or
// to the peer's memory. Where it is not, a strided get reads the block's
// whole span (getStaged) and a strided put is left to pgas, element by
// element: writing the span would overwrite the gaps.
func (t *transport) PutStrided(from, pe int, off, stride, elem int64, n int, src []byte, _ bool) error {
	return t.mapped2D(pe, stride, func(peer device.Ptr) error {
		return t.st.CopyIn2D(peer+device.Ptr(off), stride, src, elem, elem, int64(n))
	})
}

func (t *transport) GetStrided(from, pe int, off, stride, elem int64, n int, dst []byte) error {
	if t.peers[pe] == 0 && stride <= device.MaxPitch {
		return t.getStaged(pe, off, stride, elem, n, dst)
	}
	return t.mapped2D(pe, stride, func(peer device.Ptr) error {
		return t.st.CopyOut2D(dst, elem, peer+device.Ptr(off), stride, elem, int64(n))
	})
}

// getStaged reads n elements of elem bytes, stride bytes apart from off,
// of pe's partition, which is not mapped here: one NVSHMEM get of their
// span (the gaps too) into the staging buffer and one 2-D copy out of it
// per stagingSize of span, where element by element an AllToAlls of 4096
// elements took 86 ms in the forced-remote mode.
func (t *transport) getStaged(pe int, off, stride, elem int64, n int, dst []byte) error {
	unlock, err := t.stream()
	if err != nil {
		return err
	}
	defer unlock()
	rows := int((stagingSize-elem)/stride) + 1 // elements per piece
	for i := 0; i < n; i += rows {
		m := min(rows, n-i)
		span := stride*int64(m-1) + elem
		call(func() {
			nvGet(uintptr(t.staging), t.addr(off+int64(i)*stride), int64(span), pe, t.handle())
			nvQuietOnStream(t.handle())
		})
		if err := t.st.CopyOut2D(dst[int64(i)*elem:], elem, t.staging, stride, elem, int64(m)); err != nil {
			return err
		}
	}
	return t.synced()
}

// mapped2D runs do, a 2-D copy with pe's mapped partition at peer, on
// the PE's stream; it declines (errors.ErrUnsupported) where pe is not
// mapped or the stride exceeds a 2-D copy's pitch.
func (t *transport) mapped2D(pe int, stride int64, do func(peer device.Ptr) error) error {
	if t.peers[pe] == 0 || stride > device.MaxPitch {
		return errors.ErrUnsupported
	}
	unlock, err := t.stream()
	if err != nil {
		return err
	}
	defer unlock()
	return do(t.peers[pe])
}

func (t *transport) PutNBI(from, pe int, off int64, src []byte) error {
	return t.Put(from, pe, off, src)
}

func (t *transport) Get(_, pe int, off int64, dst []byte) error {
	if t.onLane(pe, len(dst)) {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.lane.Get(dst, t.peers[pe]+device.Ptr(off))
	}
	unlock, err := t.stream()
	if err != nil {
		return err
	}
	defer unlock()
	for at := 0; at < len(dst); at += stagingSize {
		n := min(stagingSize, len(dst)-at)
		call(func() {
			nvGet(uintptr(t.staging), t.addr(off+int64(at)), int64(n), pe, t.handle())
			nvQuietOnStream(t.handle())
		})
		if err := t.st.CopyOut(dst[at:at+n], t.staging); err != nil {
			return err
		}
	}
	return t.synced()
}

func (t *transport) GetNBI(from, pe int, off int64, dst []byte) error {
	return t.Get(from, pe, off, dst)
}

func (t *transport) Copy(_, dstPE int, dstOff int64, srcPE int, srcOff int64, n int64) error {
	if n <= gpuop.LaneCopyMax && t.peers[dstPE] != 0 && t.peers[srcPE] != 0 { // both mapped: the agent's warp copies
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.lane.Copy(t.peers[dstPE]+device.Ptr(dstOff), t.peers[srcPE]+device.Ptr(srcOff), int(n))
	}
	unlock, err := t.stream()
	if err != nil {
		return err
	}
	defer unlock()
	call(func() {
		if srcPE == t.me {
			nvPut(t.addr(dstOff), t.addr(srcOff), int64(n), dstPE, t.handle())
		} else {
			nvGet(t.addr(dstOff), t.addr(srcOff), int64(n), srcPE, t.handle())
		}
		nvQuietOnStream(t.handle())
	})
	return t.synced()
}

// synced waits for the stream (its NVSHMEM routines quieted on it) and
// tells the lane, which then need not wait for it again.
func (t *transport) synced() error {
	if err := t.st.Sync(); err != nil {
		return err
	}
	if t.lane != nil { // nil only while Open fails
		t.lane.StreamSynced()
	}
	return nil
}

// ClaimPutSignal runs on the lane for a peer this process maps (one
// routine of the agent); for others pgas takes two steps.
func (t *transport) ClaimPutSignal(_, pe int, off int64, src []byte, sigOff int64, cond, claim, v uint64) (uint64, error) {
	if !t.onLane(pe, len(src)) {
		return 0, errors.ErrUnsupported
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lane.ClaimPut(t.peers[pe]+device.Ptr(off), src, t.peers[pe]+device.Ptr(sigOff), cond, claim, v)
}

// PutSignalUnordered leaves out the agent's fence between data and signal
// for a peer this process maps; to others it is PutSignal.
func (t *transport) PutSignalUnordered(from, pe int, off int64, src []byte, sigOff int64, sig uint64, op driver.SigOp) error {
	if !t.onLane(pe, len(src)) {
		return t.PutSignal(from, pe, off, src, sigOff, sig, op, false)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lane.PutSignalUnordered(t.peers[pe]+device.Ptr(off), src, t.peers[pe]+device.Ptr(sigOff), sig, op)
}

func (t *transport) PutSignal(_, pe int, off int64, src []byte, sigOff int64, sig uint64, op driver.SigOp, _ bool) error {
	if t.onLane(pe, len(src)) {
		t.mu.Lock()
		defer t.mu.Unlock()
		return t.lane.Put(t.peers[pe]+device.Ptr(off), src, true, t.peers[pe]+device.Ptr(sigOff), sig, op)
	}
	unlock, err := t.stream()
	if err != nil {
		return err
	}
	defer unlock()
	if len(src) == 0 {
		call(func() { nvSignalOp(t.addr(sigOff), uint64(sig), op, pe, t.handle()) })
		return nil
	}
	// Chunks before the last go as plain puts; the last carries the signal.
	return t.staged(src, func(at, n int) {
		if at+n < len(src) {
			nvPut(t.addr(off+int64(at)), uintptr(t.staging), int64(n), pe, t.handle())
			return
		}
		nvPutSignal(t.addr(off+int64(at)), uintptr(t.staging), int64(n), t.addr(sigOff), sig, op, pe, t.handle())
	})
}

func (t *transport) Atomic(_, pe int, off int64, k driver.Kind, op driver.AtomicOp, operand, cond uint64) (uint64, error) {
	if t.peers[pe] == 0 {
		return t.remoteAtomic(pe, off, k, op, operand, cond)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	// Earlier puts to that word complete first (the lane drains the
	// stream), then the lane runs it on the peer's memory.
	return t.lane.Atomic(t.peers[pe]+device.Ptr(off), k, op, operand, cond)
}

func (t *transport) Wait(ctx context.Context, _ int, abort <-chan struct{}, req driver.WaitRequest) (driver.WaitResult, error) {
	return t.agent.Wait(ctx, abort, t.heap+device.Ptr(req.Off), req)
}

// Abort sets the world's abort word: every wait on this PE's GPU ends.
// Another process's PE learns of a failure from pgas (WatchFailures) and
// sets its own.
func (t *transport) Abort() { t.abort.Set() }

func (t *transport) Close() error {
	t.Abort() // no GPU wait of the world outlives it
	var errs []error
	if t.st != nil {
		errs = append(errs, t.quiet(true))
	}
	call(func() {
		nvBarrierAll() // nobody still writes here
		nvFree(t.staging)
		nvFree(t.heap)
	})
	if t.agent != nil {
		errs = append(errs, t.agent.Close())
	}
	if t.desc != 0 {
		errs = append(errs, proc.ctx.Free(t.desc))
	}
	if t.result != nil {
		errs = append(errs, t.result.Free())
	}
	errs = append(errs, t.abort.Free())
	if t.st != nil {
		errs = append(errs, t.st.Destroy())
	}
	return errors.Join(errs...)
}
