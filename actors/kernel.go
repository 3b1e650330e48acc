package actors

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/internal/abi"
	"github.com/symchan/symchan/pgas"
)

// The kernel actor's state: struct symchan_actor (kernels/symchan.cuh;
// its layout in package kernels), then the arrays launch places after it,
// one entry per PE of the world: the receiving state (symchan_mbox_in),
// the sending state towards each PE (symchan_mbox_out), and the closed
// senders' bits. The first two have room for at least abi.LocalPEs
// (SYMCHAN_LOCAL_PES): up to that many PEs the kernels find them at fixed
// offsets from the struct.

// actorLayout places the kernel actor's state for a world of n PEs.
type actorLayout struct{ n int }

func (l actorLayout) room() int      { return max(l.n, abi.LocalPEs) }
func (l actorLayout) inOff() int     { return abi.SizeofActor }
func (l actorLayout) outOff() int    { return l.inOff() + int(DeviceInboxSize(l.room())) }
func (l actorLayout) closedOff() int { return l.outOff() + DeviceOutboxSize*l.room() }
func (l actorLayout) size() int      { return l.closedOff() + 8*((l.n+63)/64) }

// Where the state of sender s lies: the receiver's next sequence number
// and unpaid count, and the sender's struct symchan_mbox_out towards s
// (sent, then freed 8 bytes later). launch writes them and handBack reads
// them back.
func (l actorLayout) inNext(s int) int   { return l.inOff() + 8*s }
func (l actorLayout) inUnpaid(s int) int { return l.inOff() + 8*(l.n+s) }
func (l actorLayout) out(s int) int      { return l.outOff() + DeviceOutboxSize*s }

// KernelError is how a kernel actor failed: the code it gave
// symchan_actor_fail.
type KernelError struct {
	PE   int
	Code uint64
}

func (e *KernelError) Error() string {
	return fmt.Sprintf("actors: the kernel actor on PE %d failed with code %d", e.PE, e.Code)
}

// KernelActor is a kernel running as its PE's actor on a Mailbox: it takes
// the PE's messages from every sender, Go or kernel, and sends and replies
// in the same wire format (kernels/symchan.cuh: symchan_actor_recv,
// _send, _reply, _fail). StartKernel launches it; Stop ends it.
//
// While it runs, the kernel owns the mailbox's receiving side and this PE's
// sending side: the PE's Go code does not Recv on the mailbox or Send on
// it (such calls wait until the kernel returns; other PEs send and receive
// as usual). When it returns, what it received and sent is handed back, so
// Go and kernels can take turns on one mailbox with nothing lost or
// repeated.
//
// The kernel stays resident until it returns: its blocks hold the SMs they
// occupy for its whole life, beside the backend's agent (a few blocks of 32
// threads) and the user's own kernels. Keep its grid small, one block or a
// few; a grid the GPU cannot keep resident beside the others never starts
// whole. When the PE's function returns, the actor is asked to stop, and
// the PE ends once the kernel has returned: a kernel that never returns
// (one blocked for credit from a PE that failed) keeps its PE from
// ending.
//
// Calls that wait for a GPU's whole context to be idle wait for its
// running kernel actors to return: device.Context's CopyIn, CopyOut and
// Free (cuCtxSynchronize, cuMemFree). While actors run, copy through a
// stream of one's own (device.Context.NewStream, Stream.CopyIn, Sync) and
// free once they have returned; with PEs sharing a GPU, as the tests do,
// they share its context and each other's actors. Likewise, work on a
// stream that shares a hardware queue with the actor's (the driver maps a
// context's streams onto CUDA_DEVICE_MAX_CONNECTIONS queues: 8 unless the
// process starts with it set) may wait for it to return. A Go PE's messaging stays off its stream for
// that reason: the GPU backends put and get up to 1536 bytes through
// their agent (a default 1 KiB slot whole; larger slots take stream
// copies), and the agent runs two waits per PE of its GPU beyond 16,
// however many words each (a mailbox of 1024 PEs waits on thousands),
// before a wait launches a kernel. So 64 PEs sharing two GPUs, and 1024
// sharing one, fan in to one kernel actor (conformance tests); with
// slots of more than 1536 bytes and PEs sharing a GPU, a PE's copy can
// queue behind the actor it is sending to and never run.
type KernelActor struct {
	mb  *Mailbox
	pe  *pgas.PE
	st  *device.Stream
	ctx *device.Context
	mem device.Ptr
	// ended is a word of mapped pinned memory the stream sets after the
	// kernel: its end, seen without asking the driver.
	ended   *device.HostMem
	done    chan struct{}
	err     error // how it ended; set before done closes
	stop    sync.Once
	stopErr error
}

