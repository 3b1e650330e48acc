package pgas

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The allocator never hands out overlapping blocks, honours alignment and
// returns to one free block when everything is freed.
func TestAllocatorRandom(t *testing.T) {
	var a allocator
	const base, size = 4096, 1 << 20
	a.init(base, size)
	type blk struct{ off, n int64 }
	var live []blk
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		if len(live) > 0 && rng.IntN(2) == 0 {
			i := rng.IntN(len(live))
			a.free(live[i].off, live[i].n)
			live = append(live[:i], live[i+1:]...)
			continue
		}
		n := int64(1 + rng.IntN(8000))
		align := int64(8) << rng.IntN(8)
		off, err := a.alloc(n, align)
		if errors.Is(err, ErrHeapExhausted) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if off%align != 0 || off < base || off+n > size {
			t.Fatalf("block [%d,+%d) align %d outside the heap or misaligned", off, n, align)
		}
		for _, b := range live {
			if off < b.off+b.n && b.off < off+n {
				t.Fatalf("block [%d,+%d) overlaps [%d,+%d)", off, n, b.off, b.n)
			}
		}
		live = append(live, blk{off, n})
	}
	for _, b := range live {
		a.free(b.off, b.n)
	}
	if len(a.spans) != 1 || a.spans[0] != (span{base, size - base}) {
		t.Fatalf("after freeing everything: %v", a.spans)
	}
}

// HeapFree counts what allocations take and frees give back.
func TestHeapFree(t *testing.T) {
	err := Run(context.Background(), Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		total0, largest0 := pe.HeapFree()
		if total0 <= 0 || largest0 > total0 {
			return fmt.Errorf("free before: %d, largest %d", total0, largest0)
		}
		s, err := Alloc[byte](ctx, pe, 4096)
		if err != nil {
			return err
		}
		if total, _ := pe.HeapFree(); total != total0-4096 {
			return fmt.Errorf("free after 4096 bytes: %d, want %d", total, total0-4096)
		}
		if err := Free(ctx, pe, s); err != nil {
			return err
		}
		if total, largest := pe.HeapFree(); total != total0 || largest != largest0 {
			return fmt.Errorf("free after the free: %d (largest %d), want %d (%d)", total, largest, total0, largest0)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total, largest := (*PE)(nil).HeapFree(); total != 0 || largest != 0 {
		t.Errorf("nil PE: %d, %d", total, largest)
	}
}

// AllocAll allocates arrays of several types in one call, zeroed; where
// one does not fit, the earlier ones are freed (the heap holds them all
// again afterwards) and zeroed, on every PE alike.
func TestAllocAll(t *testing.T) {
	err := Run(context.Background(), Config{Backend: "host", PEs: 3, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		var a Sym[float32]
		var b Sym[uint64]
		var c Sym[byte]
		if err := AllocAll(ctx, pe, ArrayOf(&a, 100), ArrayOf(&b, 7), ArrayOf(&c, 3)); err != nil {
			return err
		}
		if a.Len() != 100 || b.Len() != 7 || c.Len() != 3 {
			return fmt.Errorf("AllocAll gave arrays of %d, %d and %d elements, want 100, 7 and 3", a.Len(), b.Len(), c.Len())
		}
		if got, err := G(pe, b.Index(6), (pe.ID()+1)%3); err != nil || got != 0 {
			return fmt.Errorf("a peer's copy of an AllocAll array: %d, %v; want 0", got, err)
		}
		var big Sym[byte]
		var small Sym[uint64]
		err := AllocAll(ctx, pe, ArrayOf(&small, 1000), ArrayOf(&big, 2<<20))
		if !errors.Is(err, ErrHeapExhausted) || !strings.Contains(err.Error(), "array 1") {
			return fmt.Errorf("AllocAll past the heap: %v, want ErrHeapExhausted naming array 1", err)
		}
		if small.Len() != 0 {
			return errors.New("AllocAll left the array before the failing one allocated")
		}
		if err := AllocAll(ctx, pe, ArrayOf(&small, 1000), ArrayOf[byte](nil, 1)); !errors.Is(err, ErrBadArg) || small.Len() != 0 {
			return fmt.Errorf("AllocAll with a nil destination: %v (the first array %d long), want ErrBadArg and nothing allocated", err, small.Len())
		}
		for _, s := range []func() error{func() error { return Free(ctx, pe, a) }, func() error { return Free(ctx, pe, b) }, func() error { return Free(ctx, pe, c) }} {
			if err := s(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
