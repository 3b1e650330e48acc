package pgas

import (
	"context"
	"fmt"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/internal/abi"
)

// AllToAllV is AllToAll with a block of its own size for every pair of
// members (MPI's alltoallv; the token exchange of mixture-of-experts
// routing): member i sends sendCounts[j] elements of its src, from
// element sendOffsets[j], to member j, where they land in j's dst from
// element recvOffsets[i]; member j expects recvCounts[i] of them. The
// four layout arrays are symmetric arrays of at least NumPEs() int64s
// (this PE's copies; the counts and offsets in elements), as the device
// routines that move tokens keep them; every member may read the others'
// while the call runs. dst and src must not overlap.
//
// A member whose own arguments are bad (a negative count, a block past
// its src or dst) gets its error, and the others ErrBadArg; where a
// sender's count for a receiver differs from the receiver's count for
// it, every member gets ErrCollectiveMismatch naming the pair, and no
// data moves. On the GPU backends it runs the device's AllToAllV
// (symchan.cuh's symchan_alltoallvmem: an opening phase, a phase that
// carries every receiver's verdict on its counts, the data pulled by the
// receivers, a closing phase) on the PE's collective stream and waits
// for it, as the other blocking collectives do. On the host backend it
// moves its data from the host, a get per sender with a block, and then
// completes it on every member (a barrier).
func AllToAllV[T any](ctx context.Context, t *Team, dst, src Sym[T], sendCounts, sendOffsets, recvCounts, recvOffsets Sym[int64]) error {
	if err := t.check(); err != nil {
		return err
	}
	p, n := t.pe, len(t.members)
	bad := alltoallvShapes(t, dst, src, sendCounts, sendOffsets, recvCounts, recvOffsets)
	// This member's layout: send counts and offsets, receive counts and
	// offsets.
	var lay [4][]int64
	for i, s := range [4]Sym[int64]{sendCounts, sendOffsets, recvCounts, recvOffsets} {
		if lay[i] = make([]int64, n); bad == nil {
			bad = Get(p, lay[i], s, p.id)
		}
	}
	sc, so, rc, ro := lay[0], lay[1], lay[2], lay[3]
	if bad == nil {
		bad = firstErr(blocksFit("send", sc, so, src.n), blocksFit("receive", rc, ro, dst.n))
	}
	if t.onGPU() {
		var moved int64
		for _, c := range rc {
			moved += max(c, 0)
		}
		eb := sizeOf[T]()
		v := vLayoutOf(dst, src, sendCounts, sendOffsets, recvCounts, recvOffsets)
		return t.deviceCollective(ctx, devColl{sk: syncAllToAllV, kind: abi.CollAllToAllV, dst: dst.off, src: src.off, n: eb, moved: moved * eb, v: v}, bad)
	}
	if err := openElems[T](ctx, t, syncAllToAllV, bad); err != nil {
		return err
	}
	// Every member's arrays are set: each receiver reads what each sender
	// sends it and publishes a verdict (0, or 1 + the first pair whose
	// counts differ), which the next synchronisation orders before the
	// others read it.
	from := make([][2]int64, n) // sender rank's count and offset for this member
	var verdict uint64
	for r, m := range t.members {
		var c, o [1]int64
		if err := firstErr(Get(p, c[:], sendCounts.Index(t.rank), m), Get(p, o[:], sendOffsets.Index(t.rank), m)); err != nil {
			return t.abortNext(syncAllToAllV, err)
		}
		from[r] = [2]int64{c[0], o[0]}
		if c[0] != rc[r] && verdict == 0 {
			verdict = 1 + uint64(r)*uint64(n) + uint64(t.rank)
		}
	}
	if err := t.publish(syncAllToAllV, verdict); err != nil {
		return err
	}
	if err := t.barrier(ctx, syncAllToAllV, nil); err != nil {
		return err
	}
	for _, m := range t.members {
		var v [1]uint64
		if err := t.scratchOf(syncAllToAllV, m, v[:]); err != nil {
			return err
		}
		verdict = max(verdict, v[0]) // the same pair on every member
	}
	var differ error
	if verdict != 0 {
		i, j := int((verdict-1)/uint64(n)), int((verdict-1)%uint64(n))
		differ = countsDiffer("", t.members, i, j)
	} else {
		var buf []T
		for r, m := range t.members {
			c, o := int(from[r][0]), int(from[r][1])
			if c == 0 {
				continue
			}
			if o < 0 || o > src.n-c { // the sender checked it too: a block past src is its bad argument
				return t.abortNext(syncAllToAllV, fmt.Errorf("%w: alltoallv: rank %d's block of %d at %d is past src", ErrBadSize, r, c, o))
			}
			if cap(buf) < c {
				buf = make([]T, c)
			}
			at := int(ro[r])
			if err := pull(p, dst.Slice(at, at+c), src.Slice(o, o+c), buf[:c], m); err != nil {
				return t.abortNext(syncAllToAllV, err)
			}
		}
	}
	// The last synchronisation completes the gets on every member before
	// any reuses its src (and orders the verdicts' reads before the next
	// collective publishes).
	if err := t.barrier(ctx, syncAllToAllV, nil); err != nil {
		return err
	}
	return differ
}

