package bench

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/signals"
)

// runWorld runs fn on n host PEs with a heap of heap bytes, failing b on
// error. PE functions start and stop b's timer around the measured part.
func runWorld(b *testing.B, n int, heap int64, fn func(ctx context.Context, pe *pgas.PE) error) {
	b.Helper()
	b.StopTimer()
	if err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: n, HeapSize: heap}, fn); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPingPong/impl=symchan: round trip of an 8-byte PutSignal and
// SignalWaitUntil between 2 PEs. The anchors (see anchors_test.go): the
// same round trip over an unbuffered Go channel pair (impl=gochan) and
// over one atomic word two spinning goroutines hand back and forth
// (impl=atomic, the cross-core floor).
func BenchmarkPingPong(b *testing.B) {
	b.Run("impl=symchan", func(b *testing.B) {
		runWorld(b, 2, 1<<20, func(ctx context.Context, pe *pgas.PE) error {
			buf, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
			if err != nil {
				return err
			}
			sig, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
			if err != nil {
				return err
			}
			me, peer := pe.ID(), 1-pe.ID()
			msg := []uint64{0}
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			if me == 0 {
				b.StartTimer()
			}
			for i := uint64(1); i <= uint64(b.N); i++ {
				if me == 0 {
					msg[0] = i
					if err := pgas.PutSignal(pe, buf, msg, sig, i, pgas.SignalSet, peer); err != nil {
						return err
					}
				}
				if _, err := pgas.SignalWaitUntil(ctx, pe, sig, pgas.CmpGE, i); err != nil {
					return err
				}
				if me == 1 {
					msg[0] = i
					if err := pgas.PutSignal(pe, buf, msg, sig, i, pgas.SignalSet, peer); err != nil {
						return err
					}
				}
			}
			if me == 0 {
				b.StopTimer()
			}
			return nil
		})
	})
	roundTripAnchors(b)
}

// BenchmarkWaitAny1024: WaitUntilAny over 1024 words of which one is set.
func BenchmarkWaitAny1024(b *testing.B) {
	runWorld(b, 1, 1<<20, func(ctx context.Context, pe *pgas.PE) error {
		w, err := pgas.AllocZeroed[uint64](ctx, pe, 1024)
		if err != nil {
			return err
		}
		if err := pgas.SignalOp(pe, w.Index(777), 1, pgas.SignalSet, 0); err != nil {
			return err
		}
		b.StartTimer()
		for range b.N {
			if i, err := signals.WaitUntilAny(ctx, pe, w, nil, pgas.CmpEQ, 1); err != nil || i != 777 {
				return fmt.Errorf("WaitUntilAny = %d, %v", i, err)
			}
		}
		b.StopTimer()
		return nil
	})
}

// BenchmarkWaitAnyWakeup/words=n: a round trip in which PE 1 wakes from
// WaitUntilAny over n words, one of which PE 0 set (a different one each
// time), and echoes on PE 0's word (wakeRound); ns/op is the round trip.
// Issue 47's target: flat in n (the number of senders a receive waits on).
func BenchmarkWaitAnyWakeup(b *testing.B) {
	for _, n := range []int{2, 64, 1024, 4096} {
		b.Run(fmt.Sprintf("words=%d", n), func(b *testing.B) {
			runWorld(b, 2, 4<<20, func(ctx context.Context, pe *pgas.PE) error {
				var words, echo pgas.Sym[uint64]
				if err := pgas.AllocAll(ctx, pe, pgas.ArrayOf(&words, n), pgas.ArrayOf(&echo, 1)); err != nil {
					return err
				}
				var v uint64
				return timedOnPE0(ctx, b, pe, func() error {
					v++
					return wakeRound(ctx, pe, words, echo, v)
				})
			})
		})
	}
}

// wakeRound is round v of a WaitUntilAny wake-up between PEs 0 and 1:
// PE 0 sets word v·37 mod n of PE 1's words to v and waits for v on its
// echo word; PE 1 waits until any of its words is v and echoes it.
func wakeRound(ctx context.Context, pe *pgas.PE, words, echo pgas.Sym[uint64], v uint64) error {
	if pe.ID() == 0 {
		i := int(v*37) % words.Len()
		if err := pgas.SignalOp(pe, words.Index(i), v, pgas.SignalSet, 1); err != nil {
			return err
		}
		_, err := pgas.SignalWaitUntil(ctx, pe, echo, pgas.CmpGE, v)
		return err
	}
	if _, err := signals.WaitUntilAny(ctx, pe, words, nil, pgas.CmpEQ, v); err != nil {
		return err
	}
	return pgas.SignalOp(pe, echo, v, pgas.SignalSet, 0)
}

