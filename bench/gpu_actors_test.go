//go:build cuda

package bench

import (
	"context"
	"testing"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

// BenchmarkGPUActorPingPong: kernel actors on both GPUs (actors.StartKernel,
// kernels.ActorPingPong) pass an 8-byte message back and forth through
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
		mb, err := actors.NewMailbox(ctx, pe)
		if err != nil {
			return err
		}
		g, err := pe.GPU()
		if err != nil {
			return err
		}
		fn, err := g.Module().Function(kernels.ActorPingPong)
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
