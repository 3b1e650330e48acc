package conformance

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/symchan/symchan/pgas"
)

func (ck *kit) testAllocIsSymmetric(t *testing.T) {
	const n = 4
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		offs := must(pgas.AllocZeroed[int64](ctx, pe, n))
		a := must(pgas.Alloc[float32](ctx, pe, 100))
		b := must(pgas.AllocAligned[byte](ctx, pe, 3, 4096))
		c := must(pgas.Alloc[[3]int16](ctx, pe, 7))
		for i, o := range []int64{a.Offset(), b.Offset(), c.Offset()} {
			check(pgas.P(pe, offs.Index(pe.ID()), o, 0))
			check(pe.Barrier(ctx))
			if pe.ID() == 0 {
				got := make([]int64, n)
				check(pgas.Get(pe, got, offs, 0))
				for q, g := range got {
					if g != got[0] {
						return fmt.Errorf("allocation %d: PE %d offset %d, PE 0 offset %d", i, q, g, got[0])
					}
				}
			}
			check(pe.Barrier(ctx))
		}
		if b.Offset()%4096 != 0 {
			return fmt.Errorf("AllocAligned(4096) at offset %d", b.Offset())
		}
		if a.Len() != 100 || a.Bytes() != 400 || c.Bytes() != 42 {
			return fmt.Errorf("lengths: %d %d %d", a.Len(), a.Bytes(), c.Bytes())
		}
		return nil
	})
}

func (ck *kit) testAllocZeroedAfterReuse(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		a := must(pgas.Alloc[uint64](ctx, pe, 512))
		junk := make([]uint64, 512)
		for i := range junk {
			junk[i] = ^uint64(i)
		}
		check(pgas.Put(pe, a, junk, pe.ID()))
		check(pgas.Free(ctx, pe, a))
		// Likely the same block again: AllocZeroed must zero it anyway.
		z := must(pgas.AllocZeroed[uint64](ctx, pe, 512))
		got := make([]uint64, 512)
		check(pgas.Get(pe, got, z, pe.ID()))
		for i, v := range got {
			if v != 0 {
				return fmt.Errorf("AllocZeroed word %d = %#x", i, v)
			}
		}
		return nil
	})
}

func (ck *kit) testAllocFreeCoalesces(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		// Fill the heap with blocks, free them in a scattered order, and
		// the whole heap must be one block again.
		const blk = 64 << 10
		var syms []pgas.Sym[byte]
		for {
			s, err := pgas.Alloc[byte](ctx, pe, blk)
			if errors.Is(err, pgas.ErrHeapExhausted) {
				break
			}
			if err != nil {
				return err
			}
			syms = append(syms, s)
		}
		if len(syms) < 10 {
			return fmt.Errorf("only %d blocks of %d bytes fit", len(syms), blk)
		}
		for i := 0; i < len(syms); i += 2 {
			check(pgas.Free(ctx, pe, syms[i]))
		}
		for i := 1; i < len(syms); i += 2 {
			check(pgas.Free(ctx, pe, syms[i]))
		}
		big, err := pgas.Alloc[byte](ctx, pe, len(syms)*blk)
		if err != nil {
			return fmt.Errorf("after freeing everything: %w", err)
		}
		return pgas.Free(ctx, pe, big)
	})
}

