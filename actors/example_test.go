package actors_test

import (
	"context"
	"fmt"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

type ask struct {
	X       int64
	ReplyTo actors.ReplyTo // a reply slot on the asking PE
}

// PE 0 asks PE 1 for a square over a Chan and awaits the reply in a Future.
func ExampleFuture() {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 4 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		sys, err := actors.NewSystem(ctx, pe) // collective, like every constructor
		if err != nil {
			return err
		}
		asks, err := actors.NewChan[ask](ctx, pe) // every PE has an inbox
		if err != nil {
			return err
		}
		if pe.ID() == 1 {
			a, err := asks.Recv(ctx)
			if err != nil {
				return err
			}
			return actors.Reply(sys, a.ReplyTo, a.X*a.X)
		}
		f, err := actors.NewFuture[int64](sys)
		if err != nil {
			return err
		}
		if err := asks.Send(ctx, 1, ask{X: 12, ReplyTo: f.ReplyTo()}); err != nil {
			return err
		}
		sq, err := f.Await(ctx)
		fmt.Println(sq)
		return err
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: 144
}

// Each PE sends its id around a ring and reads the <-chan view in a select.
func ExampleChan_C() {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 3, HeapSize: 4 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		ch, err := actors.NewChan[int](ctx, pe)
		if err != nil {
			return err
		}
		if err := ch.Send(ctx, (pe.ID()+1)%pe.NumPEs(), pe.ID()); err != nil {
			return err
		}
		select {
		case v := <-ch.C():
			if pe.ID() == 0 {
				fmt.Println("PE 0 got", v)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: PE 0 got 2
}

// Values that are not plain data travel through a codec; options configure
// the mailbox under the Chan.
func ExampleNewChanCodec() {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 4 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		ch, err := actors.NewChanCodec[string](ctx, pe, actors.StringCodec{}, actors.Slots(4))
		if err != nil {
			return err
		}
		if pe.ID() == 0 {
			return ch.Send(ctx, 1, "hello from PE 0")
		}
		s, err := ch.Recv(ctx)
		fmt.Println(s)
		return err
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: hello from PE 0
}
