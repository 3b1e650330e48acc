package main

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"hash/crc32"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

// The ring's kernel actor, ring.cu, compiled when first loaded
// (kernels.Compile).
//
//go:embed ring.cu
var ringSource string

// Actor modes (-actors): which PEs run as kernels.
const (
	actorsGo     = "go"     // every PE is Go code
	actorsKernel = "kernel" // every PE is a kernel actor: no host in a hop
	actorsMixed  = "mixed"  // odd PEs are kernels, even ones Go: Go ↔ kernel hops
)

// isKernel reports whether PE me runs as a kernel actor in mode.
func isKernel(mode string, me int) bool {
	return mode == actorsKernel || (mode == actorsMixed && me%2 == 1)
}

// Threads per block of ring_actor; block 0 is the actor, and every block
// copies a share of each payload it fetches.
const kernelThreads = 512

// kernelBlocks is the grid of each ring_actor when -kernel-blocks is 0:
// the blocks share the payload copies, and every PE's kernel must stay
// resident beside the others on its GPU (and the backend's agent), so a
// PE gets a quarter of its share of the SMs, between 1 and 32 blocks.
func kernelBlocks(g pgas.GPU, npes int) int {
	gpus, err := device.Count()
	info, err2 := device.Describe(g.Context().Ordinal())
	if err != nil || err2 != nil || gpus < 1 {
		return 1
	}
	share := (npes + gpus - 1) / gpus
	return min(max(info.SMs/(4*share), 1), 32)
}

// ringLogOff is where ring_actor's timing log starts in its scratch
// memory, after the job its blocks share.
const ringLogOff = 64

// kernelPE is what a PE that runs as a kernel actor keeps across sizes:
// the kernel, its scratch memory and a stream of its own to reach it (a
// context-wide copy would wait for every actor running on the GPU).
type kernelPE struct {
	pe      *pgas.PE
	fn      *device.Function
	ctx     *device.Context
	st      *device.Stream
	scratch device.Ptr
	laps    int
}

// newKernelPE prepares pe to run laps laps per size as a kernel actor.
func newKernelPE(pe *pgas.PE, laps int) (*kernelPE, error) {
	g, err := pe.GPU()
	if err != nil {
		return nil, err
	}
	k := &kernelPE{pe: pe, ctx: g.Context(), laps: laps}
	mod, err := pgas.LoadSource(pe, "ring.cu", ringSource, kernels.CompileOptions{})
	if err != nil {
		return nil, err
	}
	if k.fn, err = mod.Function("ring_actor"); err != nil {
		return nil, err
	}
	if k.st, err = k.ctx.NewStream(); err != nil {
		return nil, err
	}
	if k.scratch, err = k.ctx.Alloc(k.scratchBytes()); err != nil {
		_ = k.st.Destroy()
		return nil, err
	}
	return k, nil
}

func (k *kernelPE) scratchBytes() int64 { return int64(ringLogOff + 8*(kernels.TimingWords+k.laps)) }

// close frees what newKernelPE allocated; no actor of the GPU may run.
func (k *kernelPE) close() {
	_ = k.ctx.Free(k.scratch)
	_ = k.st.Destroy()
}

// start starts one size's laps on this PE as a kernel actor on ch's
// mailbox (ring.cu's ring_actor), the first of round round.
func (k *kernelPE) start(ctx context.Context, ch *actors.Chan[hop], payload pgas.Sym[byte], round uint64, blocks int, crc uint32) (*actors.KernelActor, error) {
	if err := k.st.Memset(k.scratch, 0, k.scratchBytes()); err != nil {
		return nil, err
	}
	if err := k.st.Sync(); err != nil {
		return nil, err
	}
	return actors.StartKernel(ctx, ch.Mailbox(), nil, k.fn, device.D1(blocks), device.D1(kernelThreads),
		uint64(payload.Offset()), uint64(payload.Bytes()), round, uint64(k.laps), uint64(crc), uint64(k.scratch))
}

// finish waits for a, started by start, to take its laps hops and returns;
// on PE 0, with each lap's time, read from the GPU's clock. The kernel
// checks each hop's order; the checksum of the payload it left in the
// PE's buffer is checked here, after the laps.
func (k *kernelPE) finish(ctx context.Context, a *actors.KernelActor, payload pgas.Sym[byte], round uint64, crc uint32, local []byte) ([]time.Duration, error) {
	pe, size := k.pe, payload.Bytes()
	if err := a.Wait(ctx); err != nil {
		return nil, ringKernelError(pe.ID(), round, err)
	}
	if err := pgas.Get(pe, local[:size], payload, pe.ID()); err != nil {
		return nil, err
	}
	if got := crc32.ChecksumIEEE(local[:size]); got != crc {
		return nil, fmt.Errorf("PE %d (kernel), laps %d–%d: payload checksum %08x, sent %08x", pe.ID(), round, round+uint64(k.laps)-1, got, crc)
	}
	if pe.ID() != 0 {
		return nil, nil
	}
	log := make([]byte, k.scratchBytes()-ringLogOff)
	if err := k.st.CopyOut(log, k.scratch+ringLogOff); err != nil {
		return nil, err
	}
	if err := k.st.Sync(); err != nil {
		return nil, err
	}
	return kernels.Timings(log, k.laps)
}

// ringKernelError says which check of ring_actor failed, from its code.
func ringKernelError(me int, round uint64, err error) error {
	var ke *actors.KernelError
	switch {
	case !errors.As(err, &ke):
		return err
	case ke.Code >= 2000:
		return fmt.Errorf("PE %d (kernel): a message of %d bytes is not a hop: %w", me, ke.Code-2000, err)
	case ke.Code >= 1000:
		return fmt.Errorf("PE %d (kernel): hop of lap %d out of order or of the wrong size: %w", me, round+ke.Code-1000, err)
	}
	return err
}
