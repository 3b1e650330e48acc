package actors

import (
	"context"
	"testing"

	"github.com/symchan/symchan/pgas"
)

func TestZZAfterRun(t *testing.T) {
	var kept *Chan[int]
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 1, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		ch, err := NewChan[int](ctx, pe)
		kept = ch
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	_, ok, err := kept.TryRecv()
	t.Logf("TryRecv after Run: ok %v err %v", ok, err)
	err = kept.TrySend(0, 1)
	t.Logf("TrySend after Run: %v", err)
	_, err = kept.Recv(context.Background())
	t.Logf("Recv after Run: %v", err)
}
