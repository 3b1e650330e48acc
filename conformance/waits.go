package conformance

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

// Comparisons follow the word's type: signed words compare as signed.
func (ck *kit) testCompareOperators(t *testing.T) {
	type c struct {
		cmp         pgas.Cmp
		word, value int64
		want        bool
	}
	cases := []c{
		{pgas.CmpEQ, 3, 3, true}, {pgas.CmpEQ, 3, 4, false},
		{pgas.CmpNE, 3, 4, true}, {pgas.CmpNE, 3, 3, false},
		{pgas.CmpGT, 4, 3, true}, {pgas.CmpGT, 3, 3, false},
		{pgas.CmpGE, 3, 3, true}, {pgas.CmpGE, 2, 3, false},
		{pgas.CmpLT, 2, 3, true}, {pgas.CmpLT, 3, 3, false},
		{pgas.CmpLE, 3, 3, true}, {pgas.CmpLE, 4, 3, false},
		{pgas.CmpLT, -1, 0, true}, {pgas.CmpGT, -5, -6, true},
	}
	ck.run(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		i32 := must(pgas.AllocZeroed[int32](ctx, pe, 1))
		i64 := must(pgas.AllocZeroed[int64](ctx, pe, 1))
		u32 := must(pgas.AllocZeroed[uint32](ctx, pe, 1))
		for _, c := range cases {
			check(pgas.AtomicSet(pe, i32, int32(c.word), 0))
			check(pgas.AtomicSet(pe, i64, c.word, 0))
			if got := must(signals.Test(pe, i32, c.cmp, int32(c.value))); got != c.want {
				t.Errorf("int32 %d %v %d = %v", c.word, c.cmp, c.value, got)
			}
			if got := must(signals.Test(pe, i64, c.cmp, c.value)); got != c.want {
				t.Errorf("int64 %d %v %d = %v", c.word, c.cmp, c.value, got)
			}
		}
		// Unsigned: all ones is the largest value, not -1.
		check(pgas.AtomicSet(pe, u32, ^uint32(0), 0))
		if !must(signals.Test(pe, u32, pgas.CmpGT, 0)) {
			t.Errorf("uint32 max > 0 is false")
		}
		if _, err := signals.Test(pe, u32, pgas.Cmp(0), 0); !errors.Is(err, pgas.ErrBadArg) {
			t.Errorf("bad comparison: %v", err)
		}
		return nil
	})
}

// setter runs on PE 1 and sets the words of PE 0 listed, one per step,
// while PE 0 waits.
func (ck *kit) testWaitUntilAllAnySome(t *testing.T) {
	const words = 16
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, words))
		go1 := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		if pe.ID() == 1 {
			// Phase 1: set words one by one, each after PE 0 asks.
			for i := range words {
				if _, err := pgas.SignalWaitUntil(ctx, pe, go1, pgas.CmpGE, uint64(i+1)); err != nil {
					return err
				}
				check(pgas.SignalOp(pe, w.Index(i), 1, pgas.SignalSet, 0))
			}
			return nil
		}
		idx := make([]int, words)
		for i := range words {
			check(pgas.SignalOp(pe, go1, uint64(i+1), pgas.SignalSet, 1))
			// The status mask leaves only word i in (the older ones are
			// set, the later ones never will be before it): each form
			// blocks until PE 1 sets it, and reports only it.
			status := make([]int, words)
			for j := range status {
				status[j] = 1
			}
			status[i] = 0
			switch i % 3 {
			case 0:
				got, err := signals.WaitUntilAny(ctx, pe, w, status, pgas.CmpEQ, 1)
				if err != nil || got != i {
					return fmt.Errorf("step %d: WaitUntilAny = %d, %v", i, got, err)
				}
			case 1:
				n, err := signals.WaitUntilSome(ctx, pe, w, idx, status, pgas.CmpEQ, 1)
				if err != nil || n != 1 || idx[0] != i {
					return fmt.Errorf("step %d: WaitUntilSome = %v, %v", i, idx[:n], err)
				}
			default:
				if err := signals.WaitUntilAll(ctx, pe, w, status, pgas.CmpEQ, 1); err != nil {
					return fmt.Errorf("step %d: WaitUntilAll: %v", i, err)
				}
				if v := must(pgas.SignalFetch(pe, w.Index(i))); v != 1 {
					return fmt.Errorf("step %d: WaitUntilAll returned with word %d at %d", i, i, v)
				}
			}
			n, err := signals.WaitUntilSome(ctx, pe, w, idx, nil, pgas.CmpEQ, 1)
			if err != nil || n != i+1 {
				return fmt.Errorf("step %d: WaitUntilSome = %d, %v", i, n, err)
			}
			slices.Sort(idx[:n])
			for j := range n {
				if idx[j] != j {
					return fmt.Errorf("step %d: indices %v", i, idx[:n])
				}
			}
		}
		return signals.WaitUntilAll(ctx, pe, w, nil, pgas.CmpEQ, 1)
	})
}

