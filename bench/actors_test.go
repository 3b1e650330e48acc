package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

// BenchmarkChanRoundTrip/impl=symchan: an 8-byte Chan send → recv → send
// back between 2 PEs; the anchors are those of BenchmarkPingPong.
func BenchmarkChanRoundTrip(b *testing.B) {
	b.Run("impl=symchan", func(b *testing.B) {
		runWorld(b, 2, 4<<20, func(ctx context.Context, pe *pgas.PE) error {
			ch, err := actors.NewChan[uint64](ctx, pe)
			if err != nil {
				return err
			}
			peer := 1 - pe.ID()
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			if pe.ID() == 0 {
				b.StartTimer()
			}
			err = chanRoundTrips(ctx, pe, ch, peer, b.N)
			if pe.ID() == 0 {
				b.StopTimer()
			}
			return err
		})
	})
	roundTripAnchors(b)
}

// chanRoundTrips runs n round trips of ch between PEs 0 and 1 (peer, the
// other one): PE 0 sends and waits for the echo, PE 1 echoes.
func chanRoundTrips(ctx context.Context, pe *pgas.PE, ch *actors.Chan[uint64], peer, n int) error {
	for i := range uint64(n) {
		if pe.ID() == 0 {
			if err := ch.Send(ctx, peer, i); err != nil {
				return err
			}
		}
		if _, err := ch.Recv(ctx); err != nil {
			return err
		}
		if pe.ID() == 1 {
			if err := ch.Send(ctx, peer, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// BenchmarkThroughput8B/impl=symchan: one-way 8-byte messages from PE 0 to
// PE 1 through a Chan, timed until the last is received; impl=protoactor:
// local Send to a protoactor actor in the same process, timed until it
// has processed the last; impl=gochan: the same over a Go channel with as
// many slots as a Chan's inbox has per sender. ns/op is per message.
func BenchmarkThroughput8B(b *testing.B) {
	b.Run("impl=symchan", func(b *testing.B) {
		runWorld(b, 2, 4<<20, func(ctx context.Context, pe *pgas.PE) error {
			ch, err := actors.NewChan[uint64](ctx, pe)
			if err != nil {
				return err
			}
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			if pe.ID() == 0 {
				b.StartTimer()
				for i := range uint64(b.N) {
					if err := ch.Send(ctx, 1, i); err != nil {
						return err
					}
				}
				_, err := ch.Recv(ctx) // PE 1 got them all
				b.StopTimer()
				return err
			}
			for range b.N {
				if _, err := ch.Recv(ctx); err != nil {
					return err
				}
			}
			return ch.Send(ctx, 0, 0)
		})
	})
	b.Run("impl=gochan", func(b *testing.B) {
		ch, done := make(chan uint64, actors.DefaultSlots), make(chan struct{})
		go func() {
			for range b.N {
				<-ch
			}
			close(done)
		}()
		for i := range uint64(b.N) {
			ch <- i
		}
		<-done
	})
	b.Run("impl=protoactor", func(b *testing.B) {
		sys := actor.NewActorSystem(actor.WithLoggerFactory(quiet))
		defer sys.Shutdown()
		done := make(chan struct{})
		n := 0
		pid := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
			if _, ok := c.Message().(uint64); ok {
				if n++; n == b.N {
					close(done)
				}
			}
		}))
		b.ResetTimer()
		for i := range uint64(b.N) {
			sys.Root.Send(pid, i)
		}
		<-done
		b.StopTimer()
		sys.Root.Stop(pid)
	})
}

type request struct {
	X       uint64
	ReplyTo actors.ReplyTo
}

// futureEnds makes what both sides of the Future round trips use: the
// PE's actor system and the Chan the requests travel on.
func futureEnds(ctx context.Context, pe *pgas.PE) (*actors.System, *actors.Chan[request], error) {
	sys, err := actors.NewSystem(ctx, pe)
	if err != nil {
		return nil, nil, err
	}
	reqs, err := actors.NewChan[request](ctx, pe)
	return sys, reqs, err
}

// serve answers n requests on reqs with X+1: PE 1's side of the Future
// round trips.
func serve(ctx context.Context, sys *actors.System, reqs *actors.Chan[request], n int) error {
	for range n {
		r, err := reqs.Recv(ctx)
		if err != nil {
			return err
		}
		if err := actors.Reply(sys, r.ReplyTo, r.X+1); err != nil {
			return err
		}
	}
	return nil
}

// ask makes one Future round trip to PE 1 (see serve) and checks the
// answer.
func ask(ctx context.Context, sys *actors.System, reqs *actors.Chan[request], x uint64) error {
	f, err := actors.NewFuture[uint64](sys)
	if err != nil {
		return err
	}
	if err := reqs.Send(ctx, 1, request{X: x, ReplyTo: f.ReplyTo()}); err != nil {
		return err
	}
	if v, err := f.Await(ctx); err != nil || v != x+1 {
		return fmt.Errorf("reply to %d: %d, %v", x, v, err)
	}
	return nil
}

// BenchmarkFutureRoundTrip/impl=symchan: PE 0 sends a request carrying a
// future's ReplyTo to PE 1 over a Chan and awaits the reply;
// impl=protoactor: RequestFuture to a local actor that responds; and the
// round-trip anchors of BenchmarkPingPong.
func BenchmarkFutureRoundTrip(b *testing.B) {
	b.Run("impl=symchan", func(b *testing.B) {
		runWorld(b, 2, 4<<20, func(ctx context.Context, pe *pgas.PE) error {
			sys, reqs, err := futureEnds(ctx, pe)
			if err != nil {
				return err
			}
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			if pe.ID() == 1 {
				return serve(ctx, sys, reqs, b.N)
			}
			b.StartTimer()
			for i := range uint64(b.N) {
				if err := ask(ctx, sys, reqs, i); err != nil {
					return err
				}
			}
			b.StopTimer()
			return nil
		})
	})
	b.Run("impl=protoactor", func(b *testing.B) {
		sys := actor.NewActorSystem(actor.WithLoggerFactory(quiet))
		defer sys.Shutdown()
		pid := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
			if v, ok := c.Message().(uint64); ok {
				c.Respond(v + 1)
			}
		}))
		b.ResetTimer()
		for i := range uint64(b.N) {
			if _, err := sys.Root.RequestFuture(pid, i, 5*time.Second).Result(); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		sys.Root.Stop(pid)
	})
	roundTripAnchors(b)
}

// BenchmarkSelfSendRecv: a PE sends an 8-byte value to itself and
// receives it: the CPU cost of one Chan message, without any wait.
func BenchmarkSelfSendRecv(b *testing.B) {
	runWorld(b, 1, 4<<20, func(ctx context.Context, pe *pgas.PE) error {
		ch, _ := actors.NewChan[uint64](ctx, pe)
		b.StartTimer()
		for i := range uint64(b.N) {
			if err := ch.Send(ctx, 0, i); err != nil {
				return err
			}
			if _, err := ch.Recv(ctx); err != nil {
				return err
			}
		}
		b.StopTimer()
		return nil
	})
}

// quiet keeps protoactor's start-up log out of the benchmark output.
func quiet(*actor.ActorSystem) *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
