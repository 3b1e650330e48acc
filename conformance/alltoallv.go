package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// AllToAllV on every backend, blocking and on a stream: blocks of a size
// of their own for every pair of members (zero for some), laid out by
// symmetric count and offset arrays, land where each receiver said.
// Counts that differ between a sender and its receiver fail every member
// with ErrCollectiveMismatch naming the same pair (the stream's: at its
// Sync), move no data and leave the team usable; a block past one
// member's src fails that member with ErrBadSize and the others with
// ErrBadArg.
func (ck *kit) testAllToAllV(t *testing.T) {
	npes := ck.upToPEs(4)
	ck.run(t, npes, func(ctx context.Context, pe *pgas.PE) error {
		me, world := pe.ID(), pe.TeamWorld()
		count := func(i, j int) int { return (i*7 + j*3 + 1) % 5 }
		l := newA2AVLayout(ctx, pe, count)
		rc := l.rc
		sendCounts, sendOffs, recvCounts, recvOffs := l.syms[0], l.syms[1], l.syms[2], l.syms[3]
		const room = 5 * 64
		src := must(pgas.AllocZeroed[int64](ctx, pe, room))
		dst := must(pgas.AllocZeroed[int64](ctx, pe, room))
		val := func(q, k int) int64 { return int64(q)<<32 | int64(k) }
		check(pgas.Put(pe, src, seq(room, func(k int) int64 { return val(me, k) }), me))
		check(pe.Barrier(ctx))
		want := l.received(val, room)
		verify := func(form string, out []int64) error {
			for at := range out {
				if out[at] != want[at] {
					return fmt.Errorf("%s: dst[%d] is %#x, want %#x (every sender's block where this receiver said, zero elsewhere)", form, at, out[at], want[at])
				}
			}
			return nil
		}
		if err := pgas.AllToAllV(ctx, world, dst, src, sendCounts, sendOffs, recvCounts, recvOffs); err != nil {
			return fmt.Errorf("AllToAllV: %w", err)
		}
		check(verify("AllToAllV", read(pe, dst)))
		// On a stream: the device's collective on a GPU stream, the
		// blocking one on a host stream.
		onStream := must(pgas.AllocZeroed[int64](ctx, pe, room))
		st := must(pgas.NewStream(pe))
		check(pgas.AllToAllVOnStream(st, world, onStream, src, sendCounts, sendOffs, recvCounts, recvOffs))
		if err := st.Sync(ctx); err != nil {
			return fmt.Errorf("AllToAllVOnStream: %w", err)
		}
		check(verify("AllToAllVOnStream", read(pe, onStream)))

		// Rank 1 expects one element more from rank 0 than rank 0 sends.
		fresh := must(pgas.AllocZeroed[int64](ctx, pe, room))
		if me == 1 {
			check(pgas.Put(pe, recvCounts, []int64{rc[0] + 1}, me))
		}
		check(pe.Barrier(ctx))
		err := pgas.AllToAllV(ctx, world, fresh, src, sendCounts, sendOffs, recvCounts, recvOffs)
		if !errors.Is(err, pgas.ErrCollectiveMismatch) {
			return fmt.Errorf("AllToAllV with rank 1 expecting another count from rank 0: %v, want ErrCollectiveMismatch", err)
		}
		if want := "rank 0 (PE 0) sends rank 1 (PE 1)"; !contains(err, want) {
			return fmt.Errorf("AllToAllV's mismatch: %v, want it to name %q", err, want)
		}
		if slices.ContainsFunc(read(pe, fresh), func(v int64) bool { return v != 0 }) {
			return errors.New("AllToAllV moved data although the counts differed")
		}
		check(world.Barrier(ctx)) // the team stays usable
		check(pgas.AllToAllVOnStream(st, world, fresh, src, sendCounts, sendOffs, recvCounts, recvOffs))
		if err := st.Sync(ctx); !errors.Is(err, pgas.ErrCollectiveMismatch) || !contains(err, "rank 0 (PE 0) sends rank 1 (PE 1)") {
			return fmt.Errorf("AllToAllVOnStream with rank 1 expecting another count from rank 0: Sync: %v, want ErrCollectiveMismatch naming the pair", err)
		}
		if slices.ContainsFunc(read(pe, fresh), func(v int64) bool { return v != 0 }) {
			return errors.New("AllToAllVOnStream moved data although the counts differed")
		}
		_ = st.Close(ctx) // its error is the Sync's
		check(world.Barrier(ctx))
		if me == 1 {
			check(pgas.Put(pe, recvCounts, []int64{rc[0]}, me))
		}

		// The last rank's first block runs past its src.
		last := npes - 1
		if me == last {
			check(pgas.Put(pe, sendOffs, []int64{room}, me))
			check(pgas.Put(pe, sendCounts, []int64{1}, me))
		}
		check(pe.Barrier(ctx))
		err = pgas.AllToAllV(ctx, world, fresh, src, sendCounts, sendOffs, recvCounts, recvOffs)
		switch {
		case me == last && !errors.Is(err, pgas.ErrBadSize):
			return fmt.Errorf("AllToAllV with a send block past src: %v, want ErrBadSize", err)
		case me != last && !errors.Is(err, pgas.ErrBadArg):
			return fmt.Errorf("AllToAllV with rank %d's send block past its src: %v, want ErrBadArg", last, err)
		}
		return world.Barrier(ctx)
	})
}

// a2avLayout is this PE's side of an AllToAllV in which member i sends
// count(i, j) elements to member j, blocks packed in rank order on both
// sides: its receive counts and offsets, and the four layout arrays (send
// counts, send offsets, receive counts, receive offsets) as symmetric
// arrays.
type a2avLayout struct {
	me     int
	count  func(i, j int) int
	rc, ro []int64
	syms   [4]pgas.Sym[int64]
}

func newA2AVLayout(ctx context.Context, pe *pgas.PE, count func(i, j int) int) a2avLayout {
	me, npes := pe.ID(), pe.NumPEs()
	l := a2avLayout{me: me, count: count}
	var sc, so []int64
	var sent, got int64
	for j := range npes {
		sc, so = append(sc, int64(count(me, j))), append(so, sent)
		sent += int64(count(me, j))
		l.rc, l.ro = append(l.rc, int64(count(j, me))), append(l.ro, got)
		got += int64(count(j, me))
	}
	for i, v := range [4][]int64{sc, so, l.rc, l.ro} {
		l.syms[i] = must(pgas.AllocZeroed[int64](ctx, pe, npes))
		check(pgas.Put(pe, l.syms[i], v, me))
	}
	return l
}

// received is what this PE's dst of room elements holds after the
// AllToAllV, where element k of sender q's source is val(q, k): each
// sender's block for it at its receive offset, zero elsewhere.
func (l a2avLayout) received(val func(q, k int) int64, room int) []int64 {
	want := make([]int64, room)
	for i := range l.rc {
		var senderOff int // where sender i's block for this PE starts in its source
		for j := range l.me {
			senderOff += l.count(i, j)
		}
		for e := range l.count(i, l.me) {
			want[int(l.ro[i])+e] = val(i, senderOff+e)
		}
	}
	return want
}
