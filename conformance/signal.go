package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/signals"
)

// The ring neighbour exchange of the spec: put to the right neighbour,
// quiet, signal it, wait for the left neighbour's signal.
func (ck *kit) testRingNeighbourExchange(t *testing.T) {
	for _, n := range []int{2, 5, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
				me := pe.ID()
				right := (me + 1) % n
				dst := must(pgas.AllocZeroed[int64](ctx, pe, 1))
				sig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
				for round := uint64(1); round <= 100; round++ {
					check(pgas.P(pe, dst, int64(me)*1000+int64(round), right))
					check(pe.Quiet())
					check(pgas.SignalOp(pe, sig, round, pgas.SignalSet, right))
					v, err := pgas.SignalWaitUntil(ctx, pe, sig, pgas.CmpGE, round)
					if err != nil {
						return err
					}
					if v < round {
						return fmt.Errorf("SignalWaitUntil returned %d < %d", v, round)
					}
					left := (me + n - 1) % n
					if got := must(pgas.G(pe, dst, me)); got != int64(left)*1000+int64(round) {
						return fmt.Errorf("round %d: got %d from PE %d", round, got, left)
					}
					// The left neighbour may not overwrite dst before we read it.
					check(pe.Sync(ctx))
				}
				return nil
			})
		})
	}
}

// Put-with-signal: once the receiver sees the signal, the data of the same
// call is there, for both signal operations and for NBI.
func (ck *kit) testPutSignalDataVisible(t *testing.T) {
	const words = 1 << 14
	for _, nbi := range []bool{false, true} {
		for _, op := range []pgas.SigOp{pgas.SignalSet, pgas.SignalAdd} {
			t.Run(fmt.Sprintf("%v/nbi=%v", op, nbi), func(t *testing.T) {
				ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
					data := must(pgas.AllocZeroed[uint64](ctx, pe, words))
					sig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
					ack := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
					buf := make([]uint64, words)
					for round := uint64(1); round <= 200; round++ {
						if pe.ID() == 0 {
							fillRound(buf, round)
							val := round
							if op == pgas.SignalAdd {
								val = 1
							}
							if nbi {
								check(pgas.PutSignalNBI(pe, data, buf, sig, val, op, 1))
								check(pe.Quiet())
							} else {
								check(pgas.PutSignal(pe, data, buf, sig, val, op, 1))
							}
							if _, err := pgas.SignalWaitUntil(ctx, pe, ack, pgas.CmpEQ, round); err != nil {
								return err
							}
							continue
						}
						if err := receivedRound(ctx, pe, data, buf, sig, pgas.CmpGE, round, round); err != nil {
							return err
						}
						check(pgas.SignalOp(pe, ack, round, pgas.SignalSet, 0))
					}
					return nil
				})
			})
		}
	}
}

// PutSignalUnordered: the signal may be seen before the data, but every
// byte lands: a receiver that saw the signal and reads until the data is
// whole finds the round's words, in sizes on both sides of what a GPU
// agent's lane carries in one routine. (Sealed mailbox slots rely on it;
// GPU/SealedSlotNeverTakenTorn tests the receivers that check.)
func (ck *kit) testPutSignalUnordered(t *testing.T) {
	for _, words := range []int{1, 24, 25, 1 << 12} {
		t.Run(fmt.Sprint(words), func(t *testing.T) {
			ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
				data := must(pgas.AllocZeroed[uint64](ctx, pe, words))
				sig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
				ack := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
				buf := make([]uint64, words)
				for round := uint64(1); round <= 50; round++ {
					if pe.ID() == 0 {
						fillRound(buf, round)
						check(pgas.PutSignalUnordered(pe, data, buf, sig, round, pgas.SignalSet, 1))
						if _, err := pgas.SignalWaitUntil(ctx, pe, ack, pgas.CmpEQ, round); err != nil {
							return err
						}
						continue
					}
					if _, err := pgas.SignalWaitUntil(ctx, pe, sig, pgas.CmpGE, round); err != nil {
						return err
					}
					deadline := time.Now().Add(time.Second)
					for {
						check(pgas.Get(pe, buf, data, pe.ID()))
						if whole(buf, round) {
							break
						}
						if time.Now().After(deadline) {
							return fmt.Errorf("round %d: the data never landed whole after the signal", round)
						}
					}
					check(pgas.SignalOp(pe, ack, round, pgas.SignalSet, 0))
				}
				return nil
			})
		})
	}
}