// A series of WaitUntilAny calls reports every satisfied word (no
// starvation), and status masks keep excluded words out.
func (ck *kit) testWaitUntilAnyFairness(t *testing.T) {
	const words = 32
	ck.run(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[int32](ctx, pe, words))
		status := make([]int, words)
		for i := range words {
			if i%3 == 0 {
				check(pgas.AtomicSet(pe, w.Index(i), 7, 0))
			}
			if i%6 == 0 {
				status[i] = 1 // excluded although satisfied
			}
		}
		seen := map[int]int{}
		for range 4 * words {
			i := must(signals.WaitUntilAny(ctx, pe, w, status, pgas.CmpEQ, 7))
			seen[i]++
			j := must(signals.TestAny(pe, w, status, pgas.CmpEQ, 7))
			seen[j]++
		}
		for i := range words {
			want := i%3 == 0 && i%6 != 0
			if (seen[i] > 0) != want {
				return fmt.Errorf("word %d reported %d times (satisfied and included: %v)", i, seen[i], want)
			}
		}
		return nil
	})
}

// The spec's results for empty wait sets, at once, without blocking.
func (ck *kit) testEmptyWaitSets(t *testing.T) {
	ck.run(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, 4))
		all := []int{1, 1, 1, 1}
		idx := make([]int, 4)
		ctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		for name, ivars := range map[string]pgas.Sym[uint64]{"no words": w.Slice(0, 0), "all excluded": w} {
			var status []int
			if ivars.Len() > 0 {
				status = all
			}
			if err := signals.WaitUntilAll(ctx, pe, ivars, status, pgas.CmpEQ, 1); err != nil {
				return fmt.Errorf("%s: WaitUntilAll: %v", name, err)
			}
			if i, err := signals.WaitUntilAny(ctx, pe, ivars, status, pgas.CmpEQ, 1); i != pgas.NoIndex || err != nil {
				return fmt.Errorf("%s: WaitUntilAny = %d, %v; want NoIndex", name, i, err)
			}
			if n, err := signals.WaitUntilSome(ctx, pe, ivars, idx, status, pgas.CmpEQ, 1); n != 0 || err != nil {
				return fmt.Errorf("%s: WaitUntilSome = %d, %v; want 0", name, n, err)
			}
			if i, err := signals.WaitUntilAnyVector(ctx, pe, ivars, status, pgas.CmpEQ, make([]uint64, ivars.Len())); i != pgas.NoIndex || err != nil {
				return fmt.Errorf("%s: WaitUntilAnyVector = %d, %v", name, i, err)
			}
			if i := must(signals.TestAny(pe, ivars, status, pgas.CmpEQ, 1)); i != pgas.NoIndex {
				return fmt.Errorf("%s: TestAny = %d", name, i)
			}
			if n := must(signals.TestSome(pe, ivars, idx, status, pgas.CmpEQ, 1)); n != 0 {
				return fmt.Errorf("%s: TestSome = %d", name, n)
			}
			if ok := must(signals.TestAll(pe, ivars, status, pgas.CmpEQ, 1)); !ok {
				return fmt.Errorf("%s: TestAll = false", name)
			}
		}
		// A single wait on an empty Sym is an error, not an empty set.
		if err := signals.WaitUntil(ctx, pe, w.Slice(0, 0), pgas.CmpEQ, 0); !errors.Is(err, pgas.ErrBadSize) {
			return fmt.Errorf("WaitUntil on an empty Sym: %v", err)
		}
		return nil
	})
}

// Vector forms compare word i with value i.
func (ck *kit) testVectorWaits(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[int64](ctx, pe, 4))
		want := []int64{10, -20, 30, 40}
		idx := make([]int, 4)
		if pe.ID() == 1 {
			for i, v := range want {
				check(pgas.AtomicSet(pe, w.Index(i), v, 0))
			}
			return nil
		}
		check(signals.WaitUntilAllVector(ctx, pe, w, nil, pgas.CmpEQ, want))
		if i := must(signals.WaitUntilAnyVector(ctx, pe, w, []int{1, 1, 0, 1}, pgas.CmpGE, []int64{0, 0, 30, 0})); i != 2 {
			return fmt.Errorf("WaitUntilAnyVector = %d, want 2", i)
		}
		n := must(signals.WaitUntilSomeVector(ctx, pe, w, idx, nil, pgas.CmpLT, []int64{11, -19, 30, 41}))
		slices.Sort(idx[:n])
		if !slices.Equal(idx[:n], []int{0, 1, 3}) {
			return fmt.Errorf("WaitUntilSomeVector indices %v", idx[:n])
		}
		if ok := must(signals.TestAllVector(pe, w, nil, pgas.CmpNE, []int64{0, 0, 0, 0})); !ok {
			return fmt.Errorf("TestAllVector NE 0 = false")
		}
		if ok := must(signals.TestAllVector(pe, w, []int{0, 0, 0, 1}, pgas.CmpLE, []int64{10, -20, 30, 0})); !ok {
			return fmt.Errorf("TestAllVector with a mask = false")
		}
		if i := must(signals.TestAnyVector(pe, w, nil, pgas.CmpGT, []int64{10, -20, 30, 40})); i != pgas.NoIndex {
			return fmt.Errorf("TestAnyVector = %d, want NoIndex", i)
		}
		if n := must(signals.TestSomeVector(pe, w, idx, nil, pgas.CmpEQ, []int64{10, 0, 30, 0})); n != 2 {
			return fmt.Errorf("TestSomeVector = %d, want 2", n)
		}
		return nil
	})
}