var putSizes = []int{8, 64, 512, 4 << 10, 32 << 10, 256 << 10, 2 << 20, 16 << 20, 64 << 20}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// BenchmarkPut/size=n/impl=symchan: Put of n bytes from PE 0 to PE 1;
// impl=copy: copy() of the same bytes into the same memory (PE 1's
// partition), the anchor.
//
// Both use one long-lived pair of buffers. On this VM a 64 MiB copy takes
// either ~5.5 or ~8.5 ms depending on where the allocation happened to land
// (it flips from one fresh allocation to the next), so separate buffers for
// Put and its anchor made their ratio a coin toss; on the same memory the
// ratio measures what Put adds to copy().
func BenchmarkPut(b *testing.B) {
	pp := sharedPutPair(b)
	for _, n := range putSizes {
		b.Run("size="+sizeName(n)+"/impl=symchan", func(b *testing.B) {
			dst, src := pp.dst.Slice(0, n), pp.src[:n]
			if err := pgas.Put(pp.pe, dst, src, 1); err != nil { // warm-up
				b.Fatal(err)
			}
			runtime.GC() // leave no garbage for the GC to chew on while we measure
			b.SetBytes(int64(n))
			b.ResetTimer()
			for range b.N {
				if err := pgas.Put(pp.pe, dst, src, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("size="+sizeName(n)+"/impl=copy", func(b *testing.B) {
			dst, src := pp.remote[:n], pp.src[:n]
			copy(dst, src) // warm-up, as for Put
			runtime.GC()
			b.SetBytes(int64(n))
			b.ResetTimer()
			for range b.N {
				copy(dst, src)
			}
		})
	}
}

// putPair is what BenchmarkPut's two variants share: PE 0 of a host
// world that lives as long as the benchmark binary, a symmetric buffer of
// the largest size, PE 1's partition of it, and a written source.
type putPair struct {
	pe     *pgas.PE
	dst    pgas.Sym[byte]
	remote []byte // PE 1's partition of dst
	src    []byte
}

var (
	putPairOnce sync.Once
	putPairVal  *putPair
	putPairErr  error
)

func sharedPutPair(b *testing.B) *putPair {
	b.Helper()
	putPairOnce.Do(func() {
		maxSize := slices.Max(putSizes)
		ready, remote, errc := make(chan *putPair, 1), make(chan []byte, 1), make(chan error, 1)
		hold := make(chan struct{}) // never closed: the world stays up
		go func() {
			errc <- pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: int64(maxSize) + 1<<20},
				func(ctx context.Context, pe *pgas.PE) error {
					dst, err := pgas.AllocZeroed[byte](ctx, pe, maxSize)
					if err != nil {
						return err
					}
					if pe.ID() == 1 {
						local, err := pgas.Local(pe, dst)
						if err != nil {
							return err
						}
						remote <- local
					} else {
						ready <- &putPair{pe: pe, dst: dst, remote: <-remote, src: written(maxSize)}
					}
					<-hold
					return nil
				})
		}()
		select {
		case putPairVal = <-ready:
		case err := <-errc:
			putPairErr = fmt.Errorf("the Put benchmarks' world ended: %v", err)
		}
	})
	if putPairErr != nil {
		b.Fatal(putPairErr)
	}
	return putPairVal
}

// written returns n bytes that have all been stored to: a fresh zeroed
// slice may still be the kernel's shared zero page, which a copy reads from
// cache.
func written(n int) []byte {
	s := make([]byte, n)
	for i := range s {
		s[i] = byte(i)
	}
	return s
}

// BenchmarkBarrier: one barrier across n PEs.
func BenchmarkBarrier(b *testing.B) {
	for _, n := range []int{2, 8, 64} {
		b.Run(fmt.Sprintf("pes=%d", n), func(b *testing.B) {
			runWorld(b, n, 1<<17, func(ctx context.Context, pe *pgas.PE) error {
				return timedOnPE0(ctx, b, pe, func() error { return pe.Barrier(ctx) })
			})
		})
	}
}

// timedOnPE0 runs op b.N times on every PE after a barrier, PE 0's loop
// timed: the shape of a collective's benchmark.
func timedOnPE0(ctx context.Context, b *testing.B, pe *pgas.PE, op func() error) error {
	if err := pe.Barrier(ctx); err != nil {
		return err
	}
	if pe.ID() == 0 {
		b.StartTimer()
		defer b.StopTimer()
	}
	for range b.N {
		if err := op(); err != nil {
			return err
		}
	}
	return nil
}