// Every PE must get the error when PEs disagree about a collective
// allocation, and the heap must stay usable.
func (ck *kit) testAllocMismatch(t *testing.T) {
	cases := []struct {
		name string
		do   func(ctx context.Context, pe *pgas.PE) error
	}{
		{"size", func(ctx context.Context, pe *pgas.PE) error {
			_, err := pgas.Alloc[int64](ctx, pe, 16+pe.ID()%2)
			return err
		}},
		{"type", func(ctx context.Context, pe *pgas.PE) error {
			if pe.ID() == 0 {
				_, err := pgas.Alloc[int32](ctx, pe, 8)
				return err
			}
			_, err := pgas.Alloc[int64](ctx, pe, 8)
			return err
		}},
		{"order", func(ctx context.Context, pe *pgas.PE) error {
			sizes := []int{8, 16}
			if pe.ID() == 1 {
				sizes = []int{16, 8}
			}
			for _, n := range sizes {
				if _, err := pgas.Alloc[byte](ctx, pe, n); err != nil {
					return err
				}
			}
			return nil
		}},
		{"alignment", func(ctx context.Context, pe *pgas.PE) error {
			_, err := pgas.AllocAligned[byte](ctx, pe, 8, 64<<pe.ID())
			return err
		}},
		{"alloc vs free", func(ctx context.Context, pe *pgas.PE) error {
			s := must(pgas.Alloc[byte](ctx, pe, 8))
			if pe.ID() == 0 {
				return pgas.Free(ctx, pe, s)
			}
			_, err := pgas.Alloc[byte](ctx, pe, 8)
			return err
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ck.run(t, 3, func(ctx context.Context, pe *pgas.PE) error {
				err := c.do(ctx, pe)
				if !errors.Is(err, pgas.ErrCollectiveMismatch) {
					return fmt.Errorf("got %v, want ErrCollectiveMismatch", err)
				}
				// Agreement is restored: the next matched call works.
				s, err := pgas.Alloc[int64](ctx, pe, 4)
				if err != nil {
					return fmt.Errorf("after a mismatch: %w", err)
				}
				return pgas.P(pe, s, 1, (pe.ID()+1)%pe.NumPEs())
			})
		})
	}
}

func (ck *kit) testAllocBadSizes(t *testing.T) {
	type withPtr struct{ P *int } // a pointer field: not plain data
	cases := []struct {
		name string
		do   func(ctx context.Context, pe *pgas.PE) error
		want error
	}{
		{"zero", func(ctx context.Context, pe *pgas.PE) error { _, err := pgas.Alloc[int64](ctx, pe, 0); return err }, pgas.ErrBadSize},
		{"negative", func(ctx context.Context, pe *pgas.PE) error { _, err := pgas.Alloc[int64](ctx, pe, -3); return err }, pgas.ErrBadSize},
		{"overflow", func(ctx context.Context, pe *pgas.PE) error {
			_, err := pgas.Alloc[[1024]byte](ctx, pe, math.MaxInt/512)
			return err
		}, pgas.ErrBadSize},
		{"too large", func(ctx context.Context, pe *pgas.PE) error {
			_, err := pgas.Alloc[byte](ctx, pe, 2*testHeap)
			return err
		}, pgas.ErrHeapExhausted},
		{"pointer type", func(ctx context.Context, pe *pgas.PE) error { _, err := pgas.Alloc[withPtr](ctx, pe, 1); return err }, pgas.ErrBadArg},
		{"string type", func(ctx context.Context, pe *pgas.PE) error { _, err := pgas.Alloc[string](ctx, pe, 1); return err }, pgas.ErrBadArg},
		{"alignment 3", func(ctx context.Context, pe *pgas.PE) error {
			_, err := pgas.AllocAligned[byte](ctx, pe, 1, 3)
			return err
		}, pgas.ErrBadArg},
		{"alignment 0", func(ctx context.Context, pe *pgas.PE) error {
			_, err := pgas.AllocAligned[byte](ctx, pe, 1, 0)
			return err
		}, pgas.ErrBadArg},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
				if err := c.do(ctx, pe); !errors.Is(err, c.want) {
					return fmt.Errorf("got %v, want %v", err, c.want)
				}
				return nil
			})
		})
	}
}

func (ck *kit) testAllocExhaustedNamesBytes(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		_, err := pgas.Alloc[byte](ctx, pe, testHeap)
		if !errors.Is(err, pgas.ErrHeapExhausted) {
			return fmt.Errorf("got %v", err)
		}
		if msg := err.Error(); !strings.Contains(msg, fmt.Sprint(testHeap)) || !strings.Contains(msg, "free") {
			return fmt.Errorf("message does not name the requested and free bytes: %q", msg)
		}
		return nil
	})
}

