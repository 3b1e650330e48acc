package bench

import (
	"context"
	"fmt"
	"runtime"
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

// BenchmarkPingPong/putsignal: round trip of an 8-byte PutSignal and
// SignalWaitUntil between 2 PEs; /gochan: the same round trip over an
// unbuffered Go channel pair, the anchor.
func BenchmarkPingPong(b *testing.B) {
	b.Run("putsignal", func(b *testing.B) {
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
				if _, err := pgas.SignalWaitUntil(ctx, pe, sig, signals.GE, i); err != nil {
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
	b.Run("gochan", goChanRoundTrip)
}

// goChanRoundTrip is the anchor of the round-trip benchmarks: a value
// sent to another goroutine over an unbuffered channel and sent back.
func goChanRoundTrip(b *testing.B) {
	ping, pong := make(chan uint64), make(chan uint64)
	go func() {
		for v := range ping {
			pong <- v
		}
	}()
	for i := range uint64(b.N) {
		ping <- i
		<-pong
	}
	close(ping)
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
			if i, err := signals.WaitUntilAny(ctx, pe, w, nil, signals.EQ, 1); err != nil || i != 777 {
				return fmt.Errorf("WaitUntilAny = %d, %v", i, err)
			}
		}
		b.StopTimer()
		return nil
	})
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

// BenchmarkPut: Put of n bytes from PE 0 to PE 1; BenchmarkCopy: copy() of
// the same size between two Go slices, the anchor.
func BenchmarkPut(b *testing.B) {
	for _, n := range putSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			runWorld(b, 2, int64(n)+1<<20, func(ctx context.Context, pe *pgas.PE) error {
				dst, err := pgas.AllocZeroed[byte](ctx, pe, n)
				if err != nil {
					return err
				}
				if pe.ID() == 0 {
					src := make([]byte, n)
					// Warm-up: fault in both buffers' pages before timing,
					// and leave no garbage of earlier worlds for the GC to
					// chew on while we measure.
					if err := pgas.Put(pe, dst, src, 1); err != nil {
						return err
					}
					runtime.GC()
					b.SetBytes(int64(n))
					b.StartTimer()
					for range b.N {
						if err := pgas.Put(pe, dst, src, 1); err != nil {
							return err
						}
					}
					b.StopTimer()
				}
				return pe.Barrier(ctx)
			})
		})
	}
}

func BenchmarkCopy(b *testing.B) {
	for _, n := range putSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			src, dst := make([]byte, n), make([]byte, n)
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

// BenchmarkBarrier: one barrier across n PEs.
func BenchmarkBarrier(b *testing.B) {
	for _, n := range []int{2, 8, 64} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			runWorld(b, n, 1<<17, func(ctx context.Context, pe *pgas.PE) error {
				if err := pe.Barrier(ctx); err != nil {
					return err
				}
				if pe.ID() == 0 {
					b.StartTimer()
				}
				for range b.N {
					if err := pe.Barrier(ctx); err != nil {
						return err
					}
				}
				if pe.ID() == 0 {
					b.StopTimer()
				}
				return nil
			})
		})
	}
}
