package conformance

import (
	"context"
	"fmt"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// bumpSource is a user's kernel for testStreamGraph: a becomes d + 1.
const bumpSource = `extern "C" __global__ void bump(unsigned long long *a, const unsigned long long *d) { a[0] = d[0] + 1; }
`

// A ping-pong of kernel, put-with-signal and wait, captured once into a
// CUDA graph on each PE's Stream and replayed: each round PE 0's kernel
// adds 1 to what PE 1 sent and puts it back with a signal, and PE 1 does
// the same after waiting. A signal is a count (SignalAdd 1) that the
// waiter takes back (an atomic add of -1 on the stream), so that every
// replay waits for the same value.
func (ck *kit) testStreamGraph(t *testing.T) {
	ck.needGPUs(t, 2)
	prog := compile(t, "bump.cu", bumpSource)
	const rounds = 50
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		me, other := pe.ID(), 1-pe.ID()
		g := must(pe.GPU())
		mod := must(g.Load(prog))
		st := must(pgas.NewStream(pe))
		a := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		d := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		sig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		check(pe.Barrier(ctx))
		ds := st.Device()
		wait := func() {
			check(pgas.SignalWaitUntilOnStream(st, sig, pgas.CmpGE, 1))
			check(pgas.AtomicFetchAddOnStream(st, pgas.Sym[uint64]{}, sig, ^uint64(0), me))
		}
		check(ds.BeginCapture())
		if me == 1 {
			wait()
		}
		check(pgas.LaunchOnStream(st, mod, "bump", device.D1(1), device.D1(1), 0, a, d))
		check(pgas.PutSignalOnStream(st, d, a, sig, 1, pgas.SignalAdd, other))
		if me == 0 {
			wait()
		}
		graph := must(ds.EndCapture())
		for range rounds {
			check(graph.Launch(ds))
		}
		check(st.Sync(ctx))
		check(graph.Destroy())
		check(pe.Barrier(ctx))
		v := make([]uint64, 1)
		check(pgas.Get(pe, v, d, me))
		// PE 1 receives 1, 3, 5, …, PE 0 2, 4, 6, …
		if want := uint64(2*rounds - me); v[0] != want {
			return fmt.Errorf("PE %d: d = %d after %d replays, want %d", me, v[0], rounds, want)
		}
		return st.Close(ctx)
	})
}
