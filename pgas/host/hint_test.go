package host

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas/driver"
)

// anyOf is an any-wait for one of n uint64 words from off to equal v.
func anyOf(off int64, n int, v uint64) driver.WaitRequest {
	return driver.WaitRequest{Mode: driver.WaitAny, Kind: driver.KindUint64, Off: off, N: n, Cmp: driver.CmpEQ, Value: v}
}

// A large any-wait holds its partition's write hint while it waits and
// returns the word a write made hold, whatever its other words do: a
// hinted word that holds; an earlier write's word where the hinted one
// does not hold; a word stored without the transport (no hint), found by
// the periodic full look while spinning and, parked, at the next
// wake-up, as without the hint; each spinning and parked. A small set's wait
// never takes the hint.
func TestHintedAnyWait(t *testing.T) {
	const n = 4 * hintMin
	type step struct {
		word  int
		value uint64
		noted bool // through the transport (a hint), else a plain store
	}
	for _, c := range []struct {
		name  string
		steps []step
		want  int
	}{
		{"hinted word holds", []step{{n - 1, 7, true}}, n - 1},
		{"hinted word does not", []step{{3, 7, true}, {n - 2, 8, true}}, 3},
		{"no hint", []step{{n / 2, 7, false}}, n / 2},
	} {
		for _, park := range []bool{false, true} {
			name := c.name + map[bool]string{false: "/spin", true: "/park"}[park]
			t.Run(name, func(t *testing.T) {
				tr, err := Backend{}.Open(context.Background(), driver.Config{PEs: 1, HeapSize: 8 * n, Park: park})
				if err != nil {
					t.Fatal(err)
				}
				defer tr.Close()
				h := tr.(*hostTransport)
				if !park {
					h.spin = time.Minute // spinning throughout: the plain store is found by a full look, not a wake-up
				}
				done := make(chan driver.WaitResult, 1)
				go func() {
					r, err := h.Wait(context.Background(), 0, nil, anyOf(0, n, 7))
					if err != nil {
						t.Error(err)
					}
					done <- r
				}()
				testhelp.WaitFor(t, "the wait holding the hint", func() bool { return h.parks[0].hint.held.Load() })
				for _, s := range c.steps {
					if s.noted {
						_ = h.PutSignal(0, 0, int64(8*s.word), nil, int64(8*s.word), s.value, driver.SignalSet, false)
					} else {
						binary.LittleEndian.PutUint64(h.heaps[0][8*s.word:], s.value) // no hint, no wake-up
					}
				}
				if !c.steps[0].noted && park {
					// A parked wait sees a plain store at its next wake-up,
					// as without the hint: a write elsewhere in its set.
					_ = h.PutSignal(0, 0, 8, nil, 8, 1, driver.SignalSet, false)
				}
				select {
				case r := <-done:
					if r.N != c.want {
						t.Errorf("the wait returned word %d, want %d", r.N, c.want)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the wait did not end")
				}
				if h.parks[0].hint.held.Load() {
					t.Error("the hint is still held after the wait")
				}
			})
		}
	}
	t.Run("small set", func(t *testing.T) {
		tr, err := Backend{}.Open(context.Background(), driver.Config{PEs: 1, HeapSize: 8 * hintMin})
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		h := tr.(*hostTransport)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		go func() {
			for ctx.Err() == nil {
				if h.parks[0].hint.held.Load() {
					t.Error("a wait on fewer than hintMin words took the hint")
					return
				}
			}
		}()
		if _, err := h.Wait(ctx, 0, nil, anyOf(0, hintMin-1, 7)); err == nil {
			t.Error("the wait ended without a write")
		}
	})
}
