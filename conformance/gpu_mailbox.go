package conformance

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// A kernel on PE 1 receives from a Go Chan[uint64] on PE 0 and sends the
// values back, plus 1000, with the device mailbox routines of symchan.cuh:
// the Go wire format both ways, through more messages than there are
// slots (credits flow both ways).
func (ck *kit) testDeviceMailboxEcho(t *testing.T) {
	ck.needGPUs(t, 2)
	const count = 200
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		ch, err := actors.NewChan[uint64](ctx, pe, actors.Lanes(pe.NumPEs()))
		if err != nil {
			return err
		}
		if pe.ID() == 1 {
			b, err := runKernel(pe, kernelMailboxEcho, 1,
				[]region{{actors.DeviceMailboxSize, must(ch.Mailbox().Device()).Bytes()}, {mboxOutBytes(pe.NumPEs()), nil}, {mboxInBytes(pe.NumPEs()), nil}, {8, nil}},
				func(at []device.Ptr) []uint64 {
					return []uint64{uint64(at[0]), uint64(at[1]), uint64(at[2]), 0, count, 1000, uint64(at[3])}
				}, 3)
			return kernelStatus(kernelMailboxEcho, b, err)
		}
		sent := make(chan error, 1)
		pe.Go(func(ctx context.Context) {
			for i := range uint64(count) {
				if err := ch.Send(ctx, 1, i); err != nil {
					sent <- err
					return
				}
			}
			sent <- nil
		})
		for i := range uint64(count) {
			v, err := ch.Recv(ctx)
			if err != nil {
				return err
			}
			if v != i+1000 {
				return fmt.Errorf("echo %d: got %d, want %d", i, v, i+1000)
			}
		}
		return <-sent
	})
}

// A warp (3 PEs) or a block of 128 threads (8, 64 PEs and the large
// worlds) on PE 0 receives from every other PE's Go Chan[uint64] at once
// with symchan_mailbox_recv_any_warp / _block: each sender's values
// arrive once, in order, reported with the right sender, through more
// messages than there are slots, until every sender's close marker.
func (ck *kit) testDeviceMailboxFanIn(t *testing.T) {
	for _, n := range ck.worldSizes(3, 8, 64) {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ck.needGPUs(t, n)
			count, opts := 100, []actors.MailboxOption(nil)
			if large(n) {
				count, opts = 12, []actors.MailboxOption{actors.Slots(4), actors.SlotSize(64)}
			}
			ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
				ch, err := actors.NewChan[uint64](ctx, pe, append(opts, actors.Lanes(pe.NumPEs()))...)
				if err != nil {
					return err
				}
				if pe.ID() != 0 {
					for i := range uint64(count) {
						if err := ch.Send(ctx, 0, uint64(pe.ID())<<32|i); err != nil {
							return err
						}
					}
					return ch.Close(ctx)
				}
				threads := 32
				if n > 3 {
					threads = 128
				}
				return runFanIn(pe, ch, count, threads)
			})
		})
	}
}

// runFanIn runs mailbox_fanin with a block of threads threads on pe's GPU
// against ch's inbox and reports its verdict.
func runFanIn(pe *pgas.PE, ch *actors.Chan[uint64], count, threads int) error {
	b, err := runKernel(pe, kernelMailboxFanIn, threads,
		[]region{{actors.DeviceMailboxSize, must(ch.Mailbox().Device()).Bytes()}, {mboxInBytes(pe.NumPEs()), nil}, {8 * int64(pe.NumPEs()), nil}, {8, nil}},
		func(at []device.Ptr) []uint64 {
			return []uint64{uint64(at[0]), uint64(at[1]), uint64(count), uint64(at[3]), uint64(at[2])}
		}, 3)
	return kernelStatus(kernelMailboxFanIn, b, err)
}

