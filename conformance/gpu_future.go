package conformance

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// ask is the request of testDeviceFutures, laid out as future_serve's
// struct ask.
type ask struct {
	X       int64
	ReplyTo actors.ReplyTo
}

// Futures across Go and kernels: Go futures on PE 0 are answered by a
// kernel on PE 1 (symchan_reply), one future past its deadline gets
// nothing written, and the kernel awaits the reply to a future armed on
// its own PE (symchan_await_reply), which Go's Await then also returns.
func (ck *kit) testDeviceFutures(t *testing.T) {
	ck.needGPUs(t, 2)
	const count = 40  // more than a mailbox's slots: credits flow
	const abandon = 5 // this request's future is abandoned before it is sent
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		sys, err := actors.NewSystem(ctx, pe)
		if err != nil {
			return err
		}
		ch, err := actors.NewChan[ask](ctx, pe, actors.Lanes(pe.NumPEs()))
		if err != nil {
			return err
		}
		if pe.ID() == 1 {
			mine, err := actors.NewFuture[int64](sys)
			if err != nil {
				return err
			}
			got, abandoned, err := runFutureServe(pe, ch, sys, mine.ReplyTo(), count)
			if err != nil {
				return err
			}
			if abandoned != 1 {
				return fmt.Errorf("%d replies found their future abandoned, want 1", abandoned)
			}
			v, err := mine.Await(ctx)
			if err != nil || got != 42 || v != 42 {
				return fmt.Errorf("the kernel's future: kernel saw %d, Await %d, %v", got, v, err)
			}
			return nil
		}
		futures := make([]*actors.Future[int64], count)
		for i := range futures {
			if futures[i], err = actors.NewFuture[int64](sys); err != nil {
				return err
			}
			to := futures[i].ReplyTo()
			if i == abandon {
				futures[i].Abandon()
			}
			if err := ch.Send(ctx, 1, ask{X: int64(i + 2), ReplyTo: to}); err != nil {
				return err
			}
		}
		q, err := ch.Recv(ctx) // the kernel's own request
		if err != nil {
			return err
		}
		if err := actors.Reply(sys, q.ReplyTo, q.X+2); err != nil {
			return err
		}
		for i, f := range futures {
			if i == abandon {
				continue
			}
			v, err := f.Await(ctx)
			if err != nil {
				return fmt.Errorf("future %d: %w", i, err)
			}
			if want := int64((i + 2) * (i + 2)); v != want {
				return fmt.Errorf("future %d: %d, want %d", i, v, want)
			}
		}
		return nil
	})
}

// runFutureServe runs future_serve on pe's GPU (serving count requests
// from PE 0 on ch, then asking PE 0 with the future at mine) and returns
// the reply the kernel awaited and how many of its replies found their
// future abandoned.
func runFutureServe(pe *pgas.PE, ch *actors.Chan[ask], sys *actors.System, mine actors.ReplyTo, count int) (got int64, abandoned uint64, err error) {
	rt := make([]byte, 16)
	binary.LittleEndian.PutUint32(rt[0:], uint32(mine.PE))
	binary.LittleEndian.PutUint32(rt[4:], mine.Slot)
	binary.LittleEndian.PutUint64(rt[8:], mine.Gen)
	b, err := runKernel(pe, kernelFutureServe, 1, []region{
		{actors.DeviceMailboxSize, must(ch.Mailbox().Device()).Bytes()}, {actors.DeviceSystemSize, sys.Device().Bytes()},
		{mboxOutBytes(pe.NumPEs()), nil}, {mboxInBytes(pe.NumPEs()), nil}, {32, nil}, {16, rt},
	}, func(at []device.Ptr) []uint64 {
		return []uint64{uint64(at[0]), uint64(at[1]), uint64(at[2]), uint64(at[3]), 0, uint64(count), uint64(at[5]), uint64(at[4])}
	}, 4)
	if err := kernelStatus(kernelFutureServe, b, err); err != nil {
		return 0, 0, err
	}
	return int64(binary.LittleEndian.Uint64(b[8:])), binary.LittleEndian.Uint64(b[16:]), nil
}
