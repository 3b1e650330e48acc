package service_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/pgas"
)

// A service of two PEs whose actors square numbers: any goroutine calls
// them, with a deadline that reaches the actor.
func ExampleStart() {
	ctx := context.Background()
	square := func(ctx context.Context, pe *pgas.PE) (service.Actor[int64, int64], error) {
		return service.ActorFunc[int64, int64](func(ctx context.Context, x int64) (int64, error) {
			return x * x, nil
		}), nil
	}
	svc, err := service.Start(ctx, pgas.Config{Backend: "host", PEs: 2}, square)
	if err != nil {
		log.Fatal(err)
	}
	callCtx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	y, err := svc.Call(callCtx, 1, 12)
	fmt.Println(y, err)
	if err := svc.Stop(ctx); err != nil {
		log.Fatal(err)
	}
	fmt.Println(svc.State())
	// Output:
	// 144 <nil>
	// stopped
}

// An actor that fails its PE restarts the world under the policy: the
// calls pending then fail fast, later ones are served by the new world.
func ExampleService_Call() {
	ctx := context.Background()
	fragile := func(ctx context.Context, pe *pgas.PE) (service.Actor[int64, int64], error) {
		return service.ActorFunc[int64, int64](func(ctx context.Context, x int64) (int64, error) {
			if x < 0 {
				return 0, service.Fatal(fmt.Errorf("cannot take %d", x))
			}
			return x + 1, nil
		}), nil
	}
	svc, err := service.Start(ctx, pgas.Config{Backend: "host", PEs: 2}, fragile,
		service.Restart(service.RestartPolicy{MaxRestarts: 3, Window: time.Minute, Backoff: 10 * time.Millisecond}))
	if err != nil {
		log.Fatal(err)
	}
	defer svc.Stop(ctx)
	_, err = svc.Call(ctx, 0, -1)
	fmt.Println(err)
	callCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	y, err := svc.Call(callCtx, 0, 41) // waits for the restart
	fmt.Println(y, err, svc.Stats().Restarts)
	// Output:
	// service: a PE failed: pgas: PE 0 failed: cannot take -1
	// 42 <nil> 1
}
