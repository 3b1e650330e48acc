package actors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/symchan/symchan/pgas"
)

// Replies at the edges of what travels beside the reply word (48 bytes,
// host memory) and of the reply slot (ReplySize) arrive whole, in both
// layouts; a reply beyond ReplySize fails and writes nothing.
func TestFutureReplySizes(t *testing.T) {
	const replySize = 200
	sizes := []int{0, 1, 47, 48, 49, 56, 57, 64, replySize} // 56: the most a device-memory wait brings
	for _, layout := range []struct {
		name   string
		viaGet bool
	}{{"lines", false}, {"viaGet", true}} {
		t.Run(layout.name, func(t *testing.T) {
			err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
				sys, err := newSystem(ctx, pe, systemConfig{futures: 2, replySize: replySize}, !layout.viaGet)
				if err != nil {
					return err
				}
				if lines := sys.w.lined(); lines != !layout.viaGet {
					t.Errorf("reply words on lines of their own: %v", lines)
				}
				codec := BytesCodec{}
				to, err := NewChan[ReplyTo](ctx, pe)
				if err != nil {
					return err
				}
				if pe.ID() == 1 { // the replier
					for _, n := range sizes {
						r, err := to.Recv(ctx)
						if err != nil {
							return err
						}
						if err := ReplyCodec(sys, r, bytes.Repeat([]byte{byte(n)}, n), codec); err != nil {
							return err
						}
					}
					r, err := to.Recv(ctx)
					if err != nil {
						return err
					}
					if err := ReplyCodec(sys, r, make([]byte, replySize+1), codec); !errors.Is(err, ErrTooLarge) {
						return fmt.Errorf("reply of %d bytes: %v, want ErrTooLarge", replySize+1, err)
					}
					return ReplyCodec(sys, r, []byte("after"), codec)
				}
				for _, n := range append(sizes, -1) {
					f, err := NewFutureCodec[[]byte](sys, codec)
					if err != nil {
						return err
					}
					if err := to.Send(ctx, 1, f.ReplyTo()); err != nil {
						return err
					}
					got, err := f.Await(ctx)
					if err != nil {
						return err
					}
					want := []byte("after")
					if n >= 0 {
						want = bytes.Repeat([]byte{byte(n)}, n)
					}
					if !bytes.Equal(got, want) {
						return fmt.Errorf("reply of %d bytes: got %d bytes % x…", n, len(got), got[:min(len(got), 8)])
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Futures awaited at once by many goroutines of a PE all park (the world
// parks at once), each on its reply word, and parking costs no goroutine
// per await: every reply then reaches its await.
func TestManyParkedFuturesCostNoGoroutines(t *testing.T) {
	const awaiters = 64
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 1 << 20, Blocking: pgas.BlockPark}, func(ctx context.Context, pe *pgas.PE) error {
		sys, err := NewSystem(ctx, pe, Futures(awaiters))
		if err != nil {
			return err
		}
		to, err := NewChan[ReplyTo](ctx, pe)
		if err != nil {
			return err
		}
		if pe.ID() == 1 { // the replier: all requests, then a go-ahead, then the replies
			var rs []ReplyTo
			for range awaiters + 1 {
				r, err := to.Recv(ctx)
				if err != nil {
					return err
				}
				rs = append(rs, r)
			}
			for _, r := range rs[:awaiters] {
				if err := Reply(sys, r, uint64(r.Slot)+1); err != nil {
					return err
				}
			}
			return nil
		}
		before := runtime.NumGoroutine()
		errs := make(chan error, awaiters)
		for range awaiters {
			f, err := NewFuture[uint64](sys)
			if err != nil {
				return err
			}
			if err := to.Send(ctx, 1, f.ReplyTo()); err != nil {
				return err
			}
			go func() {
				v, err := f.Await(ctx)
				if err == nil && v != uint64(f.ReplyTo().Slot)+1 {
					err = fmt.Errorf("reply %d to slot %d", v, f.ReplyTo().Slot)
				}
				errs <- err
			}()
		}
		time.Sleep(100 * time.Millisecond) // BlockPark: they park at once
		if extra := runtime.NumGoroutine() - before - awaiters; extra > 4 {
			t.Errorf("%d goroutines beside the %d parked awaits, want a watch or two", extra, awaiters)
		}
		if err := to.Send(ctx, 1, ReplyTo{}); err != nil { // the go-ahead
			return err
		}
		for range awaiters {
			if err := <-errs; err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A slot needs no store to be armed: its next generation is armed while
// the word says the last one is over. Replies to a generation that is
// over (awaited, abandoned) or that no future has write nothing; one made
// up for the generation a slot serves next is caught by NewFuture on host
// memory, which moves the slot past it.
func TestFutureGenerations(t *testing.T) {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 1, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		sys, err := newSystem(ctx, pe, systemConfig{futures: 1, replySize: 64}, true)
		if err != nil {
			return err
		}
		f, err := NewFuture[int64](sys)
		if err != nil {
			return err
		}
		if err := Reply(sys, f.ReplyTo(), int64(1)); err != nil {
			return err
		}
		if v, err := f.Await(ctx); err != nil || v != 1 {
			return fmt.Errorf("first future: %d, %v", v, err)
		}
		abandoned, err := NewFuture[int64](sys)
		if err != nil {
			return err
		}
		abandoned.Abandon()
		made := ReplyTo{PE: 0, Slot: 0, Gen: abandoned.ReplyTo().Gen + 1}
		for _, c := range []struct {
			name string
			to   ReplyTo
			want error
		}{
			{"awaited", f.ReplyTo(), ErrAbandoned},
			{"abandoned", abandoned.ReplyTo(), ErrAbandoned},
			{"generation 0", ReplyTo{PE: 0, Slot: 0, Gen: 0}, ErrAbandoned},
			{"the next generation, made up", made, nil},
			{"the same again", made, ErrAbandoned},
		} {
			if err := Reply(sys, c.to, int64(99)); !errors.Is(err, c.want) {
				t.Errorf("reply to %s: %v, want %v", c.name, err, c.want)
			}
		}
		g, err := NewFuture[int64](sys)
		if err != nil {
			return err
		}
		if g.ReplyTo().Gen != made.Gen+1 {
			t.Errorf("after a made-up reply, the slot serves generation %d, want %d", g.ReplyTo().Gen, made.Gen+1)
		}
		if err := Reply(sys, g.ReplyTo(), int64(7)); err != nil {
			return err
		}
		if v, err := g.Await(ctx); err != nil || v != 7 {
			return fmt.Errorf("future after the made-up reply: %d, %v", v, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
