package signals_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/signals"
)

// onPEs runs fn on n PEs of the host backend and fails t on error.
func onPEs(t *testing.T, n int, fn func(ctx context.Context, pe *pgas.PE) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := pgas.Run(ctx, pgas.Config{Backend: "host", PEs: n, HeapSize: 1 << 20}, fn); err != nil {
		t.Fatal(err)
	}
}

// words allocates len(vals) int64 words on every PE holding vals.
func words(ctx context.Context, pe *pgas.PE, vals []int64) (pgas.Sym[int64], error) {
	s, err := pgas.Alloc[int64](ctx, pe, len(vals))
	if err != nil {
		return s, err
	}
	return s, pgas.Put(pe, s, vals, pe.ID())
}

// The tests evaluate the spec's predicates over the words {5, -1, 7, 5}
// (signed: -1 < 5), with and without a status mask that excludes word 0.
func TestTests(t *testing.T) {
	vals := []int64{5, -1, 7, 5}
	mask := []int{1, 0, 0, 0}
	type result struct {
		all  bool
		any  int // the index TestAny reports, or a member of anyOf
		some []int
	}
	cases := []struct {
		cmp    pgas.Cmp
		v      int64
		status []int
		want   result
		anyOf  []int // TestAny may report any satisfied index
	}{
		{pgas.CmpEQ, 5, nil, result{false, 0, []int{0, 3}}, []int{0, 3}},
		{pgas.CmpEQ, 5, mask, result{false, 3, []int{3}}, []int{3}},
		{pgas.CmpNE, 5, nil, result{false, 1, []int{1, 2}}, []int{1, 2}},
		{pgas.CmpGT, 0, nil, result{false, 0, []int{0, 2, 3}}, []int{0, 2, 3}},
		{pgas.CmpGE, -1, nil, result{true, 0, []int{0, 1, 2, 3}}, []int{0, 1, 2, 3}},
		{pgas.CmpLT, 0, nil, result{false, 1, []int{1}}, []int{1}},
		{pgas.CmpLE, 5, mask, result{false, 1, []int{1, 3}}, []int{1, 3}},
		{pgas.CmpGT, 7, nil, result{false, pgas.NoIndex, nil}, []int{pgas.NoIndex}},
	}
	onPEs(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		s, err := words(ctx, pe, vals)
		if err != nil {
			return err
		}
		for _, c := range cases {
			name := fmt.Sprintf("%v %d mask=%v", c.cmp, c.v, c.status)
			all, err := signals.TestAll(pe, s, c.status, c.cmp, c.v)
			if err != nil || all != c.want.all {
				t.Errorf("%s: TestAll = %v, %v; want %v", name, all, err, c.want.all)
			}
			any, err := signals.TestAny(pe, s, c.status, c.cmp, c.v)
			if err != nil || !slices.Contains(c.anyOf, any) {
				t.Errorf("%s: TestAny = %d, %v; want one of %v", name, any, err, c.anyOf)
			}
			idx := make([]int, s.Len())
			n, err := signals.TestSome(pe, s, idx, c.status, c.cmp, c.v)
			got := slices.Clone(idx[:n])
			slices.Sort(got)
			if err != nil || !slices.Equal(got, c.want.some) {
				t.Errorf("%s: TestSome = %v, %v; want %v", name, got, err, c.want.some)
			}
			// The vector forms with every comparand equal agree.
			vs := []int64{c.v, c.v, c.v, c.v}
			if allV, err := signals.TestAllVector(pe, s, c.status, c.cmp, vs); err != nil || allV != all {
				t.Errorf("%s: TestAllVector = %v, %v; TestAll %v", name, allV, err, all)
			}
			if anyV, err := signals.TestAnyVector(pe, s, c.status, c.cmp, vs); err != nil || !slices.Contains(c.anyOf, anyV) {
				t.Errorf("%s: TestAnyVector = %d, %v", name, anyV, err)
			}
			if nV, err := signals.TestSomeVector(pe, s, idx, c.status, c.cmp, vs); err != nil || nV != n {
				t.Errorf("%s: TestSomeVector = %d, %v; TestSome %d", name, nV, err, n)
			}
			one, err := signals.Test(pe, s.Index(0), c.cmp, c.v)
			// Word 0 (5) unmasked: in the some-set of the unmasked case.
			const w = int64(5)
			want := map[pgas.Cmp]bool{pgas.CmpEQ: w == c.v, pgas.CmpNE: w != c.v, pgas.CmpGT: w > c.v,
				pgas.CmpGE: w >= c.v, pgas.CmpLT: w < c.v, pgas.CmpLE: w <= c.v}[c.cmp]
			if err != nil || one != want {
				t.Errorf("%s: Test(word 0) = %v, %v; want %v", name, one, err, want)
			}
		}
		// Per-word comparands: word i compared with vs[i].
		vs := []int64{5, 0, 7, 6}
		if all, err := signals.TestAllVector(pe, s, mask, pgas.CmpLE, []int64{0, 0, 7, 5}); err != nil || !all {
			t.Errorf("TestAllVector LE {_, 0, 7, 5}: %v, %v", all, err)
		}
		idx := make([]int, 4)
		if n, err := signals.TestSomeVector(pe, s, idx, nil, pgas.CmpEQ, vs); err != nil || !slices.Equal(idx[:n], []int{0, 2}) {
			t.Errorf("TestSomeVector EQ %v: %v, %v", vs, idx[:n], err)
		}
		return nil
	})
}