// blocksFit checks blocks of counts[r] elements at offs[r] against a Sym
// of size elements.
func blocksFit(what string, counts, offs []int64, size int) error {
	for r := range counts {
		c, o := counts[r], offs[r]
		if c < 0 || o < 0 || o > int64(size) || c > int64(size)-o {
			return fmt.Errorf("%w: alltoallv: %s block %d of %d elements at %d does not fit a Sym of %d", ErrBadSize, what, r, c, o, size)
		}
	}
	return nil
}

// alltoallvShapes checks an AllToAllV's arguments that need no reads: the
// Syms (the team's world's, live), the layout arrays' lengths, and that
// dst and src do not overlap.
func alltoallvShapes[T any](t *Team, dst, src Sym[T], sendCounts, sendOffsets, recvCounts, recvOffsets Sym[int64]) error {
	n := len(t.members)
	bad := firstErr(t.checkSyms(dst.rec, src.rec, sendCounts.rec, sendOffsets.rec, recvCounts.rec, recvOffsets.rec),
		needLen("alltoallv sendCounts", sendCounts.n, n), needLen("alltoallv sendOffsets", sendOffsets.n, n),
		needLen("alltoallv recvCounts", recvCounts.n, n), needLen("alltoallv recvOffsets", recvOffsets.n, n))
	if bad == nil && overlaps(dst, src) {
		bad = fmt.Errorf("%w: alltoallv dst and src overlap", ErrBadArg)
	}
	return bad
}

// AllToAllVOnStream enqueues on s the AllToAllV of src into dst laid out
// by the four arrays, as AllToAllV describes them. On a GPU stream the
// stream reads the arrays when it runs the collective, so earlier work on
// the stream (a kernel routing tokens) may write them; every member
// checks there that its blocks fit its dst and src, and a member whose
// blocks do not fit, or counts that differ between a sender and its
// receiver, fail every member's Stream.Sync (ErrBadSize, or
// ErrCollectiveMismatch naming the pair) and move no data. It runs as an
// opening kernel (two phases), the data on a grid, and a closing kernel
// (one kernel where PEs share a GPU's context: launchParts).
// Elsewhere the host stream runs the blocking AllToAllV.
func AllToAllVOnStream[T any](s *Stream, t *Team, dst, src Sym[T], sendCounts, sendOffsets, recvCounts, recvOffsets Sym[int64]) error {
	if err := s.collectiveArgs(t, func() error { return alltoallvShapes(t, dst, src, sendCounts, sendOffsets, recvCounts, recvOffsets) }); err != nil {
		return fmt.Errorf("AllToAllVOnStream: %w", err)
	}
	blocking := func(ctx context.Context) error {
		return AllToAllV(ctx, t, dst, src, sendCounts, sendOffsets, recvCounts, recvOffsets)
	}
	return s.teamWork(t, true, blocking, func(g GPU, team device.Ptr) error {
		v := vLayoutOf(dst, src, sendCounts, sendOffsets, recvCounts, recvOffsets)
		return launchAllToAllV(s.Device(), g, s.p, team, dst.off, src.off, sizeOf[T](), v, gridBytes, 0)
	})
}

// vLayoutOf is the device layout of an AllToAllV of src into dst laid out
// by the four arrays.
func vLayoutOf[T any](dst, src Sym[T], sendCounts, sendOffsets, recvCounts, recvOffsets Sym[int64]) *vLayout {
	return &vLayout{arrays: [4]int64{sendCounts.off, sendOffsets.off, recvCounts.off, recvOffsets.off}, dstN: int64(dst.n), srcN: int64(src.n)}
}

// countsDiffer is the error of an AllToAllV whose rank i sends rank j
// another count than j expects (where: "", or " on a GPU").
func countsDiffer(where string, members []int, i, j int) error {
	return fmt.Errorf("%w: alltoallv%s: rank %d (PE %d) sends rank %d (PE %d) another count than rank %d expects",
		ErrCollectiveMismatch, where, i, members[i], j, members[j], j)
}

// launchAllToAllV enqueues an AllToAllV on st: one block where fewer
// than gridBytes land on this member, else an opening kernel, the data
// on gridBlocks blocks and a closing kernel (launchParts; p: g's PE; seq
// as Team.launchColl's).
func launchAllToAllV(st *device.Stream, g GPU, p *PE, team device.Ptr, dst, src, eb int64, v *vLayout, moved int64, seq uint64) error {
	at := func(off int64) uint64 { return uint64(g.Addr(p.id, off)) }
	launch, err := stepLauncher(st, g, abi.AllToAllVStep, team, seq, at(dst), at(src), at(v.arrays[0]), at(v.arrays[1]), at(v.arrays[2]), at(v.arrays[3]),
		uint64(eb), uint64(v.dstN), uint64(v.srcN))
	if err != nil {
		return err
	}
	return launchParts(p.w, moved, launch)
}