func (ck *kit) testFreedForeignAndZeroSym(t *testing.T) {
	var foreign pgas.Sym[int64]
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		s := must(pgas.Alloc[int64](ctx, pe, 4))
		if pe.ID() == 0 {
			foreign = s
		}
		return nil
	})
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		s := must(pgas.Alloc[int64](ctx, pe, 4))
		check(pgas.Free(ctx, pe, s))
		var zero pgas.Sym[int64]
		for name, sym := range map[string]pgas.Sym[int64]{"freed": s, "freed slice": s.Slice(1, 2), "foreign": foreign, "zero": zero} {
			if err := pgas.P(pe, sym, 1, 0); !errors.Is(err, pgas.ErrBadSym) {
				return fmt.Errorf("P to %s Sym: %v", name, err)
			}
			if _, err := pgas.AtomicFetch(pe, sym, 0); !errors.Is(err, pgas.ErrBadSym) {
				return fmt.Errorf("AtomicFetch of %s Sym: %v", name, err)
			}
		}
		// Freeing twice is an error on every PE.
		if err := pgas.Free(ctx, pe, s); !errors.Is(err, pgas.ErrBadSym) {
			return fmt.Errorf("double Free: %v", err)
		}
		// and leaves s freed.
		if err := pgas.P(pe, s, 1, 0); s.Valid() || !errors.Is(err, pgas.ErrBadSym) {
			return fmt.Errorf("after a double Free: Valid %v, P: %v", s.Valid(), err)
		}
		// So is freeing a Slice.
		s2 := must(pgas.Alloc[int64](ctx, pe, 4))
		if err := pgas.Free(ctx, pe, s2.Slice(1, 3)); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("Free of a Slice: %v", err)
		}
		return pgas.Free(ctx, pe, s2)
	})
}

func (ck *kit) testSymSlicePanicsOutOfRange(t *testing.T) {
	ck.run(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		s := must(pgas.Alloc[int32](ctx, pe, 4))
		for _, r := range [][2]int{{-1, 2}, {2, 1}, {0, 5}} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("Slice(%d, %d) of 4 did not panic", r[0], r[1])
					}
				}()
				s.Slice(r[0], r[1])
			}()
		}
		return nil
	})
}

// HostMemory says whether Local works: on the host backend a PE's slice is
// its partition (a Put from another PE shows in it); on the GPU backends
// Local fails.
func (ck *kit) testHostMemoryAndLocal(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		if got, want := pe.HostMemory(), ck.HostMemory; got != want {
			return fmt.Errorf("HostMemory() = %v on the %s backend", got, ck.backend())
		}
		s := must(pgas.AllocZeroed[uint64](ctx, pe, 4))
		local, err := pgas.Local(pe, s)
		if !pe.HostMemory() {
			if err == nil {
				return fmt.Errorf("Local without host memory: no error")
			}
			return nil
		}
		check(err)
		check(pgas.P(pe, s.Index(2), uint64(10+pe.ID()), 1-pe.ID()))
		check(pe.Barrier(ctx))
		if len(local) != 4 || local[2] != uint64(10+1-pe.ID()) {
			return fmt.Errorf("Local = %v, want the peer's 10+%d at 2", local, 1-pe.ID())
		}
		return nil
	})
}