// A block on PE 1 echoes a Go Mailbox's messages of every size around the
// slot's edges (empty, one byte, a slot's payload and one more, several
// slots) with symchan_mailbox_recv_any_block and _send_block: chunks are
// joined and cut in the Go wire format both ways, through 4 slots of 256
// bytes (credits flow both ways), and each side's close reaches the other.
func (ck *kit) testDeviceMailboxChunks(t *testing.T) {
	ck.needGPUs(t, 2)
	const slot = 256
	const cap = slot - 16
	sizes := []int{0, 1, cap - 1, cap, cap + 1, 2 * cap, 2*cap + 1, 1000, 3000, 8}
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		mb, err := actors.NewMailbox(ctx, pe, actors.Lanes(pe.NumPEs()), actors.Slots(4), actors.SlotSize(slot))
		if err != nil {
			return err
		}
		if pe.ID() == 1 {
			return runEchoBlock(pe, mb, 4096)
		}
		msg := func(i, n int) []byte { return seq(n, func(k int) byte { return byte(k*7 + i) }) }
		sent := make(chan error, 1)
		pe.Go(func(ctx context.Context) {
			for i, n := range sizes {
				if err := mb.Send(ctx, 1, msg(i, n)); err != nil {
					sent <- err
					return
				}
			}
			sent <- mb.Close(ctx)
		})
		for i, n := range sizes {
			m, err := mb.Recv(ctx)
			if err != nil {
				return fmt.Errorf("echo %d: %w", i, err)
			}
			if m.From != 1 || !bytes.Equal(m.Data, msg(i, n)) {
				return fmt.Errorf("echo %d from PE %d: %d bytes, want %d bytes %v…", i, m.From, len(m.Data), n, head(msg(i, n)))
			}
		}
		if err := <-sent; err != nil {
			return err
		}
		if _, err := mb.Recv(ctx); !errors.Is(err, actors.ErrClosed) {
			return fmt.Errorf("after both closed: %v", err)
		}
		return nil
	})
}

// runEchoBlock runs mailbox_echo_block (128 threads) on pe's GPU against
// mb towards PE 0, with a buffer of cap bytes.
func runEchoBlock(pe *pgas.PE, mb *actors.Mailbox, cap int) error {
	b, err := runKernel(pe, kernelMailboxEchoBlock, 128,
		[]region{{actors.DeviceMailboxSize, must(mb.Device()).Bytes()}, {mboxOutBytes(pe.NumPEs()), nil}, {mboxInBytes(pe.NumPEs()), nil}, {8, nil}, {int64(cap), nil}},
		func(at []device.Ptr) []uint64 {
			return []uint64{uint64(at[0]), uint64(at[1]), uint64(at[2]), 0, uint64(at[4]), uint64(cap), uint64(at[3])}
		}, 3)
	return kernelStatus(kernelMailboxEchoBlock, b, err)
}

// Every thread, then every warp, of a block on PE 1 sends to PE 0 at once
// through one shared sending state (symchan_mailbox_send_mp, _mp_warp):
// each sender's messages (of one slot, a slot and one byte, several
// slots) arrive whole, once, in its order, interleaved with the others',
// through 8 slots of 256 bytes, then the close marker. PE 0 takes them
// with its Go Mailbox, or with a warp or a block of a kernel taking runs
// of them at once (symchan_mailbox_recv_many_warp, _block) after the
// senders are done; and the threads or warps send as PE 1's kernel actor
// (symchan_actor_send_mp, _mp_warp) before PE 0 takes them. With PEs
// sharing a GPU a kernel that waits for the other PE's kernel, or for its
// stream work, runs only where the driver puts their streams on different
// hardware queues, so the kernel and actor cases give the senders a slot
// for every message.
func (ck *kit) testDeviceMailboxManySenders(t *testing.T) {
	ck.needGPUs(t, 2)
	for _, c := range []struct {
		name           string
		warp, actor    bool // warps send (else threads); they send as PE 1's actor
		threads, count int
		recvThreads    int // PE 0's receiving kernel's block: a warp or more; 0: Go receives
	}{
		{"threads", false, false, 128, 20, 0},
		{"warps", true, false, 256, 40, 0},
		{"warps-to-kernel", true, false, 256, 40, 32},
		{"warps-to-block", true, false, 256, 40, 128},
		{"warps-as-actor", true, true, 256, 40, 0},
		{"threads-as-actor", false, true, 128, 20, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			senders := c.threads
			if c.warp {
				senders /= 32
			}
			kernel := c.recvThreads > 0
			slots := 8
			if kernel || c.actor {
				slots = 3 * senders * c.count // every message, 600 bytes in 3 slots at most
			}
			ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
				mb, err := actors.NewMailbox(ctx, pe, actors.Lanes(pe.NumPEs()), actors.Slots(slots), actors.SlotSize(256))
				if err != nil {
					return err
				}
				desc := region{actors.DeviceMailboxSize, must(mb.Device()).Bytes()}
				if pe.ID() == 1 && c.actor {
					if err := sendAsActor(ctx, pe, mb, senders, c.count, c.warp); err != nil {
						return err
					}
					return pe.Barrier(ctx) // sent: PE 0 may receive
				}
				if pe.ID() == 1 {
					warp := uint64(0)
					if c.warp {
						warp = 1
					}
					_, err := runKernel(pe, kernelMailboxSendMP, c.threads,
						[]region{desc, {mboxOutBytes(pe.NumPEs()), nil}, {int64(608 * senders), nil}},
						func(at []device.Ptr) []uint64 {
							return []uint64{uint64(at[0]), uint64(at[1]), 0, uint64(c.count), warp, uint64(at[2])}
						}, 1)
					if err != nil || !kernel {
						return err
					}
					return pe.Barrier(ctx) // sent: PE 0's kernel may start
				}
				if err := mb.Close(ctx); err != nil { // PE 0's own side: its inbox ends after PE 1's close
					return err
				}
				if c.actor {
					if err := pe.Barrier(ctx); err != nil {
						return err
					}
				}
				if !kernel {
					return checkManySenders(ctx, mb, senders, c.count)
				}
				if err := pe.Barrier(ctx); err != nil {
					return err
				}
				b, err := runKernel(pe, kernelMailboxRecvManyCheck, c.recvThreads,
					[]region{desc, {mboxInBytes(pe.NumPEs()), nil}, {8, nil}, {int64(8 * senders), nil}, {int64(c.recvThreads * 608), nil}},
					func(at []device.Ptr) []uint64 {
						return []uint64{uint64(at[0]), uint64(at[1]), uint64(senders), uint64(c.count), uint64(at[2]), uint64(at[3]), uint64(at[4])}
					}, 2)
				return kernelStatus(kernelMailboxRecvManyCheck, b, err)
			})
		})
	}
}

