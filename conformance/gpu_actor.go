package conformance

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// Mailboxes of the kernel actor tests: 4 slots of 256 bytes, so that
// messages of several slots and credit waits are common.
var actorSlots = []actors.MailboxOption{actors.Slots(4), actors.SlotSize(256)}

// kernelSlots are actorSlots with a lane per PE of pe's world: kernels
// find a sender's slots by its id (actors.Lanes).
func kernelSlots(pe *pgas.PE) []actors.MailboxOption {
	return append([]actors.MailboxOption{actors.Lanes(pe.NumPEs())}, actorSlots...)
}

// actorMsg is the i-th message from PE from: its size cycles over one
// byte, a slot and one more, and several slots.
func actorMsg(from, i int) []byte {
	sizes := []int{1, 8, 240, 241, 700}
	return seq(sizes[i%len(sizes)], func(k int) byte { return byte(k*3 + i*7 + from) })
}

// startEcho starts kernelActorEcho on pe as its actor on mb.
func startEcho(ctx context.Context, pe *pgas.PE, mb *actors.Mailbox) (*actors.KernelActor, func(), error) {
	const cap = 4096
	return startActor(ctx, pe, mb, kernelActorEcho, 128, cap, func(buf device.Ptr) []uint64 { return []uint64{uint64(buf), cap} })
}

// startActor starts kernel name, one block of threads threads, on pe as
// its actor on mb, with args(buf) after the heap and the actor, buf
// being bufBytes of device memory that free releases once the actor has
// returned.
func startActor(ctx context.Context, pe *pgas.PE, mb *actors.Mailbox, name string, threads int, bufBytes int64,
	args func(buf device.Ptr) []uint64) (a *actors.KernelActor, free func(), err error) {
	g, err := pe.GPU()
	if err != nil {
		return nil, nil, err
	}
	fn, err := kernelOf(g, name)
	if err != nil {
		return nil, nil, err
	}
	buf, err := g.Context().Alloc(bufBytes)
	if err != nil {
		return nil, nil, err
	}
	free = func() { _ = g.Context().Free(buf) }
	if a, err = actors.StartKernel(ctx, mb, nil, fn, device.D1(1), device.D1(threads), args(buf)...); err != nil {
		free()
		return nil, nil, err
	}
	return a, free, nil
}

// echoed sends PE 0 count messages actorMsg(seed, i) from a helper
// goroutine and checks that PE 0 echoes each once, in order.
func echoed(ctx context.Context, pe *pgas.PE, mb *actors.Mailbox, count, seed int) error {
	sent := make(chan error, 1)
	pe.Go(func(ctx context.Context) {
		for i := range count {
			if err := mb.Send(ctx, 0, actorMsg(seed, i)); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	})
	for i := range count {
		m, err := mb.Recv(ctx)
		if err != nil {
			return err
		}
		if want := actorMsg(seed, i); m.From != 0 || !bytes.Equal(m.Data, want) {
			return fmt.Errorf("echo %d from PE %d: %d bytes %v…, want %d bytes", i, m.From, len(m.Data), head(m.Data), len(want))
		}
	}
	return <-sent
}

// A kernel actor on PE 0 echoes every other PE's messages (Go senders),
// each sender's in order and exactly once, messages of several slots
// included; Stop then ends it. In the large worlds every sender's
// message sizes come round once, and the senders' Recv calls are as many
// waits at once.
func (ck *kit) testKernelActorEcho(t *testing.T) {
	for _, n := range ck.worldSizes(3, 8, 64) {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ck.needGPUs(t, n)
			count := 60
			if large(n) {
				count = 5
			}
			var echoedBy atomic.Int64 // senders done, for the log of a slow large world
			start := time.Now()
			stop := progress(t, large(n), func() string { return fmt.Sprintf("%d of %d senders echoed", echoedBy.Load(), n-1) })
			defer stop()
			ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
				mb := must(actors.NewMailbox(ctx, pe, kernelSlots(pe)...))
				if pe.ID() == 0 {
					a, free, err := startEcho(ctx, pe, mb)
					if err != nil {
						return err
					}
					defer free()
					check(pe.Barrier(ctx)) // every sender has its echoes
					return a.Stop(ctx)
				}
				check(echoed(ctx, pe, mb, count, pe.ID()))
				echoedBy.Add(1)
				return pe.Barrier(ctx)
			})
			t.Logf("%d PEs: %d messages echoed in %v", n, (n-1)*count, time.Since(start).Round(time.Millisecond))
		})
	}
}

