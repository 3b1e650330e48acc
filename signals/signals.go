// Package signals is the point-to-point synchronisation API of OpenSHMEM
// 1.5 and NVSHMEM over symchan's symmetric words: wait until one, all, any
// or some words of an array satisfy a comparison, the _vector forms with a
// comparand per word, the non-blocking tests, and status masks that exclude
// words from the wait set.
//
// The words live in the calling PE's partition (a pgas.Sym of int32,
// uint32, int64 or uint64) and are updated by other PEs with atomics or
// signal operations. Every wait takes a context: cancellation, a deadline,
// or the failure of another PE ends it with an error.
//
//	sig, _ := pgas.AllocZeroed[uint64](ctx, pe, 4)
//	// ... other PEs pgas.SignalOp(pe, sig.Index(i), 1, pgas.SignalSet, me) ...
//	idx := make([]int, sig.Len())
//	n, err := signals.WaitUntilSome(ctx, pe, sig, idx, nil, pgas.CmpEQ, 1)
//	for _, i := range idx[:n] { /* word i is set */ }
//
// Empty wait sets (no words, or every word excluded by the status mask)
// return at once with the spec's results: WaitUntilAny and TestAny report
// pgas.NoIndex, WaitUntilSome and TestSome 0, WaitUntilAll returns and TestAll
// reports true. Over a series of WaitUntilAny (or TestAny) calls, every word
// that stays satisfied is reported eventually.
package signals

import (
	"context"
	"fmt"

	"github.com/symchan/symchan/pgas"
)

func set[T pgas.Word](ivars pgas.Sym[T], status []int, cmp pgas.Cmp, v T, vs []T, idx []int) pgas.WaitSet[T] {
	return pgas.WaitSet[T]{Ivars: ivars, Status: status, Cmp: cmp, Value: v, Values: vs, Indices: idx}
}

// WaitUntil blocks until ivar's first word satisfies cmp v.
func WaitUntil[T pgas.Word](ctx context.Context, pe *pgas.PE, ivar pgas.Sym[T], cmp pgas.Cmp, v T) error {
	ivar, err := first(ivar)
	if err != nil {
		return err
	}
	_, err = pgas.Wait(ctx, pe, pgas.WaitAll, set(ivar, nil, cmp, v, nil, nil))
	return err
}

// WaitUntilAll blocks until every word of ivars not excluded by status
// satisfies cmp v. status may be nil; otherwise it has one entry per word
// and a nonzero entry excludes the word.
func WaitUntilAll[T pgas.Word](ctx context.Context, pe *pgas.PE, ivars pgas.Sym[T], status []int, cmp pgas.Cmp, v T) error {
	_, err := pgas.Wait(ctx, pe, pgas.WaitAll, set(ivars, status, cmp, v, nil, nil))
	return err
}

// WaitUntilAny blocks until some word of the wait set satisfies cmp v and
// returns its index (pgas.NoIndex for an empty wait set).
func WaitUntilAny[T pgas.Word](ctx context.Context, pe *pgas.PE, ivars pgas.Sym[T], status []int, cmp pgas.Cmp, v T) (int, error) {
	r, err := pgas.Wait(ctx, pe, pgas.WaitAny, set(ivars, status, cmp, v, nil, nil))
	return r.N, err
}

// WaitUntilSome blocks until at least one word of the wait set satisfies
// cmp v, writes the indices of all the words that did into indices (which
// needs room for ivars.Len()) and returns how many (0 for an empty set).
func WaitUntilSome[T pgas.Word](ctx context.Context, pe *pgas.PE, ivars pgas.Sym[T], indices []int, status []int, cmp pgas.Cmp, v T) (int, error) {
	r, err := pgas.Wait(ctx, pe, pgas.WaitSome, set(ivars, status, cmp, v, nil, indices))
	return r.N, err
}

// WaitUntilAllVector is WaitUntilAll comparing word i with vs[i].
func WaitUntilAllVector[T pgas.Word](ctx context.Context, pe *pgas.PE, ivars pgas.Sym[T], status []int, cmp pgas.Cmp, vs []T) error {
	_, err := pgas.Wait(ctx, pe, pgas.WaitAll, set(ivars, status, cmp, 0, nonNil(vs), nil))
	return err
}

