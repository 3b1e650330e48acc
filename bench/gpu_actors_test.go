//go:build cuda

package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

// BenchmarkGPUActorPingPong: kernel actors on both GPUs (actors.StartKernel,
// bench_actor_pingpong) pass an 8-byte message back and forth through
// their mailboxes, with no host in the loop: the device-actor hop (issue
// 18) beside the device put-with-signal ping-pong
// (BenchmarkGPUDevicePingPong/kind=put-signal-8B) and NVSHMEM's
// (bench/anchors). Half round trips, timed on PE 0's GPU; reps runs of
// iters round trips, the first two runs warm-up.
//
// impl=symchan-kernel-actor keeps the actors' state in global memory;
// impl=symchan-kernel-actor-local works on shared-memory copies
// (symchan_actor_enter in kernels/symchan.cuh).
func BenchmarkGPUActorPingPong(b *testing.B) {
	for _, local := range []bool{false, true} {
		impl := "symchan-kernel-actor"
		if local {
			impl += "-local"
		}
		actorPingPong(b, local).reportImpl(b, impl, "us/half-RT")
	}
}

// actorPingPong runs BenchmarkGPUActorPingPong's ping-pong; local: the
// actors' state in shared memory.
func actorPingPong(b *testing.B, local bool) latencies {
	const iters, reps = 5000, 7
	var half latencies
	gpuWorld(b, 64<<20, func(ctx context.Context, pe *pgas.PE) error {
		mb, err := actors.NewMailbox(ctx, pe, actors.Lanes(pe.NumPEs()))
		if err != nil {
			return err
		}
		g, err := pe.GPU()
		if err != nil {
			return err
		}
		fn, err := benchKernel(g, kernelActorPingPong)
		if err != nil {
			return err
		}
		// The log is read through a stream of its own: a context-wide copy
		// would wait for the other PE's actor, which runs on.
		c := g.Context()
		st, err := c.NewStream()
		if err != nil {
			return err
		}
		defer st.Destroy()
		log := make([]byte, 8*(kernels.TimingWords+iters))
		mem, err := c.Alloc(int64(len(log)))
		if err != nil {
			return err
		}
		defer c.Free(mem) // after the last barrier: no actor runs
		for rep := range reps {
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			flag := uint64(0)
			if local {
				flag = 1
			}
			a, err := actors.StartKernel(ctx, mb, nil, fn, device.D1(1), device.D1(32), iters, uint64(mem), flag)
			if err != nil {
				return err
			}
			if pe.ID() == 0 { // PE 0's kernel returns after its round trips
				if err := a.Wait(ctx); err != nil {
					return err
				}
			}
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			if pe.ID() != 0 {
				if err := a.Stop(ctx); err != nil {
					return err
				}
				continue
			}
			if rep < 2 {
				continue
			}
			if err := st.CopyOut(log, mem); err != nil {
				return err
			}
			if err := st.Sync(); err != nil {
				return err
			}
			rts, err := kernels.Timings(log, iters)
			if err != nil {
				return err
			}
			for _, rt := range rts {
				half.add(rt, 2)
			}
		}
		return pe.Barrier(ctx)
	})
	return half
}

// BenchmarkGPUActorMessageRate: warps=W warps of a kernel on PE 1 (lane 0
// of each) send 8-byte messages to a receiving kernel on PE 0, about
// 50,000 in all, every warp through PE 1's one sending state
// (symchan_mailbox_send_mp). The impls differ in the receiver and the
// mailbox:
//
//   - symchan-mp: 64 slots per sender, one receiving thread
//     (symchan_mailbox_recv_any);
//   - symchan-mp-many: 64 slots, a receiving warp taking up to 32 ready
//     messages at once (symchan_mailbox_recv_many_warp);
//   - symchan-actor-many: that warp as PE 0's actor (actors.StartKernel,
//     symchan_actor_recv_many_warp);
//   - symchan-mp-many-deep, symchan-mp-block, symchan-actor-block: 64
//     slots of 32 bytes per sending warp (the memory the anchor gives each
//     warp), taken by a warp, by a block of up to 1024 threads
//     (symchan_mailbox_recv_many_block), or by that block as PE 0's actor
//     (symchan_actor_recv_many_block);
//   - put-signal: the anchor's shape, each warp's 8-byte put-with-signal
//     (signal add) into a ring of its own with no flow control, one
//     receiving thread polling every warp's signal word until they add
//     up.
//
// Messages per second on the receiver's clock, from the end of its first
// take to its last, the first take's messages left out (as the NVSHMEM
// anchor leaves out those it first sees); ns/op is the time per message.
// The two kernels wait for each other: with the PEs sharing one GPU they
// run only if the driver puts their streams on different hardware queues
// (run it with CUDA_DEVICE_MAX_CONNECTIONS=32, as gpu-run.sh does).
func BenchmarkGPUActorMessageRate(b *testing.B) {
	for _, warps := range []int{1, 8, 64, 256} {
		b.Run(fmt.Sprintf("warps=%d", warps), func(b *testing.B) {
			for _, impl := range []rateImpl{
				{"symchan-mp", rateThread, false, false},
				{"symchan-mp-many", rateWarp, false, false},
				{"symchan-actor-many", rateWarp, true, false},
				{"symchan-mp-many-deep", rateWarp, false, true},
				{"symchan-mp-block", rateBlock, false, true},
				{"symchan-actor-block", rateBlock, true, true},
				{"put-signal", rateRaw, false, false},
			} {
				rate := messageRate(b, warps, impl)
				reportImpl(b, impl.name, 1e9/rate, rate/1e6, "Mmsg/s")
			}
		})
	}
}