// whole reports whether buf holds round's words (fillRound).
func whole(buf []uint64, round uint64) bool {
	for i, w := range buf {
		if w != round<<32|uint64(i) {
			return false
		}
	}
	return true
}

// fillRound fills buf with round's words: round<<32 | index.
func fillRound(buf []uint64, round uint64) {
	for i := range buf {
		buf[i] = round<<32 | uint64(i)
	}
}

// receivedRound waits until sig on pe satisfies cmp v, then reads data
// there into buf and checks that it holds round's words (fillRound): a
// signal seen means its put's data is seen.
func receivedRound(ctx context.Context, pe *pgas.PE, data pgas.Sym[uint64], buf []uint64, sig pgas.Sym[uint64], cmp pgas.Cmp, v, round uint64) error {
	if _, err := pgas.SignalWaitUntil(ctx, pe, sig, cmp, v); err != nil {
		return err
	}
	if err := pgas.Get(pe, buf, data, pe.ID()); err != nil {
		return err
	}
	for i, w := range buf {
		if w != round<<32|uint64(i) {
			return fmt.Errorf("round %d: word %d = %#x after the signal", round, i, w)
		}
	}
	return nil
}

// PutSignalIf puts and signals only when its claim finds the word as
// expected; a claim that does not writes nothing and reports what it
// found. Sizes on both sides of what a GPU agent's lane entry carries
// (192 bytes: one routine there; larger: a claim, then a put-with-signal).
func (ck *kit) testPutSignalIf(t *testing.T) {
	for _, words := range []int{1, 24, 25, 1000} {
		t.Run(fmt.Sprintf("words=%d", words), func(t *testing.T) {
			ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
				data := must(pgas.AllocZeroed[uint64](ctx, pe, words))
				sig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
				buf := make([]uint64, words)
				for round := uint64(1); round <= 20; round++ {
					cond, claim, val := (round-1)*4, round*4+1, round*4 // settled words are multiples of 4
					if pe.ID() == 0 {
						fillRound(buf, round)
						old, err := pgas.PutSignalIf(pe, data, buf, sig, cond, claim, val, 1)
						if err != nil {
							return err
						}
						if old != cond {
							return fmt.Errorf("round %d: claim found %d, want %d", round, old, cond)
						}
						for i := range buf {
							buf[i] = 0xdead
						}
						if old, err = pgas.PutSignalIf(pe, data, buf, sig, cond, claim, val+2, 1); err != nil {
							return err
						}
						if old != claim && old != val {
							return fmt.Errorf("round %d: a stale claim found %d, want %d or %d", round, old, claim, val)
						}
						check(pe.Quiet())
					}
					check(pe.Barrier(ctx))
					if pe.ID() == 1 {
						if err := receivedRound(ctx, pe, data, buf, sig, pgas.CmpEQ, val, round); err != nil {
							return err
						}
					}
					check(pe.Barrier(ctx))
				}
				if pe.ID() == 0 { // and the checks a put-with-signal makes
					if _, err := pgas.PutSignalIf(pe, data, make([]uint64, words+1), sig, 0, 1, 2, 1); !errors.Is(err, pgas.ErrBadSize) {
						return fmt.Errorf("PutSignalIf past the data: %v, want ErrBadSize", err)
					}
					if _, err := pgas.PutSignalIf(pe, data, buf, sig, 0, 1, 2, 2); !errors.Is(err, pgas.ErrBadPE) {
						return fmt.Errorf("PutSignalIf to PE 2 of 2: %v, want ErrBadPE", err)
					}
				}
				return nil
			})
		})
	}
}

