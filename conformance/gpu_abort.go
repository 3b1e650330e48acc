package conformance

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// When a PE fails, the waits that the other PEs' GPUs run on their own end
// (the world's abort word, driver.AbortTransport): a device collective in
// a user's kernel returns SYMCHAN_ERR_ABORTED to every thread, a kernel's
// mailbox receive SYMCHAN_MBOX_ABORTED, a kernel actor ends; the PEs'
// calls return the failing PE's error, and Run returns. Each world here
// would wait on the GPU for good without it, and so would every later
// world of the process.
func (ck *kit) testGPUWaitsEndWhenWorldFails(t *testing.T) {
	n := max(2, ck.procs())
	failing := n - 1
	ck.needGPUs(t, n)
	// failsLater is the failing PE's part: it lets the others wait first.
	failsLater := func() error {
		time.Sleep(50 * time.Millisecond)
		return errors.New("boom")
	}
	// ended runs fn in a world of n PEs and checks that Run ends with the
	// failing PE's error and that no PE's own check failed.
	ended := func(t *testing.T, fn func(ctx context.Context, pe *pgas.PE) error) {
		t.Helper()
		start := time.Now()
		err := ck.runErr(t, n, func(ctx context.Context, pe *pgas.PE) error {
			if pe.ID() == failing {
				return failsLater()
			}
			return fn(ctx, pe)
		})
		if err == nil || !strings.Contains(err.Error(), "boom") {
			t.Fatalf("Run = %v, want the failing PE's error", err)
		}
		if strings.Contains(err.Error(), "check:") {
			t.Fatalf("a PE's check failed: %v", err)
		}
		t.Logf("Run ended %v after it started", time.Since(start).Round(time.Millisecond))
	}

	t.Run("device collective", func(t *testing.T) {
		prog := compile(t, "mismatch.cu", mismatchSource)
		ended(t, func(ctx context.Context, pe *pgas.PE) error {
			g := must(pe.GPU())
			mod := must(g.Load(prog))
			src := must(pgas.AllocZeroed[int64](ctx, pe, 8))
			dst := must(pgas.AllocZeroed[int64](ctx, pe, 8))
			res := must(pgas.AllocZeroed[int32](ctx, pe, 2))
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			st := must(pgas.NewStream(pe))
			defer st.Close(context.Background())
			check(pgas.LaunchOnStream(st, mod, "reduce_n", device.D1(1), device.D1(64), 0, g.HeapDescriptor(), pe.TeamWorld(), dst, src, 8, res))
			err := st.Sync(context.Background())
			var pf *pgas.PEError
			if !errors.As(err, &pf) || pf.PE != failing {
				return fmt.Errorf("check: Sync = %v, want PE %d's *PEError", err, failing)
			}
			// The kernel itself ends: the device's own wait for it returns,
			// and both of its collectives say they were cut short.
			if err := st.Device().Sync(); err != nil {
				return fmt.Errorf("check: the stream: %v", err)
			}
			b := make([]byte, 8)
			if err := st.Device().CopyOut(b, g.Addr(pe.ID(), res.Offset())); err != nil {
				return fmt.Errorf("check: reading the results: %v", err)
			}
			if r, bar := int32(binary.LittleEndian.Uint32(b)), int32(binary.LittleEndian.Uint32(b[4:])); r != 2 || bar != 2 {
				return fmt.Errorf("check: the kernel's reduction and barrier returned %d, %d, want SYMCHAN_ERR_ABORTED (2) twice", r, bar)
			}
			return err
		})
	})

	t.Run("device mailbox receive", func(t *testing.T) {
		const count = 10
		ended(t, func(ctx context.Context, pe *pgas.PE) error {
			ch := must(actors.NewChan[uint64](ctx, pe, actors.Lanes(pe.NumPEs())))
			if pe.ID() != 0 {
				return pe.Barrier(ctx)
			}
			// PE 0's kernel echoes count values from the failing PE, which
			// sends none: the receive ends, through the device's own wait
			// (runKernel syncs the stream, without a context).
			b, err := runKernel(pe, kernelMailboxEcho, 1,
				[]region{{actors.DeviceMailboxSize, must(ch.Mailbox().Device()).Bytes()}, {mboxOutBytes(pe.NumPEs()), nil}, {mboxInBytes(pe.NumPEs()), nil}, {8, nil}},
				func(at []device.Ptr) []uint64 {
					return []uint64{uint64(at[0]), uint64(at[1]), uint64(at[2]), uint64(failing), count, 1000, uint64(at[3])}
				}, 3)
			if err := kernelStatus(kernelMailboxEcho, b, err); err == nil || !strings.Contains(err.Error(), "failed: 1000000") {
				return fmt.Errorf("check: the receiving kernel: %v, want it to end at its first receive (status 1000000)", err)
			}
			return pe.Barrier(ctx)
		})
	})

	t.Run("kernel actor receive", func(t *testing.T) {
		ended(t, func(ctx context.Context, pe *pgas.PE) error {
			mb := must(actors.NewMailbox(ctx, pe, kernelSlots(pe)...))
			if pe.ID() != 0 {
				return pe.Barrier(ctx)
			}
			_, free, err := startEcho(ctx, pe, mb)
			if err != nil {
				return err
			}
			defer free() // waits for the kernel
			return pe.Barrier(context.Background())
		})
	})
}