// A Put from a helper goroutine racing Free and a new allocation either
// lands in the old allocation or fails with ErrBadSym: never in the new
// one, which the same bytes may now hold.
func (ck *kit) testPutRacingFree(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		for range 50 {
			old := must(pgas.AllocZeroed[int64](ctx, pe, 64))
			check(pe.Barrier(ctx))
			ones := make([]int64, 64)
			for i := range ones {
				ones[i] = -1
			}
			done := make(chan error, 1)
			started := make(chan struct{})
			go func() {
				close(started)
				for {
					if err := pgas.Put(pe, old, ones, pe.ID()); err != nil {
						done <- err
						return
					}
				}
			}()
			<-started
			check(pgas.Free(ctx, pe, old))
			fresh := must(pgas.AllocZeroed[int64](ctx, pe, 64))
			if err := <-done; !errors.Is(err, pgas.ErrBadSym) {
				return fmt.Errorf("the racing Put ended with %v, want ErrBadSym", err)
			}
			got := make([]int64, 64)
			check(pgas.Get(pe, got, fresh, pe.ID()))
			for i, v := range got {
				if v != 0 {
					return fmt.Errorf("the new allocation (offset %d, the old one's %d) holds %d at %d: a Put after Free landed in it", fresh.Offset(), old.Offset(), v, i)
				}
			}
			check(pgas.Free(ctx, pe, fresh))
		}
		return nil
	})
}

// Realloc keeps each PE's contents (its own, not PE 0's) up to the smaller
// size, on growth and shrinkage, frees the old allocation, and follows the
// spec at the edges: a zero Sym allocates, size 0 frees.
func (ck *kit) testRealloc(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		me := pe.ID()
		s := must(pgas.Alloc[uint16](ctx, pe, 10))
		check(pgas.Put(pe, s, seq(10, func(i int) uint16 { return uint16(me*100 + i) }), me))
		check(pe.Barrier(ctx))
		grown := must(pgas.Realloc(ctx, pe, s, 1000))
		if grown.Len() != 1000 || s.Valid() {
			return fmt.Errorf("grown: %v, old still valid: %v", grown, s.Valid())
		}
		// Another PE's copy, read right after Realloc returned.
		other := (me + 1) % pe.NumPEs()
		got := make([]uint16, 10)
		check(pgas.Get(pe, got, grown, other))
		for i, v := range got {
			if v != uint16(other*100+i) {
				return fmt.Errorf("PE %d's grown copy [%d] = %d", other, i, v)
			}
		}
		shrunk := must(pgas.Realloc(ctx, pe, grown, 4))
		check(pgas.Get(pe, got[:4], shrunk, me))
		for i, v := range got[:4] {
			if v != uint16(me*100+i) {
				return fmt.Errorf("shrunk [%d] = %d", i, v)
			}
		}
		if _, err := pgas.Realloc(ctx, pe, grown, 8); !errors.Is(err, pgas.ErrBadSym) {
			return fmt.Errorf("Realloc of a freed Sym: %v", err)
		}
		if _, err := pgas.Realloc(ctx, pe, shrunk, -1); !errors.Is(err, pgas.ErrBadSize) {
			return fmt.Errorf("Realloc to -1: %v", err)
		}
		if _, err := pgas.Realloc(ctx, pe, shrunk.Slice(1, 3), 8); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("Realloc of a Slice: %v", err)
		}
		if _, err := pgas.Realloc(ctx, pe, shrunk, 1<<40); !errors.Is(err, pgas.ErrHeapExhausted) {
			return fmt.Errorf("Realloc past the heap: %v", err)
		}
		// Different sizes on different PEs: a mismatch for all, s kept.
		if _, err := pgas.Realloc(ctx, pe, shrunk, 5+me); !errors.Is(err, pgas.ErrCollectiveMismatch) || !shrunk.Valid() {
			return fmt.Errorf("mismatched Realloc: %v (old valid: %v)", err, shrunk.Valid())
		}
		fresh := must(pgas.Realloc(ctx, pe, pgas.Sym[int32]{}, 3))
		if fresh.Len() != 3 {
			return fmt.Errorf("Realloc of the zero Sym: %v", fresh)
		}
		if z, err := pgas.Realloc(ctx, pe, fresh, 0); err != nil || z.Valid() || fresh.Valid() {
			return fmt.Errorf("Realloc to 0: %v, %v", z, err)
		}
		return pgas.Free(ctx, pe, shrunk)
	})
}
