package pgas

import (
	"context"
	"fmt"
)

// Collect concatenates the first n elements of src of every member, in
// rank order, into dst on every member (shmem_collect): unlike FCollect,
// n may differ from member to member. It returns the number of elements
// written, the sum of the members' n; dst must hold that many, and must not
// overlap src.
func Collect[T any](ctx context.Context, t *Team, dst, src Sym[T], n int) (int, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	bad := firstErr(t.checkSyms(dst.rec, src.rec), needLen("collect src", src.n, n))
	if bad == nil && overlaps(dst, src) {
		bad = fmt.Errorf("%w: collect dst and src overlap", ErrBadArg)
	}
	p := t.pe
	// Each member publishes its count; the synchronisation below orders
	// it before the others read it.
	if bad == nil {
		if err := t.publish(syncCollect, uint64(n)); err != nil {
			return 0, err
		}
	}
	// Members contribute counts of their own.
	if err := openElems[T](ctx, t, syncCollect, bad); err != nil {
		return 0, err
	}
	counts := make([]int, len(t.members))
	total := 0
	for r, m := range t.members {
		var c [1]uint64
		if err := t.scratchOf(syncCollect, m, c[:]); err != nil {
			return 0, err
		}
		counts[r] = int(c[0])
		total += counts[r]
	}
	// dst may be shorter on some members than on others: the second
	// synchronisation carries the verdict to all.
	short := needLen("collect dst", dst.n, total)
	if short == nil {
		var buf []T
		at := 0
		for r, m := range t.members {
			if c := counts[r]; c > 0 {
				if cap(buf) < c {
					buf = make([]T, c)
				}
				if err := pull(p, dst.Slice(at, at+c), src.Slice(0, c), buf[:c], m); err != nil {
					return 0, t.abortNext(syncCollect, err)
				}
				at += c
			}
		}
	}
	if err := t.barrier(ctx, syncCollect, short); err != nil {
		return 0, err
	}
	return total, nil
}

// openElems opens a collective of kind whose data steps run from the host
// and whose members agree on its element type T alone (their counts are
// their own): on a GPU world first on the device, where the other
// blocking collectives meet (collective_device.go), then in the host's
// barrier carrying the arguments. bad is this member's argument error.
func openElems[T any](ctx context.Context, t *Team, kind syncKind, bad error) error {
	args := collArgs{count: -1, root: -1, op: -1, elem: elemCode[T](), tst: -1, sst: -1}
	if t.onGPU() {
		if err := t.deviceCollective(ctx, agreeColl(kind, hostKind(kind), args), bad); err != nil {
			return err
		}
	}
	return t.barrierArgs(ctx, kind, bad, args)
}

// overlaps reports whether a and b share bytes of one allocation.
func overlaps[T any](a, b Sym[T]) bool {
	return a.rec == b.rec && a.off < b.off+b.Bytes() && b.off < a.off+a.Bytes()
}
