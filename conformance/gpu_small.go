package conformance

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// smallSource is a user's kernel for testDeviceSmallCollectives: rounds
// of broadcast, fcollect, alltoall and int64 sum, each round with other
// data, another size and another group form, each result checked in the
// kernel before the next collective begins. The sizes straddle the
// team's small-message buffer, so the one-phase path and the two-phase
// one alternate and reuse each other's phases (and the buffers' parities
// follow every phase). errs[op] counts wrong elements, errs[4+op] the
// calls that did not return 0. It follows mismatchSource (reduce_n).
const smallSource = mismatchSource + `
__device__ __forceinline__ long long v(int round, int op, int q, unsigned long long i) { return ((long long)(round * 4 + op) * 64 + q) * 100000 + (long long)i; }

__device__ int run(const symchan_heap *h, symchan_team *t, int op, int form, long long *dst, const long long *src, unsigned long long n, int root) {
	int err = 0;
	const bool in = form == 2 || (form == 1 && threadIdx.x < 32) || (form == 0 && threadIdx.x == 0);
	if (!in)
		return 0;
	switch (op * 3 + form) {
	case 0: err = symchan_broadcastmem(h, t, dst, src, n * 8, root); break;
	case 1: err = symchan_broadcastmem_warp(h, t, dst, src, n * 8, root); break;
	case 2: err = symchan_broadcastmem_block(h, t, dst, src, n * 8, root); break;
	case 3: err = symchan_fcollectmem(h, t, dst, src, n * 8); break;
	case 4: err = symchan_fcollectmem_warp(h, t, dst, src, n * 8); break;
	case 5: err = symchan_fcollectmem_block(h, t, dst, src, n * 8); break;
	case 6: err = symchan_alltoallmem(h, t, dst, src, n * 8); break;
	case 7: err = symchan_alltoallmem_warp(h, t, dst, src, n * 8); break;
	case 8: err = symchan_alltoallmem_block(h, t, dst, src, n * 8); break;
	case 9: err = symchan_int64_sum_reduce(h, t, dst, src, n); break;
	case 10: err = symchan_int64_sum_reduce_warp(h, t, dst, src, n); break;
	case 11: err = symchan_int64_sum_reduce_block(h, t, dst, src, n); break;
	}
	return err;
}

extern "C" __global__ void small_collectives(const symchan_heap *h, symchan_team *t, long long *src, long long *dst,
                                             const unsigned long long *sizes, int nsizes, int rounds, unsigned long long *errs) {
	const int me = symchan_team_my_pe(t), np = symchan_team_n_pes(t);
	__shared__ int failed;
	for (int round = 0; round < rounds; round++) {
		const unsigned long long n = sizes[round % nsizes];
		const int form = (round / nsizes) % 3, root = round % np;
		for (int op = 0; op < 4; op++) {
			for (unsigned long long i = threadIdx.x; i < np * n; i += blockDim.x)
				src[i] = v(round, op, me, i);
			if (threadIdx.x == 0)
				failed = 0;
			__syncthreads();
			if (run(h, t, op, form, dst, src, n, root) != 0)
				failed = 1;
			__syncthreads();
			const unsigned long long m = op == 0 || op == 3 ? n : np * n;
			unsigned long long bad = 0;
			for (unsigned long long i = threadIdx.x; i < m; i += blockDim.x) {
				long long want = 0;
				const int q = (int)(i / n);
				const unsigned long long k = i % n;
				switch (op) {
				case 0: want = v(round, op, root, i); break;
				case 1: want = v(round, op, q, k); break;
				case 2: want = v(round, op, q, me * n + k); break;
				case 3: for (int r = 0; r < np; r++) want += v(round, op, r, i); break;
				}
				bad += dst[i] != want;
			}
			if (bad)
				atomicAdd(&errs[op], bad);
			if (threadIdx.x == 0 && failed)
				errs[4 + op]++;
			__syncthreads();
		}
	}
}
`

// The small-message path of the device collectives (symchan.cuh), the
// way the sealed slots' torn-store test loads theirs: many rounds of
// every small collective in thread, warp and block form, each with new
// data on every member, at sizes on both sides of the team's buffer (the
// conformance heap gives each buffer 4 KiB: 8 B, a tail past 16 bytes,
// the buffer exactly full for an fcollect, one element past it, and 8 KiB),
// every result checked in the kernel before the next round changes the
// sources; on the world and on a split team, whose buffers differ. Then
// members that disagree across the threshold (PE 1's reduction past the
// buffer, the others' within it) all get SYMCHAN_ERR_MISMATCH, no data
// moves, and the barrier after it agrees.
func (ck *kit) testDeviceSmallCollectives(t *testing.T) {
	npes := ck.upToPEs(4)
	ck.needGPUs(t, npes)
	prog := compile(t, "small.cu", smallSource)
	const rounds = 90
	fit := 4096 / 8 / npes // elements of an fcollect that fill a 4 KiB buffer
	sizes := []uint64{1, 5, uint64(fit), uint64(fit + 1), 1024}
	const big = 4096 // elements: 32 KiB, past any buffer (smallMaxBytes is 16 KiB)
	ck.run(t, npes, func(ctx context.Context, pe *pgas.PE) error {
		me := pe.ID()
		g := must(pe.GPU())
		mod := must(g.Load(prog))
		world := pe.TeamWorld()
		odd := must(world.Split(ctx, 1, 2, npes/2))
		src := must(pgas.AllocZeroed[int64](ctx, pe, npes*big)) // big ≥ the largest of sizes
		dst := must(pgas.AllocZeroed[int64](ctx, pe, npes*big))
		sz := must(pgas.AllocZeroed[uint64](ctx, pe, len(sizes)))
		errs := must(pgas.AllocZeroed[uint64](ctx, pe, 8))
		res := must(pgas.AllocZeroed[int32](ctx, pe, 2))
		check(pgas.Put(pe, sz, sizes, me))
		found := findings{me: me}
		for _, tm := range []*pgas.Team{world, odd} {
			check(pe.Barrier(ctx))
			if tm == nil {
				continue
			}
			check(pgas.Put(pe, errs, make([]uint64, 8), me))
			check(pgas.Launch(pe, mod, "small_collectives", device.D1(1), device.D1(128), 0,
				g.HeapDescriptor(), tm, src, dst, sz, len(sizes), rounds, errs))
			check(g.Stream().Sync())
			found.expect(fmt.Sprintf("team of %d: wrong elements (broadcast, fcollect, alltoall, sum), failed calls", tm.NumPEs()), read(pe, errs), make([]uint64, 8))
		}
		// Across the threshold: PE 1 past the buffer, the others within.
		check(pe.Barrier(ctx))
		check(pgas.Put(pe, dst, make([]int64, npes*big), me))
		n := 4
		if me == 1 {
			n = big
		}
		check(pgas.Launch(pe, mod, "reduce_n", device.D1(1), device.D1(64), 0, g.HeapDescriptor(), world, dst, src, n, res))
		check(g.Stream().Sync())
		found.expect("a reduction whose members straddle the buffer, then a barrier", read(pe, res), []int32{1, 0})
		found.expect("dst after it", read(pe, dst), make([]int64, npes*big))
		// The launch's mismatch is reported by the next blocking
		// collective; the team goes on.
		if err := pe.Barrier(ctx); !errors.Is(err, pgas.ErrCollectiveMismatch) {
			found.add(fmt.Errorf("the barrier after a mismatched kernel collective: %v, want ErrCollectiveMismatch", err))
		}
		check(pe.Barrier(ctx))
		return found.err()
	})
}
