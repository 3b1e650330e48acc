package bench

import (
	"context"
	"testing"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

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