// StartKernel launches fn, a kernel of a module loaded on the GPU of mb's
// PE, as that PE's actor on mb, with grid and block as given. The kernel's
// arguments are the PE's heap descriptor, the device address of its
// struct symchan_actor, then args. sys gives it the reply slots for
// symchan_actor_reply (nil: none). It waits, up to ctx, for the PE's Go
// receive and sends under way to finish; messages Go has taken from the
// inbox but not yet returned from Recv must be received first.
//
// A kernel that fails (symchan_actor_fail, a fault, a launch error) fails
// its PE: pgas.PE.Fail with a *KernelError or the CUDA error, so every
// other PE's blocking calls end with a *pgas.PEError naming the PE.
func StartKernel(ctx context.Context, mb *Mailbox, sys *System, fn *device.Function, grid, block device.Dim3, args ...uint64) (*KernelActor, error) {
	if mb == nil || fn == nil {
		return nil, fmt.Errorf("%w: nil Mailbox or Function", ErrBadArg)
	}
	if mb.zero() {
		return nil, errZero
	}
	if _, err := mb.Device(); err != nil {
		return nil, err
	}
	pe := mb.pe
	if sys != nil && sys.pe != pe {
		return nil, fmt.Errorf("%w: System of PE %d for a Mailbox of PE %d", ErrBadArg, sys.pe.ID(), pe.ID())
	}
	g, err := pe.GPU()
	if err != nil {
		return nil, err
	}
	if err := mb.lockAll(ctx); err != nil {
		return nil, err
	}
	a := &KernelActor{mb: mb, pe: pe, ctx: g.Context(), done: make(chan struct{})}
	residentStart(a.ctx)
	if err := a.launch(g, sys, fn, grid, block, args); err != nil {
		a.release()
		mb.unlockAll()
		return nil, err
	}
	pe.Go(a.watch)
	return a, nil
}

// lockAll takes the inbox and every outbox for a kernel actor, if no
// message is half taken.
func (m *Mailbox) lockAll(ctx context.Context) error {
	in := &m.in
	if err := in.mu.lock(ctx); err != nil {
		return err
	}
	busy := in.qhead < len(in.queue)
	for _, x := range in.asm {
		busy = busy || x.active
	}
	if busy {
		in.mu.unlock()
		return fmt.Errorf("%w: the mailbox holds messages Go has taken but not yet received, or half of one: Recv them before StartKernel", ErrBadArg)
	}
	for i := range m.out {
		if err := m.out[i].Load().mu.lock(ctx); err != nil {
			for j := range i {
				m.out[j].Load().mu.unlock()
			}
			in.mu.unlock()
			return err
		}
	}
	return nil
}

func (m *Mailbox) unlockAll() {
	for i := range m.out {
		m.out[i].Load().mu.unlock()
	}
	m.in.mu.unlock()
}

// residents counts the kernel actors running in each CUDA context and
// keeps what those that ended allocated until none runs there: freeing
// device or pinned memory (cuMemFree, cuMemFreeHost) can wait for the
// whole context to be idle, and with PEs sharing a GPU (and its context)
// another PE's actor may end only once this PE's Go code goes on.
var residents = struct {
	sync.Mutex
	byCtx map[*device.Context]*contextActors
}{byCtx: map[*device.Context]*contextActors{}}

