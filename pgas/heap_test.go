package pgas

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
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