// Stopping a kernel actor while messages arrive hands the mailbox back to
// Go with nothing lost or repeated: PE 0's Go code echoes what the kernel
// left, and PE 1 gets every echo once, in order. Then a second kernel
// takes over again from Go. PE 1 sends a round's messages once its kernel
// has started (StartKernel refuses a mailbox whose Go receiver has taken
// messages it has not yet returned, as one taking the end marker may).
func (ck *kit) testKernelActorHandover(t *testing.T) {
	ck.needGPUs(t, 2)
	const count = 80
	end := []byte("END")
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		mb := must(actors.NewMailbox(ctx, pe, kernelSlots(pe)...))
		// PE 0 tells PE 1 that round r's kernel has stopped (flag ≥ r+1):
		// only then does PE 1 send its end marker, which Go must get.
		stopped := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		started := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		if pe.ID() == 0 {
			for round := range 2 {
				a, free, err := startEcho(ctx, pe, mb)
				if err != nil {
					return err
				}
				check(pgas.SignalOp(pe, started, uint64(round+1), pgas.SignalSet, 1))
				time.Sleep(2 * time.Millisecond) // messages in flight
				err = a.Stop(ctx)
				free()
				if err != nil {
					return fmt.Errorf("round %d: Stop: %w", round, err)
				}
				check(pgas.SignalOp(pe, stopped, uint64(round+1), pgas.SignalSet, 1))
				// Go's turn: echo until PE 1's end marker of this round.
				for {
					m, err := mb.Recv(ctx)
					if err != nil {
						return err
					}
					if bytes.Equal(m.Data, end) {
						break
					}
					check(mb.Send(ctx, m.From, m.Data))
				}
			}
			return nil
		}
		for round := range 2 {
			if _, err := pgas.SignalWaitUntil(ctx, pe, started, pgas.CmpGE, uint64(round+1)); err != nil {
				return err
			}
			if err := echoed(ctx, pe, mb, count, round); err != nil {
				return fmt.Errorf("round %d: %w", round, err)
			}
			_, err := pgas.SignalWaitUntil(ctx, pe, stopped, pgas.CmpGE, uint64(round+1))
			check(err)
			check(mb.Send(ctx, 0, end))
		}
		return nil
	})
}

// A kernel actor that fails (symchan_actor_fail) fails its PE: a PE
// waiting for its echo gets a *pgas.PEError naming PE 0 and wrapping the
// kernel's *actors.KernelError, never a hang; Wait reports the same.
func (ck *kit) testKernelActorFails(t *testing.T) {
	ck.needGPUs(t, 2)
	ck.oneProcess(t)
	err := ck.runErr(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		mb := must(actors.NewMailbox(ctx, pe, kernelSlots(pe)...))
		if pe.ID() == 0 {
			a, free, err := startEcho(ctx, pe, mb)
			if err != nil {
				return err
			}
			defer free()
			err = a.Wait(ctx)
			if err == nil {
				return errors.New("the kernel returned without failing")
			}
			return err
		}
		check(mb.Send(ctx, 0, []byte("ping")))
		if _, err := mb.Recv(ctx); err != nil {
			return err
		}
		check(mb.Send(ctx, 0, []byte("FAIL")))
		_, err := mb.Recv(context.Background()) // no echo comes: the failure must end it
		var pf *pgas.PEError
		var ke *actors.KernelError
		if !errors.As(err, &pf) || pf.PE != 0 || !errors.As(err, &ke) || ke.Code != 77 {
			return fmt.Errorf("Recv after the kernel failed: %v", err)
		}
		return nil
	})
	var ke *actors.KernelError
	if !errors.As(err, &ke) || ke.PE != 0 || ke.Code != 77 {
		t.Fatalf("Run: %v", err)
	}
}

// A ring of kernel actors, one per PE, passes tokens kernel to kernel
// (messages of one and of several slots, two in flight): every token
// comes back to PE 0 once, in the order PE 0 sent them, its payload whole.
func (ck *kit) testKernelActorRing(t *testing.T) {
	for _, n := range []int{2, 4} {
		for _, size := range []int{32, 600} {
			t.Run(fmt.Sprintf("%d/size=%d", n, size), func(t *testing.T) {
				ck.needGPUs(t, n)
				ck.kernelRing(t, n, size)
			})
		}
	}
}

func (ck *kit) kernelRing(t *testing.T, n, size int) {
	const tokens, laps, window = 40, 3, 2
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		mb := must(actors.NewMailbox(ctx, pe, kernelSlots(pe)...))
		finished := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		g, err := pe.GPU()
		if err != nil {
			return err
		}
		c := g.Context()
		const cap = 4096
		logBytes := int64(8 * (tokens + 1))
		mem, err := c.Alloc(cap + logBytes)
		if err != nil {
			return err
		}
		defer c.Free(mem)
		st, err := c.NewStream()
		if err != nil {
			return err
		}
		defer st.Destroy()
		check(st.Memset(mem, 0, cap+logBytes))
		check(st.Sync())
		log := mem + cap
		fn, err := kernelOf(g, kernelActorRing)
		if err != nil {
			return err
		}
		a, err := actors.StartKernel(ctx, mb, nil, fn, device.D1(1), device.D1(128),
			uint64(mem), cap, uint64(log), tokens, uint64(laps*n), window, uint64(size))
		if err != nil {
			return err
		}
		if pe.ID() == 0 {
			ended, cancel := context.WithCancel(ctx) // Wait with it only looks
			cancel()
			got := make([]byte, logBytes)
			deadline := time.Now().Add(30 * time.Second)
			for {
				check(st.CopyOut(got[:8], log))
				if binary.LittleEndian.Uint64(got) == tokens {
					break
				}
				if time.Now().After(deadline) {
					return fmt.Errorf("%d of %d tokens came back", binary.LittleEndian.Uint64(got), tokens)
				}
				if err := a.Wait(ended); !errors.Is(err, context.Canceled) {
					return fmt.Errorf("the ring's kernel on PE 0 ended early: %v", err)
				}
				time.Sleep(time.Millisecond)
			}
			check(st.CopyOut(got, log))
			for i := range tokens {
				if id := binary.LittleEndian.Uint64(got[8+8*i:]); id != uint64(i) {
					return fmt.Errorf("arrival %d was token %d", i, id)
				}
			}
			for q := range n {
				check(pgas.SignalOp(pe, finished, 1, pgas.SignalSet, q))
			}
		}
		if _, err := pgas.SignalWaitUntil(ctx, pe, finished, pgas.CmpEQ, 1); err != nil {
			return err
		}
		return a.Stop(ctx)
	})
}
