package host

import (
	"context"
	"testing"

	"github.com/symchan/symchan/pgas/driver"
)

// BenchmarkTransportPingPong: an 8-byte PutSignal and a wait for it, back
// and forth between two PEs' goroutines, on the transport alone (no pgas
// checks): what the host backend's waiting costs, polling first
// (mode=spin) or parking at once (mode=park).
func BenchmarkTransportPingPong(b *testing.B) {
	for _, park := range []bool{false, true} {
		name := "mode=spin"
		if park {
			name = "mode=park"
		}
		b.Run(name, func(b *testing.B) {
			tr, err := Backend{}.Open(context.Background(), driver.Config{PEs: 2, HeapSize: 4096, Park: park})
			if err != nil {
				b.Fatal(err)
			}
			defer tr.Close()
			ctx := context.Background()
			abort := make(chan struct{})
			errs := make(chan error, 1)
			go func() {
				msg := make([]byte, 8)
				for i := uint64(1); i <= uint64(b.N); i++ {
					if _, err := tr.Wait(ctx, 1, abort, waitWord(0, i)); err != nil {
						errs <- err
						return
					}
					_ = tr.PutSignal(1, 0, 8, msg, 0, i, driver.SignalSet, false)
				}
				errs <- nil
			}()
			msg := make([]byte, 8)
			for i := uint64(1); i <= uint64(b.N); i++ {
				_ = tr.PutSignal(0, 1, 8, msg, 0, i, driver.SignalSet, false)
				if _, err := tr.Wait(ctx, 0, abort, waitWord(0, i)); err != nil {
					b.Fatal(err)
				}
			}
			if err := <-errs; err != nil {
				b.Fatal(err)
			}
		})
	}
}
