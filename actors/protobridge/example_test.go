package protobridge_test

import (
	"context"
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/symchan/symchan/actors/protobridge"
	"github.com/symchan/symchan/pgas"
)

// A protoactor actor on PE 0 asks an actor on PE 1 and gets the answer.
func Example() {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 4 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		b, err := protobridge.Start(ctx, pe)
		if err != nil {
			return err
		}
		root := b.System().Root
		if pe.ID() == 1 {
			// An ordinary protoactor actor that answers greetings.
			props := actor.PropsFromFunc(func(c actor.Context) {
				if m, ok := c.Message().(*wrapperspb.StringValue); ok {
					c.Respond(wrapperspb.String("hello, " + m.GetValue() + " (from PE 1)"))
				}
			})
			if _, err := root.SpawnNamed(props, "greeter"); err != nil {
				return err
			}
		}
		if err := pe.Barrier(ctx); err != nil { // the greeter exists
			return err
		}
		if pe.ID() == 0 {
			// An actor on PE 0 asks the greeter with RequestFuture.
			answered := make(chan string, 1)
			asker := actor.PropsFromFunc(func(c actor.Context) {
				if _, ok := c.Message().(*actor.Started); ok {
					res, err := c.RequestFuture(b.PID(1, "greeter"), wrapperspb.String("PE 0"), 5*time.Second).Result()
					if err != nil {
						answered <- err.Error()
						return
					}
					answered <- res.(*wrapperspb.StringValue).GetValue()
				}
			})
			root.Spawn(asker)
			fmt.Println(<-answered)
		}
		return pe.Barrier(ctx) // PE 1 keeps its bridge up until PE 0 has its answer
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: hello, PE 0 (from PE 1)
}