type contextActors struct {
	running int
	pending []func() // frees of ended actors
}

// residentStart counts an actor about to start in c.
func residentStart(c *device.Context) {
	residents.Lock()
	defer residents.Unlock()
	e := residents.byCtx[c]
	if e == nil {
		e = &contextActors{}
		residents.byCtx[c] = e
	}
	e.running++
}

// residentEnd counts an actor of c as ended and runs free once no actor
// runs in c, with the frees held back before it.
func residentEnd(c *device.Context, free func()) {
	residents.Lock()
	e := residents.byCtx[c]
	e.running--
	e.pending = append(e.pending, free)
	if e.running > 0 {
		residents.Unlock()
		return
	}
	frees := e.pending
	delete(residents.byCtx, c)
	residents.Unlock()
	for _, f := range frees {
		f()
	}
}

// launch writes the actor's state to device memory and starts fn.
func (a *KernelActor) launch(g pgas.GPU, sys *System, fn *device.Function, grid, block device.Dim3, args []uint64) error {
	m, l := a.mb, actorLayout{a.mb.n}
	var err error
	if a.mem, err = a.ctx.Alloc(int64(l.size())); err != nil {
		return err
	}
	b := make([]byte, l.size())
	d, err := m.Device()
	if err != nil {
		return err
	}
	copy(b[abi.OffsetofActorMb:], d.Bytes())
	if sys != nil {
		copy(b[abi.OffsetofActorRs:], sys.Device().Bytes())
	}
	binary.LittleEndian.PutUint64(b[abi.OffsetofActorIn:], uint64(a.mem)+uint64(l.inOff()))
	binary.LittleEndian.PutUint64(b[abi.OffsetofActorOut:], uint64(a.mem)+uint64(l.outOff()))
	binary.LittleEndian.PutUint64(b[abi.OffsetofActorClosed:], uint64(a.mem)+uint64(l.closedOff()))
	for s := range m.n {
		binary.LittleEndian.PutUint64(b[l.inNext(s):], m.in.next[s])
		binary.LittleEndian.PutUint64(b[l.inUnpaid(s):], m.in.unpaid[s])
		o := m.out[s].Load()
		binary.LittleEndian.PutUint64(b[l.out(s):], o.sent)
		binary.LittleEndian.PutUint64(b[l.out(s)+8:], o.freed)
	}
	if a.st, err = a.ctx.NewStream(); err != nil {
		return err
	}
	if a.ended, err = a.ctx.HostAlloc(8); err != nil {
		return err
	}
	if err := a.st.CopyIn(a.mem, b); err != nil {
		return err
	}
	if err := a.st.Launch(fn, grid, block, 0, append([]uint64{uint64(g.HeapDescriptor()), uint64(a.mem)}, args...)...); err != nil {
		return err
	}
	return a.st.WriteValue64(a.ended.Ptr(), 1)
}

// hasEnded reports whether the stream has passed the kernel's end.
func (a *KernelActor) hasEnded() bool {
	return atomic.LoadUint64((*uint64)(unsafe.Pointer(unsafe.SliceData(a.ended.Bytes())))) != 0
}

// release destroys the actor's stream, and frees its memory once no
// kernel actor runs in its context (see residents).
func (a *KernelActor) release() {
	if a.st != nil {
		_ = a.st.Destroy()
	}
	mem, ended := a.mem, a.ended
	residentEnd(a.ctx, func() {
		if mem != 0 {
			_ = a.ctx.Free(mem)
		}
		if ended != nil {
			_ = ended.Free()
		}
	})
}