// WaitUntilAnyVector is WaitUntilAny comparing word i with vs[i].
func WaitUntilAnyVector[T pgas.Word](ctx context.Context, pe *pgas.PE, ivars pgas.Sym[T], status []int, cmp pgas.Cmp, vs []T) (int, error) {
	r, err := pgas.Wait(ctx, pe, pgas.WaitAny, set(ivars, status, cmp, 0, nonNil(vs), nil))
	return r.N, err
}

// WaitUntilSomeVector is WaitUntilSome comparing word i with vs[i].
func WaitUntilSomeVector[T pgas.Word](ctx context.Context, pe *pgas.PE, ivars pgas.Sym[T], indices []int, status []int, cmp pgas.Cmp, vs []T) (int, error) {
	r, err := pgas.Wait(ctx, pe, pgas.WaitSome, set(ivars, status, cmp, 0, nonNil(vs), indices))
	return r.N, err
}

// Test reports whether ivar's first word satisfies cmp v, without blocking.
func Test[T pgas.Word](pe *pgas.PE, ivar pgas.Sym[T], cmp pgas.Cmp, v T) (bool, error) {
	ivar, err := first(ivar)
	if err != nil {
		return false, err
	}
	r, err := pgas.Test(pe, pgas.WaitAll, set(ivar, nil, cmp, v, nil, nil))
	return r.N == 1, err
}

// TestAll reports whether every word of the wait set satisfies cmp v.
func TestAll[T pgas.Word](pe *pgas.PE, ivars pgas.Sym[T], status []int, cmp pgas.Cmp, v T) (bool, error) {
	r, err := pgas.Test(pe, pgas.WaitAll, set(ivars, status, cmp, v, nil, nil))
	return r.N == 1, err
}

// TestAny returns the index of a word of the wait set that satisfies cmp
// v, or pgas.NoIndex if none does.
func TestAny[T pgas.Word](pe *pgas.PE, ivars pgas.Sym[T], status []int, cmp pgas.Cmp, v T) (int, error) {
	r, err := pgas.Test(pe, pgas.WaitAny, set(ivars, status, cmp, v, nil, nil))
	return r.N, err
}

// TestSome writes the indices of the words of the wait set that satisfy
// cmp v into indices and returns how many (possibly 0).
func TestSome[T pgas.Word](pe *pgas.PE, ivars pgas.Sym[T], indices []int, status []int, cmp pgas.Cmp, v T) (int, error) {
	r, err := pgas.Test(pe, pgas.WaitSome, set(ivars, status, cmp, v, nil, indices))
	return r.N, err
}

// TestAllVector is TestAll comparing word i with vs[i].
func TestAllVector[T pgas.Word](pe *pgas.PE, ivars pgas.Sym[T], status []int, cmp pgas.Cmp, vs []T) (bool, error) {
	r, err := pgas.Test(pe, pgas.WaitAll, set(ivars, status, cmp, 0, nonNil(vs), nil))
	return r.N == 1, err
}

// TestAnyVector is TestAny comparing word i with vs[i].
func TestAnyVector[T pgas.Word](pe *pgas.PE, ivars pgas.Sym[T], status []int, cmp pgas.Cmp, vs []T) (int, error) {
	r, err := pgas.Test(pe, pgas.WaitAny, set(ivars, status, cmp, 0, nonNil(vs), nil))
	return r.N, err
}

// TestSomeVector is TestSome comparing word i with vs[i].
func TestSomeVector[T pgas.Word](pe *pgas.PE, ivars pgas.Sym[T], indices []int, status []int, cmp pgas.Cmp, vs []T) (int, error) {
	r, err := pgas.Test(pe, pgas.WaitSome, set(ivars, status, cmp, 0, nonNil(vs), indices))
	return r.N, err
}

// first narrows a scalar wait to the Sym's first word; an empty (but
// valid) Sym is an error rather than an empty, at-once-satisfied set.
func first[T pgas.Word](s pgas.Sym[T]) (pgas.Sym[T], error) {
	if s.Len() > 0 {
		return s.Index(0), nil
	}
	if s.Valid() {
		return s, fmt.Errorf("%w: wait on an empty Sym", pgas.ErrBadSize)
	}
	return s, nil // pgas reports the invalid Sym
}

// nonNil makes a nil comparand slice a zero-length one, so that the
// vector forms check its length instead of falling back to a scalar.
func nonNil[T any](vs []T) []T {
	if vs == nil {
		return []T{}
	}
	return vs
}