// Empty wait sets return at once with the spec's results.
func TestEmptyWaitSets(t *testing.T) {
	onPEs(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		s, err := words(ctx, pe, []int64{0, 0})
		if err != nil {
			return err
		}
		masked := []int{1, 1}
		idx := make([]int, 2)
		if err := signals.WaitUntilAll(ctx, pe, s, masked, pgas.CmpEQ, 1); err != nil {
			t.Errorf("WaitUntilAll over an empty set: %v", err)
		}
		if i, err := signals.WaitUntilAny(ctx, pe, s, masked, pgas.CmpEQ, 1); err != nil || i != pgas.NoIndex {
			t.Errorf("WaitUntilAny over an empty set: %d, %v", i, err)
		}
		if n, err := signals.WaitUntilSome(ctx, pe, s, idx, masked, pgas.CmpEQ, 1); err != nil || n != 0 {
			t.Errorf("WaitUntilSome over an empty set: %d, %v", n, err)
		}
		if all, err := signals.TestAll(pe, s, masked, pgas.CmpEQ, 1); err != nil || !all {
			t.Errorf("TestAll over an empty set: %v, %v", all, err)
		}
		return nil
	})
}

// Each wait returns once another PE's update satisfies it, and reports the
// words that satisfy it.
func TestWaitsSeeUpdates(t *testing.T) {
	waits := []struct {
		name string
		wait func(ctx context.Context, pe *pgas.PE, s pgas.Sym[int64]) error
	}{
		{"WaitUntil", func(ctx context.Context, pe *pgas.PE, s pgas.Sym[int64]) error {
			return signals.WaitUntil(ctx, pe, s.Index(2), pgas.CmpEQ, 9)
		}},
		{"WaitUntilAll", func(ctx context.Context, pe *pgas.PE, s pgas.Sym[int64]) error {
			return signals.WaitUntilAll(ctx, pe, s, []int{1, 1, 0}, pgas.CmpGE, 9)
		}},
		{"WaitUntilAllVector", func(ctx context.Context, pe *pgas.PE, s pgas.Sym[int64]) error {
			return signals.WaitUntilAllVector(ctx, pe, s, nil, pgas.CmpEQ, []int64{0, 0, 9})
		}},
		{"WaitUntilAny", func(ctx context.Context, pe *pgas.PE, s pgas.Sym[int64]) error {
			if i, err := signals.WaitUntilAny(ctx, pe, s, nil, pgas.CmpNE, 0); err != nil || i != 2 {
				return fmt.Errorf("index %d, %v; want 2", i, err)
			}
			return nil
		}},
		{"WaitUntilAnyVector", func(ctx context.Context, pe *pgas.PE, s pgas.Sym[int64]) error {
			if i, err := signals.WaitUntilAnyVector(ctx, pe, s, nil, pgas.CmpGT, []int64{0, 0, 8}); err != nil || i != 2 {
				return fmt.Errorf("index %d, %v; want 2", i, err)
			}
			return nil
		}},
		{"WaitUntilSome", func(ctx context.Context, pe *pgas.PE, s pgas.Sym[int64]) error {
			idx := make([]int, 3)
			if n, err := signals.WaitUntilSome(ctx, pe, s, idx, nil, pgas.CmpEQ, 9); err != nil || n != 1 || idx[0] != 2 {
				return fmt.Errorf("%v, %v; want [2]", idx[:n], err)
			}
			return nil
		}},
		{"WaitUntilSomeVector", func(ctx context.Context, pe *pgas.PE, s pgas.Sym[int64]) error {
			idx := make([]int, 3)
			if n, err := signals.WaitUntilSomeVector(ctx, pe, s, idx, nil, pgas.CmpEQ, []int64{1, 1, 9}); err != nil || n != 1 || idx[0] != 2 {
				return fmt.Errorf("%v, %v; want [2]", idx[:n], err)
			}
			return nil
		}},
	}
	for _, w := range waits {
		t.Run(w.name, func(t *testing.T) {
			onPEs(t, 2, func(ctx context.Context, pe *pgas.PE) error {
				s, err := words(ctx, pe, []int64{0, 0, 0})
				if err != nil {
					return err
				}
				if err := pe.Barrier(ctx); err != nil {
					return err
				}
				if pe.ID() == 1 {
					time.Sleep(5 * time.Millisecond) // let PE 0 block first
					return pgas.AtomicSet(pe, s.Index(2), 9, 0)
				}
				return w.wait(ctx, pe, s)
			})
		})
	}
}

// A wait ends with its context, and bad arguments are errors, not hangs.
func TestWaitErrors(t *testing.T) {
	onPEs(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		s, err := words(ctx, pe, []int64{0, 0})
		if err != nil {
			return err
		}
		short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		defer cancel()
		if err := signals.WaitUntil(short, pe, s.Index(0), pgas.CmpEQ, 1); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("WaitUntil past its deadline: %v", err)
		}
		bad := []struct {
			name string
			err  error
		}{
			{"status too short", signals.WaitUntilAll(ctx, pe, s, []int{0}, pgas.CmpEQ, 0)},
			{"comparands too few", signals.WaitUntilAllVector(ctx, pe, s, nil, pgas.CmpEQ, []int64{0})},
			{"comparison 0", signals.WaitUntil(ctx, pe, s.Index(0), 0, 0)},
			{"indices too short", func() error {
				_, err := signals.TestSome(pe, s, make([]int, 1), nil, pgas.CmpEQ, 0)
				return err
			}()},
		}
		for _, b := range bad {
			if !errors.Is(b.err, pgas.ErrBadArg) {
				t.Errorf("%s: %v, want ErrBadArg", b.name, b.err)
			}
		}
		if err := signals.WaitUntil(ctx, pe, pgas.Sym[int64]{}, pgas.CmpEQ, 0); err == nil {
			t.Error("WaitUntil on a zero Sym: no error")
		}
		return nil
	})
}
