package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// coopSource's kernel waits across blocks and PEs: block b of each PE
// signals block b+1 (mod the grid) of the next PE, then waits for its own
// signal from the previous PE's block b-1, rounds times. The waits form
// one cycle through every block of every PE, so the kernel ends only if
// all of them run at once.
const coopSource = `#include "symchan.cuh"
extern "C" __global__ void coop_ring(const symchan_heap *h, symchan_u64 *sig, int rounds, int *res) {
	if (threadIdx.x != 0) return;
	const int me = symchan_my_pe(h), next = (me + 1) % symchan_n_pes(h);
	const unsigned to = (blockIdx.x + 1) % gridDim.x;
	for (int r = 1; r <= rounds; r++) {
		symchan_signal(h, &sig[to], 1, SYMCHAN_SIGNAL_ADD, next);
		symchan_u64 got;
		if (!symchan_wait_until_h(h, &sig[blockIdx.x], SYMCHAN_CMP_GE, (symchan_u64)r, &got)) {
			res[blockIdx.x] = -1;
			return;
		}
	}
	res[blockIdx.x] = rounds;
}
`

// A collective launch (nvshmemx_collective_launch) of the largest grid
// CollectiveGridSize allows, on PEs that may share a GPU, runs every
// block of every PE at once: the kernel's cycle of waits ends. One block
// more is refused before anything is queued.
func (ck *kit) testCollectiveLaunch(t *testing.T) {
	npes := ck.upToPEs(4)
	ck.needGPUs(t, npes)
	prog := compile(t, "coop.cu", coopSource)
	const rounds = 3
	ck.run(t, npes, func(ctx context.Context, pe *pgas.PE) error {
		g := must(pe.GPU())
		mod := must(g.Load(prog))
		grid, err := pgas.CollectiveGridSize(pe, mod, "coop_ring", device.D1(32), 0)
		if err != nil {
			return err
		}
		if grid < 2 {
			return fmt.Errorf("CollectiveGridSize of a 32-thread block: %d", grid)
		}
		sig := must(pgas.AllocZeroed[uint64](ctx, pe, grid))
		res := must(pgas.AllocZeroed[int32](ctx, pe, grid))
		st := must(pgas.NewStream(pe))
		defer st.Close(ctx)
		check(pe.Barrier(ctx))
		err = pgas.LaunchCollectiveOnStream(st, mod, "coop_ring", device.D1(grid+1), device.D1(32), 0, g.HeapDescriptor(), sig, rounds, res)
		if !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("LaunchCollectiveOnStream of %d blocks, one more than CollectiveGridSize: %v, want ErrBadArg", grid+1, err)
		}
		check(pgas.LaunchCollectiveOnStream(st, mod, "coop_ring", device.D1(grid), device.D1(32), 0, g.HeapDescriptor(), sig, rounds, res))
		if err := st.Sync(ctx); err != nil {
			return fmt.Errorf("a collective launch of %d blocks: %w", grid, err)
		}
		got := read(pe, res)
		for b, r := range got {
			if r != rounds {
				return fmt.Errorf("a collective launch of %d blocks: block %d ended with %d, want %d rounds", grid, b, r, rounds)
			}
		}
		if pe.ID() == 0 {
			t.Logf("%d PEs, %d blocks each", npes, grid)
		}
		return nil
	})
}
