package pgas

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A host stream runs its routines in order: a wait holds the ones behind
// it (Sync ends with its context meanwhile, and the stream goes on); a
// routine that fails at run time fails the stream, which skips the rest
// and reports the error from Sync and Close.
func TestHostStreamOrderAndFailure(t *testing.T) {
	err := Run(context.Background(), Config{Backend: "host", PEs: 1, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
		st, err := NewStream(pe)
		if err != nil {
			return err
		}
		if st.Device() != nil {
			t.Error("a host stream has a device stream")
		}
		gate, _ := AllocZeroed[uint64](ctx, pe, 1)
		src, _ := AllocZeroed[int64](ctx, pe, 4)
		dst, _ := AllocZeroed[int64](ctx, pe, 4)
		if err := Put(pe, src, []int64{1, 2, 3, 4}, 0); err != nil {
			return err
		}
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(SignalWaitUntilOnStream(st, gate, CmpEQ, 7))
		must(PutOnStream(st, dst, src, 0))
		short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		defer cancel()
		if err := st.Sync(short); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Sync while a wait holds the stream: %v, want the context's deadline", err)
		}
		got := make([]int64, 4)
		must(Get(pe, got, dst, 0))
		if got[0] != 0 {
			t.Errorf("the put ran before the wait ahead of it: %v", got)
		}
		must(SignalOp(pe, gate, 7, SignalSet, 0))
		must(st.Sync(ctx))
		must(Get(pe, got, dst, 0))
		if got[3] != 4 {
			t.Errorf("after Sync, dst = %v, want src", got)
		}

		// A put into memory freed before it runs fails the stream.
		must(SignalWaitUntilOnStream(st, gate, CmpEQ, 8))
		must(PutOnStream(st, dst, src, 0))
		must(SignalOpOnStream(st, gate, 100, SignalSet, 0))
		must(Free(ctx, pe, dst))
		must(SignalOp(pe, gate, 8, SignalSet, 0))
		if err := st.Sync(ctx); err == nil {
			t.Error("Sync after a put into freed memory: no error")
		}
		v := make([]uint64, 1)
		must(Get(pe, v, gate, 0))
		if v[0] != 8 {
			t.Errorf("the signal behind the failed put ran: gate = %d", v[0])
		}
		if err := st.Close(ctx); err == nil {
			t.Error("Close of a failed stream: no error")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
