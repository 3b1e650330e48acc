package pgas

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/internal/abi"
)

// Team collectives on a stream (NVSHMEM's nvshmemx_*_on_stream). Each
// checks its arguments on the caller's PE, enqueues the collective and
// returns; members enqueue a team's collectives in the same order. On the
// GPU backends the stream runs them on the device as phases of the team's
// struct symchan_team (teamdevice.go), the same sequence that symchan.cuh's
// device collectives on that team use, so a team's collectives in users'
// kernels and on streams may follow one another. Elsewhere the host
// stream runs the blocking collective (Broadcast, ReduceAll, …).
//
// Members whose arguments differ (the collective, its count, root,
// operator or element type; NVSHMEM leaves it undefined) all fail: the
// device phase that opens the collective compares their signatures
// (symchan.cuh), and Stream.Sync names the arguments and the members. A
// GPU stream compares counts in bytes, but for a reduction's elements. A
// collective on a stream and a blocking one on the same team are ordered
// by the caller (Stream.Sync between them). A barrier, a sync and a small
// collective on a stream take one phase on the device and a blocking one
// two (symchan.cu: the blocking one's host may abandon it between them),
// so members may mix the two forms of a collective only past the team's
// small-message buffer (docs/design.md); mixed below it, every member
// fails with ErrCollectiveMismatch naming the form.

// Parts of a collective that abi.TeamStep runs: symchan.cu's PART_*,
// generated into package kernels.
const (
	partWhole = abi.PartWhole // open, data, close: one block
	partOpen  = abi.PartOpen  // the opening phase alone
	partData  = abi.PartData  // the data step, on a grid
	partClose = abi.PartClose // the closing phase
)

// Launch shapes of a collective on a GPU stream: below gridBytes moved
// per member one block runs it whole; from there its data step runs on
// gridBlocks blocks between two phase kernels (the stream orders them).
// The data kernel waits for nothing, so it completes however few of its
// blocks the GPU can hold beside other PEs' kernels; a cooperative grid
// running the phases itself was measured 2–3 µs faster at 256 KiB on two
// H200s, and hung 4 PEs sharing one (their grids spinning in each other's
// way).
const (
	stepThreads = 512
	gridBlocks  = 64
	gridBytes   = 128 << 10
)

// BarrierOnStream enqueues on s a barrier of team t (t a team of s's PE;
// nvshmemx_barrier_on_stream, and nvshmemx_barrier_all_on_stream with
// PE.TeamWorld): the routines and kernels each member enqueued on its
// stream before it, and their puts, are complete before any member's
// stream runs past it.
func BarrierOnStream(s *Stream, t *Team) error {
	if err := s.collectiveArgs(t, nil); err != nil {
		return fmt.Errorf("BarrierOnStream: %w", err)
	}
	return s.collective(t, abi.CollBarrier, 0, 0, 0, 0, 0, func(ctx context.Context) error { return t.Barrier(ctx) })
}

// TeamSyncOnStream enqueues on s a synchronisation of team t (t a team of
// s's PE; nvshmemx_team_sync_on_stream): no member's stream runs past it
// before every member's stream has reached it. Unlike BarrierOnStream it
// does not complete the members' puts (QuietOnStream does).
func TeamSyncOnStream(s *Stream, t *Team) error {
	if err := s.collectiveArgs(t, nil); err != nil {
		return fmt.Errorf("TeamSyncOnStream: %w", err)
	}
	return s.collective(t, abi.CollSync, 0, 0, 0, 0, 0, func(ctx context.Context) error { return t.Sync(ctx) })
}

// BroadcastOnStream enqueues on s the Broadcast of the first n elements of
// src on team rank root into dst on every member
// (nvshmemx_broadcastmem_on_stream).
func BroadcastOnStream[T any](s *Stream, t *Team, dst, src Sym[T], n, root int) error {
	if err := s.collectiveArgs(t, func() error { return broadcastArgs(t, dst, src, n, root) }); err != nil {
		return fmt.Errorf("BroadcastOnStream: %w", err)
	}
	nb := int64(n) * sizeOf[T]()
	return s.collective(t, abi.CollBroadcast, dst.off, src.off, nb, uint64(root), nb, func(ctx context.Context) error {
		return Broadcast(ctx, t, dst, src, n, root)
	})
}

// ReduceAllOnStream enqueues on s the ReduceAll of the first n elements of
// src with op into dst on every member (nvshmemx_<type>_<op>_reduce_on_stream).
// dst and src are the same Sym or do not overlap.
func ReduceAllOnStream[T Number](s *Stream, t *Team, op ReduceOp, dst, src Sym[T], n int) error {
	err := s.collectiveArgs(t, func() error { return firstErr(reduceOpArg[T](op), reduceArgs(t, dst, src, n)) })
	if err != nil {
		return fmt.Errorf("ReduceAllOnStream: %w", err)
	}
	return s.collective(t, abi.CollReduce, dst.off, src.off, int64(n), uint64(op)|uint64(deviceElem(elemCode[T]()))<<8, int64(n)*sizeOf[T](),
		func(ctx context.Context) error { return ReduceAll(ctx, t, op, dst, src, n) })
}

// FCollectOnStream enqueues on s the FCollect of the first n elements of
// src on every member into dst (nvshmemx_fcollectmem_on_stream).
func FCollectOnStream[T any](s *Stream, t *Team, dst, src Sym[T], n int) error {
	if err := s.collectiveArgs(t, func() error { return exchangeArgs(t, syncFCollect, dst, src, 1, 1, n, 1) }); err != nil {
		return fmt.Errorf("FCollectOnStream: %w", err)
	}
	nb := int64(n) * sizeOf[T]()
	return s.collective(t, abi.CollFCollect, dst.off, src.off, nb, 0, nb*int64(t.NumPEs()), func(ctx context.Context) error {
		return FCollect(ctx, t, dst, src, n)
	})
}