// watch waits for the kernel to return (asking it to stop when the PE
// ends), hands its state back to the mailbox and reports how it ended.
func (a *KernelActor) watch(ctx context.Context) {
	// Wait learns how the kernel ended before the PE's context ends.
	defer func() {
		close(a.done)
		if a.err != nil {
			a.pe.Fail(a.err)
		}
	}()
	pause := 20 * time.Microsecond
	for {
		// The word, not cuStreamQuery, says the kernel ended: the query was
		// seen to report a running actor's stream as complete.
		_, err := a.st.Done()
		done := err == nil && a.hasEnded()
		if err != nil {
			a.err = fmt.Errorf("actors: the kernel actor on PE %d: %w", a.pe.ID(), err)
			a.mb.unlockAll() // its state is lost with the GPU's
			a.release()
			return
		}
		if done {
			break
		}
		if ctx.Err() != nil {
			_ = a.sendStop(context.Background())
		}
		time.Sleep(pause)
		pause = min(2*pause, time.Millisecond)
	}
	a.err = a.handBack()
	a.release()
}

// handBack copies the kernel's receive and send state back into the
// mailbox and unlocks it; it returns the kernel's failure, if any.
func (a *KernelActor) handBack() error {
	m := a.mb
	defer m.unlockAll()
	// The state is read once the stream is idle, and used once the read
	// has landed: a device-to-host copy into pageable memory was seen to
	// return before its bytes were there.
	l := actorLayout{m.n}
	b := make([]byte, l.size())
	err := a.st.Sync()
	if err == nil {
		err = a.st.CopyOut(b, a.mem)
	}
	if err == nil {
		err = a.st.Sync()
	}
	if err != nil {
		return fmt.Errorf("actors: the kernel actor on PE %d: reading its state back: %w", a.pe.ID(), err)
	}
	in, me := &m.in, a.pe.ID()
	for s := range m.n {
		if s != me { // Go keeps its own sends to itself: the stop marker
			o := m.out[s].Load()
			o.sent = binary.LittleEndian.Uint64(b[l.out(s):])
			o.slot = int(o.sent % uint64(m.k))
			o.freed = binary.LittleEndian.Uint64(b[l.out(s)+8:])
		}
		wasClosed := in.expect[m.slot(s, 0)] == ^uint64(0)
		nowClosed := !wasClosed && binary.LittleEndian.Uint64(b[l.closedOff()+8*(s/64):])&(1<<(s%64)) != 0
		if nowClosed {
			in.open--
		}
		m.resync(s, max(binary.LittleEndian.Uint64(b[l.inNext(s):]), 1), binary.LittleEndian.Uint64(b[l.inUnpaid(s):]), wasClosed || nowClosed)
	}
	if code := binary.LittleEndian.Uint64(b[abi.OffsetofActorError:]); code != 0 {
		return &KernelError{PE: me, Code: code}
	}
	return nil
}

// sendStop sends the stop request once: a close marker from the PE to
// itself, which the kernel takes after every message before it.
func (a *KernelActor) sendStop(ctx context.Context) error {
	a.stop.Do(func() {
		m, me := a.mb, a.pe.ID()
		a.stopErr = m.putSlot(ctx, me, m.out[me].Load(), header{kind: kindClose}, nil)
	})
	return a.stopErr
}

// Stop asks the kernel to return once it has taken the messages that
// arrived before the request, and waits for it, up to ctx. It returns the
// kernel's failure, if it failed (see Wait). Messages that arrive later
// stay in the mailbox for Go's Recv or the next kernel.
func (a *KernelActor) Stop(ctx context.Context) error {
	select {
	case <-a.done:
		return a.err
	default:
	}
	if err := a.sendStop(ctx); err != nil {
		return err
	}
	return a.Wait(ctx)
}

// Wait waits, up to ctx, for the kernel to return, and reports its
// failure: a *KernelError with the code it gave symchan_actor_fail, or the
// CUDA error of a fault or failed launch; nil when it returned after
// Stop.
func (a *KernelActor) Wait(ctx context.Context) error {
	select {
	case <-a.done:
		return a.err
	case <-ctx.Done():
		select {
		case <-a.done: // ended with ctx: its failure may be why ctx ended
			return a.err
		default:
			return ctx.Err()
		}
	}
}
