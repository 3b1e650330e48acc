package pgas

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/symchan/symchan/device"
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

// A GPU collective's launch shape (launchParts): one kernel below
// gridBytes landing on a member, or wherever PEs share a GPU's context,
// else an opening kernel, the data on gridBlocks blocks and a closing
// kernel.
func TestLaunchParts(t *testing.T) {
	// One context (device.Context may be of size zero without the cuda
	// tag: two new ones need not differ).
	one := new(device.Context)
	for _, c := range []struct {
		name   string
		ctxPEs map[*device.Context]int
		moved  int64
		want   string
	}{
		{"small", map[*device.Context]int{one: 1}, gridBytes - 1, "1:whole"},
		{"large", map[*device.Context]int{one: 1}, gridBytes, "1:open 64:data 1:close"},
		{"large, a GPU shared", map[*device.Context]int{one: 2}, 1 << 30, "1:whole"},
		{"host", nil, gridBytes, "1:open 64:data 1:close"},
	} {
		var got []string
		names := map[uint64]string{partWhole: "whole", partOpen: "open", partData: "data", partClose: "close"}
		err := launchParts(&World{ctxPEs: c.ctxPEs}, c.moved, func(blocks int, part uint64) error {
			got = append(got, fmt.Sprintf("%d:%s", blocks, names[part]))
			return nil
		})
		if s := strings.Join(got, " "); err != nil || s != c.want {
			t.Errorf("%s: launched %q (%v), want %q", c.name, s, err, c.want)
		}
	}
}