// AllToAllOnStream enqueues on s the AllToAll of n-element blocks of src
// into dst (nvshmemx_alltoallmem_on_stream).
func AllToAllOnStream[T any](s *Stream, t *Team, dst, src Sym[T], n int) error {
	if err := s.collectiveArgs(t, func() error { return exchangeArgs(t, syncAllToAll, dst, src, 1, 1, n, t.NumPEs()) }); err != nil {
		return fmt.Errorf("AllToAllOnStream: %w", err)
	}
	nb := int64(n) * sizeOf[T]()
	return s.collective(t, abi.CollAllToAll, dst.off, src.off, nb, 0, nb*int64(t.NumPEs()), func(ctx context.Context) error {
		return AllToAll(ctx, t, dst, src, n)
	})
}

// collectiveArgs checks a stream, its team (one of the stream's PE) and
// the collective's own arguments (args, when not nil).
func (s *Stream) collectiveArgs(t *Team, args func() error) error {
	if err := s.usable(); err != nil {
		return err
	}
	if err := t.check(); err != nil {
		return err
	}
	if t.pe != s.p {
		return fmt.Errorf("%w: the team handle is PE %d's, the stream PE %d's", ErrBadArg, t.pe.id, s.p.id)
	}
	if args == nil {
		return nil
	}
	return args()
}

// collective enqueues a checked collective: on a GPU stream, kind
// (abi.Coll*) over dst and src (offsets of this PE's copies; n and arg
// as abi.TeamStep takes them), moved bytes landing on each member; on
// a host stream, blocking.
func (s *Stream) collective(t *Team, kind uint64, dst, src, n int64, arg uint64, moved int64, blocking func(context.Context) error) error {
	// A sync completes nothing; the others complete the stream's earlier
	// puts first.
	return s.teamWork(t, kind != abi.CollSync, blocking, func(g GPU, team device.Ptr) error {
		launch, err := stepLauncher(s.Device(), g, abi.TeamStep, team, 0, kind, uint64(g.Addr(s.p.id, dst)), uint64(g.Addr(s.p.id, src)), uint64(n), arg)
		if err != nil {
			return err
		}
		return launchParts(s.p.w, moved, launch)
	})
}

// teamWork enqueues a checked collective of t on s: on a host stream,
// blocking; on a GPU stream, launch's kernels, given the PE's GPU and
// the address there of its copy of t's struct symchan_team, after s's
// earlier puts through NVSHMEM complete where quiet (as before a
// PutSignal's lone signal: the kernel's own quiet is not documented to
// cover work enqueued before it started).
func (s *Stream) teamWork(t *Team, quiet bool, blocking func(context.Context) error, launch func(g GPU, team device.Ptr) error) error {
	if s.ds == nil {
		return s.host.enqueue(blocking)
	}
	g, err := s.p.GPU()
	if err != nil {
		return err
	}
	team, err := t.onDevice(g) // collectiveArgs checked the team and its PE
	if err != nil {
		return err
	}
	if quiet {
		if err := s.ds.Quiet(); err != nil {
			return err
		}
	}
	s.watch(t)
	return launch(g, team)
}

// stepLauncher returns the launch on st of the parts (blocks, part) of
// kernel, a runtime kernel that runs a team's collective in parts
// (abi.TeamStep, abi.AllToAllVStep): its arguments are the heap
// descriptor, the address of the team's struct (team), args, and last
// the part, with seq (a blocking collective's number, 0 for an *OnStream
// one) in its high 32 bits.
func stepLauncher(st *device.Stream, g GPU, kernel string, team device.Ptr, seq uint64, args ...uint64) (func(blocks int, part uint64) error, error) {
	fn, err := g.Module().Function(kernel) // resolved when the module loaded
	if err != nil {
		return nil, err
	}
	words := append([]uint64{uint64(g.HeapDescriptor()), uint64(team)}, args...)
	return func(blocks int, part uint64) error {
		return st.Launch(fn, device.D1(blocks), device.D1(stepThreads), 0, append(slices.Clip(words), part|seq<<32)...)
	}, nil
}

// launchParts launches a collective of w's moving moved bytes onto each
// member by launch: whole on one block below gridBytes, or wherever PEs
// of w share a GPU's context, else its opening phase, its data on
// gridBlocks blocks and its closing phase. Split, a member's data kernel
// waits in its stream behind the opening kernel, which waits for the
// other members; where their streams can share one of the context's
// hardware queues, the waiting data kernel can hold back another
// member's opening kernel queued behind it, for good (four PEs on one
// H100 hung so in PGAS/AllToAllV's stream form).
func launchParts(w *World, moved int64, launch func(blocks int, part uint64) error) error {
	if moved < gridBytes || w.sharesGPU() {
		return launch(1, partWhole)
	}
	return errors.Join(launch(1, partOpen), launch(gridBlocks, partData), launch(1, partClose))
}

// deviceElem is the element code the device gives Go's int, uint and
// uintptr: that of the sized type with their bits, as a kernel's
// reduction over them names it.
func deviceElem(code int64) int64 {
	switch code {
	case abi.ElemInt:
		return abi.ElemI64
	case abi.ElemUint, abi.ElemUintptr:
		return abi.ElemU64
	}
	return code
}