// Many senders add to one signal; when it reaches the count, every
// sender's slot is delivered.
func (ck *kit) testPutSignalAddFanIn(t *testing.T) {
	const n = 8
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		slots := must(pgas.AllocZeroed[int64](ctx, pe, n*64))
		sig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		mine := seq(64, func(i int) int64 { return int64(pe.ID()*1000 + i) })
		check(pgas.PutSignal(pe, slots.Slice(pe.ID()*64, pe.ID()*64+64), mine, sig, 1, pgas.SignalAdd, 0))
		if pe.ID() != 0 {
			return nil
		}
		if _, err := pgas.SignalWaitUntil(ctx, pe, sig, pgas.CmpEQ, n); err != nil {
			return err
		}
		got := make([]int64, n*64)
		check(pgas.Get(pe, got, slots, 0))
		for i, v := range got {
			if want := int64(i/64*1000 + i%64); v != want {
				return fmt.Errorf("slot word %d = %d, want %d", i, v, want)
			}
		}
		return nil
	})
}

// Fence orders delivery to one PE: data put before the fence is delivered
// before the flag put after it.
func (ck *kit) testFenceOrdersDelivery(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		data := must(pgas.AllocZeroed[int64](ctx, pe, 1024))
		flag := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		for round := int64(1); round <= 100; round++ {
			if pe.ID() == 0 {
				check(pgas.PutNBI(pe, data, seq(1024, func(int) int64 { return round }), 1))
				check(pe.Fence())
				check(pgas.AtomicSet(pe, flag, uint64(round), 1))
				check(pe.Quiet())
			} else {
				if err := signals.WaitUntil(ctx, pe, flag, pgas.CmpEQ, uint64(round)); err != nil {
					return err
				}
				got := make([]int64, 1024)
				check(pgas.Get(pe, got, data, 1))
				for i, v := range got {
					if v != round {
						return fmt.Errorf("round %d: data[%d] = %d after the fenced flag", round, i, v)
					}
				}
			}
			check(pe.Sync(ctx))
		}
		return nil
	})
}

// Quiet completes NBI puts and gets to every PE.
func (ck *kit) testQuietCompletesNBI(t *testing.T) {
	const n = 4
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		s := must(pgas.AllocZeroed[int32](ctx, pe, n*256))
		flags := must(pgas.AllocZeroed[uint64](ctx, pe, n))
		src := seq(256, func(i int) int32 { return int32(pe.ID()<<16 | i) })
		for q := range n {
			check(pgas.PutNBI(pe, s.Slice(pe.ID()*256, pe.ID()*256+256), src, q))
		}
		check(pe.Quiet())
		for q := range n {
			check(pgas.SignalOp(pe, flags.Index(pe.ID()), 1, pgas.SignalSet, q))
		}
		check(signals.WaitUntilAll(ctx, pe, flags, nil, pgas.CmpEQ, 1))
		for q := range n {
			got := make([]int32, 256)
			check(pgas.Get(pe, got, s.Slice(q*256, q*256+256), pe.ID()))
			for i, v := range got {
				if v != int32(q<<16|i) {
					return fmt.Errorf("block of PE %d word %d = %#x", q, i, v)
				}
			}
		}
		// GetNBI: the data is there after Quiet.
		check(pe.Barrier(ctx))
		dst := make([]int32, n*256)
		check(pgas.GetNBI(pe, dst, s, (pe.ID()+1)%n))
		check(pe.Quiet())
		for i, v := range dst {
			if v != int32((i/256)<<16|i%256) {
				return fmt.Errorf("GetNBI word %d = %#x", i, v)
			}
		}
		return nil
	})
}

func (ck *kit) testSignalOpAndFetch(t *testing.T) {
	ck.run(t, 3, func(ctx context.Context, pe *pgas.PE) error {
		sig := must(pgas.AllocZeroed[uint64](ctx, pe, 2))
		check(pgas.SignalOp(pe, sig, 5, pgas.SignalAdd, 0))
		check(pgas.SignalOp(pe, sig.Index(1), uint64(pe.ID()+1), pgas.SignalSet, 0))
		check(pe.Barrier(ctx))
		if pe.ID() == 0 {
			if v := must(pgas.SignalFetch(pe, sig)); v != 15 {
				return fmt.Errorf("three adds of 5: %d", v)
			}
			if v := must(pgas.SignalFetch(pe, sig.Index(1))); v < 1 || v > 3 {
				return fmt.Errorf("set word = %d, want one of the values set", v)
			}
		}
		if err := pgas.SignalOp(pe, sig, 1, pgas.SigOp(9), 0); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("bad signal op: %v", err)
		}
		return nil
	})
}