// sendAsActor runs kernelActorSendMP, senders warps (or, without warp,
// threads) each sending count messages to PE 0, as pe's actor on mb until
// it returns.
func sendAsActor(ctx context.Context, pe *pgas.PE, mb *actors.Mailbox, senders, count int, warp bool) error {
	threads, warpArg := senders, uint64(0)
	if warp {
		threads, warpArg = 32*senders, 1
	}
	a, free, err := startActor(ctx, pe, mb, kernelActorSendMP, threads, int64(608*senders),
		func(buf device.Ptr) []uint64 { return []uint64{0, uint64(count), warpArg, uint64(buf)} })
	if err != nil {
		return err
	}
	defer free()
	return a.Wait(ctx)
}

// checkManySenders receives until ErrClosed and checks what
// mailbox_send_mp sent: count messages from each of senders senders.
func checkManySenders(ctx context.Context, mb *actors.Mailbox, senders, count int) error {
	next := make([]int, senders)
	for got := 0; ; got++ {
		m, err := mb.Recv(ctx)
		if errors.Is(err, actors.ErrClosed) {
			for g, n := range next {
				if n != count {
					return fmt.Errorf("sender %d: %d of %d messages arrived", g, n, count)
				}
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("after %d messages: %w", got, err)
		}
		if m.From != 1 || len(m.Data) < 8 {
			return fmt.Errorf("message %d: %d bytes from PE %d", got, len(m.Data), m.From)
		}
		id := binary.LittleEndian.Uint64(m.Data)
		g, i := int(id>>32), int(uint32(id))
		if g >= senders {
			return fmt.Errorf("message %d: from sender %d of %d", got, g, senders)
		}
		if i != next[g] {
			return fmt.Errorf("message %d: sender %d's message %d, want its message %d", got, g, i, next[g])
		}
		want := mpSize(g, i)
		if len(m.Data) != want {
			return fmt.Errorf("sender %d's message %d: %d bytes, want %d", g, i, len(m.Data), want)
		}
		for k := 8; k < want; k++ {
			if m.Data[k] != byte(3*k+7*g+i) {
				return fmt.Errorf("sender %d's message %d: byte %d is %d, want %d", g, i, k, m.Data[k], byte(3*k+7*g+i))
			}
		}
		next[g]++
	}
}

// mpSize is mailbox_send_mp's mp_size: the bytes of sender g's message i.
func mpSize(g, i int) int { return []int{8, 240, 241, 600}[(g+i)%4] }