// The receivers of BenchmarkGPUActorMessageRate (symchan.cu's RATE_).
const (
	rateThread = iota
	rateWarp
	rateBlock
	rateRaw // the anchor's shape: no mailbox
)

// rateImpl is one receiver of BenchmarkGPUActorMessageRate: who takes
// the messages, as PE 0's kernel actor or a plain kernel, through 64
// slots per sender or (deep) 64 per sending warp.
type rateImpl struct {
	name        string
	who         int
	actor, deep bool
}

// messageRate runs one BenchmarkGPUActorMessageRate measurement and
// returns messages per second.
func messageRate(b *testing.B, warps int, impl rateImpl) float64 {
	perWarp := max(1, 50000/warps)
	total := perWarp * warps
	opts := []actors.MailboxOption{actors.Slots(64)}
	if impl.deep {
		opts = []actors.MailboxOption{actors.Slots(64 * warps), actors.SlotSize(32)}
	}
	threads := map[int]int{rateThread: 1, rateWarp: 32, rateBlock: min(1024, 64*warps), rateRaw: 1}[impl.who]
	var rate float64
	gpuWorld(b, 64<<20, func(ctx context.Context, pe *pgas.PE) error {
		mb, err := actors.NewMailbox(ctx, pe, append(opts, actors.Lanes(pe.NumPEs()))...)
		if err != nil {
			return err
		}
		data, err := pgas.AllocZeroed[uint64](ctx, pe, 64*warps)
		if err != nil {
			return err
		}
		sig, err := pgas.AllocZeroed[uint64](ctx, pe, warps)
		if err != nil {
			return err
		}
		g, err := pe.GPU()
		if err != nil {
			return err
		}
		c := g.Context()
		st, err := c.NewStream()
		if err != nil {
			return err
		}
		defer st.Destroy()
		// The mailbox's layout, then the device side's state (zeroed: the
		// receiver's inbox or the sender's outboxes), then the receiver's
		// log.
		d, err := mb.Device()
		if err != nil {
			return err
		}
		desc := d.Bytes()
		const logBytes = 32
		state := max(actors.DeviceInboxSize(pe.NumPEs()), actors.DeviceOutboxSize*int64(pe.NumPEs()))
		mem, err := c.Alloc(int64(len(desc)) + state + logBytes)
		if err != nil {
			return err
		}
		defer c.Free(mem) // after the last barrier: no kernel runs
		if err := st.Memset(mem, 0, int64(len(desc))+state+logBytes); err != nil {
			return err
		}
		if err := st.CopyIn(mem, desc); err != nil {
			return err
		}
		stateAt, logAt := mem+device.Ptr(len(desc)), mem+device.Ptr(int64(len(desc))+state)
		rawArg := uint64(0)
		if impl.who == rateRaw {
			rawArg = 1
		}
		name := kernelRateSend
		switch {
		case pe.ID() == 0 && impl.actor:
			name = kernelRateActor
		case pe.ID() == 0:
			name = kernelRateRecv
		}
		fn, err := benchKernel(g, name)
		if err != nil {
			return err
		}
		if err := st.Sync(); err != nil {
			return err
		}
		var a *actors.KernelActor
		if pe.ID() == 0 && impl.actor {
			// Started before the senders launch: what StartKernel allocates
			// and queues could otherwise wait behind a sending kernel that
			// waits for its credit.
			block := uint64(0)
			if impl.who == rateBlock {
				block = 1
			}
			if a, err = actors.StartKernel(ctx, mb, nil, fn, device.D1(1), device.D1(threads), uint64(total), uint64(logAt), block); err != nil {
				return err
			}
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if a != nil {
			err = a.Wait(ctx)
		} else if pe.ID() == 0 {
			// (With raw the kernel reads no receiver: rateRaw passes as is.)
			err = st.Launch(fn, device.D1(1), device.D1(threads), 0, uint64(g.HeapDescriptor()), uint64(mem), uint64(stateAt),
				uint64(total), rawArg, uint64(sig.Offset()), uint64(warps), uint64(logAt), uint64(impl.who))
		} else {
			block := min(warps, 8) * 32
			err = st.Launch(fn, device.D1(warps*32/block), device.D1(block), 0, uint64(g.HeapDescriptor()), uint64(mem), uint64(stateAt),
				0, uint64(perWarp), rawArg, uint64(data.Offset()), uint64(sig.Offset()))
		}
		if err != nil {
			return err
		}
		if err := st.Sync(); err != nil {
			return err
		}
		if pe.ID() == 0 {
			log := make([]byte, logBytes)
			if err := st.CopyOut(log, logAt); err != nil {
				return err
			}
			if err := st.Sync(); err != nil {
				return err
			}
			t0, t1 := binary.LittleEndian.Uint64(log), binary.LittleEndian.Uint64(log[8:])
			got, first := binary.LittleEndian.Uint64(log[16:]), binary.LittleEndian.Uint64(log[24:])
			if got != uint64(total) || t1 <= t0 || first >= got {
				return fmt.Errorf("message rate: the receiver took %d of %d messages (a count over 1e6 is a receive error), %d in its first take, in %d ns",
					got, total, first, t1-t0)
			}
			rate = float64(got-first) / (float64(t1-t0) / 1e9)
		}
		return pe.Barrier(ctx)
	})
	return rate
}