func (ck *kit) testWaitBadArguments(t *testing.T) {
	ck.run(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, 4))
		cases := map[string]error{
			"short status": signals.WaitUntilAll(ctx, pe, w, []int{0}, pgas.CmpEQ, 0),
			"short values": signals.WaitUntilAllVector(ctx, pe, w, nil, pgas.CmpEQ, []uint64{1}),
			"nil values":   signals.WaitUntilAllVector(ctx, pe, w, nil, pgas.CmpEQ, nil),
			"bad cmp":      signals.WaitUntilAll(ctx, pe, w, nil, pgas.Cmp(99), 0),
			"short indices": func() error {
				_, err := signals.WaitUntilSome(ctx, pe, w, make([]int, 3), nil, pgas.CmpEQ, 0)
				return err
			}(),
		}
		for name, err := range cases {
			if !errors.Is(err, pgas.ErrBadArg) {
				return fmt.Errorf("%s: %v, want ErrBadArg", name, err)
			}
		}
		return nil
	})
}

// Cancellation and deadlines end every kind of blocking call.
func (ck *kit) testWaitCancellation(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, 8))
		if pe.ID() == 1 {
			// Keep away from the barrier PE 0 will time out in.
			return pe.Barrier(ctx)
		}
		waits := map[string]func(context.Context) error{
			"WaitUntil":    func(c context.Context) error { return signals.WaitUntil(c, pe, w, pgas.CmpEQ, 1) },
			"WaitUntilAll": func(c context.Context) error { return signals.WaitUntilAll(c, pe, w, nil, pgas.CmpEQ, 1) },
			"WaitUntilAny": func(c context.Context) error {
				_, err := signals.WaitUntilAny(c, pe, w, nil, pgas.CmpNE, 0)
				return err
			},
			"WaitUntilSome": func(c context.Context) error {
				_, err := signals.WaitUntilSome(c, pe, w, make([]int, 8), nil, pgas.CmpGT, 5)
				return err
			},
			"SignalWaitUntil": func(c context.Context) error {
				_, err := pgas.SignalWaitUntil(c, pe, w, pgas.CmpEQ, 9)
				return err
			},
		}
		for name, wait := range waits {
			c, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
			start := time.Now()
			err := wait(c)
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("%s with a deadline: %v", name, err)
			}
			if d := time.Since(start); d > 2*time.Second {
				return fmt.Errorf("%s took %v to notice its deadline", name, d)
			}
			c, cancel = context.WithCancel(ctx)
			time.AfterFunc(10*time.Millisecond, cancel)
			if err := wait(c); !errors.Is(err, context.Canceled) {
				return fmt.Errorf("%s cancelled: %v", name, err)
			}
		}
		return pe.Barrier(ctx)
	})
}

// Fairness holds per wait set: a PE that alternates any-waits over two
// arrays, every word of both satisfied, sees every index of each.
func (ck *kit) testWaitAnyFairPerWaitSet(t *testing.T) {
	ck.run(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		big := must(pgas.AllocZeroed[uint64](ctx, pe, 64))
		small := must(pgas.AllocZeroed[uint64](ctx, pe, 2))
		ones := make([]uint64, 64)
		for i := range ones {
			ones[i] = 1
		}
		check(pgas.Put(pe, big, ones, 0))
		check(pgas.Put(pe, small, ones[:2], 0))
		seenBig, seenSmall := map[int]bool{}, map[int]bool{}
		for range 2 * 64 {
			i, err := signals.WaitUntilAny(ctx, pe, big, nil, pgas.CmpEQ, 1)
			check(err)
			seenBig[i] = true
			j, err := signals.WaitUntilAny(ctx, pe, small, nil, pgas.CmpEQ, 1)
			check(err)
			seenSmall[j] = true
		}
		if len(seenBig) != 64 || len(seenSmall) != 2 {
			return fmt.Errorf("alternating any-waits reported %d of 64 and %d of 2 indices", len(seenBig), len(seenSmall))
		}
		return nil
	})
}
