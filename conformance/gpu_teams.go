package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// teamSource is a user's kernel for testDeviceTeams: symchan.cuh's device
// collectives and team queries on team t, by one block of every member.
const teamSource = `#include "symchan.cuh"
extern "C" __global__ void team_collectives(const symchan_heap *h, symchan_team *t, const long long *src, long long *bcast,
                                            long long *fcol, long long *a2a, long long *sum, double *fmax, int *info, unsigned long long n) {
	symchan_barrier_block(h, t);
	symchan_broadcastmem_block(h, t, bcast, src, n * 8, symchan_team_n_pes(t) - 1);
	symchan_fcollectmem_block(h, t, fcol, src, n * 8);
	if (threadIdx.x < 32)
		symchan_alltoallmem_warp(h, t, a2a, src, n * 8);
	__syncthreads();
	symchan_int64_sum_reduce_block(h, t, sum, src, n);
	if (threadIdx.x == 0)
		symchan_double_max_reduce(h, t, fmax, fmax, n);
	__syncthreads();
	symchan_team_sync_block(h, t);
	if (threadIdx.x == 0) {
		symchan_team *w = symchan_team_world(h);
		info[0] = symchan_team_my_pe(t);
		info[1] = symchan_team_n_pes(t);
		info[2] = symchan_team_translate_pe(t, symchan_team_my_pe(t), w);
		info[3] = symchan_team_translate_pe(w, symchan_my_pe(h), t);
		info[4] = symchan_team_translate_pe(w, (symchan_my_pe(h) + 1) % symchan_n_pes(h), t);
	}
}
`

// The device collectives of symchan.cuh in a user's kernel compiled at run
// time, launched with a *pgas.Team argument: on the world (4 PEs, or as
// many as the run has) twice, then on the odd ranks (start 1, stride 2), so that the team sequences of both
// teams advance; then a collective on a stream of the same world team
// follows them. Every result is checked on every member.
func (ck *kit) testDeviceTeams(t *testing.T) {
	const n = 25 // 8-byte elements: a tail past the last 16 bytes
	npes := ck.upToPEs(4)
	ck.needGPUs(t, npes)
	prog := compile(t, "teams.cu", teamSource)
	ck.run(t, npes, func(ctx context.Context, pe *pgas.PE) error {
		me := pe.ID()
		g := must(pe.GPU())
		mod := must(g.Load(prog))
		world := pe.TeamWorld()
		odd := must(world.Split(ctx, 1, 2, npes/2))
		src := must(pgas.AllocZeroed[int64](ctx, pe, npes*n))
		bcast := must(pgas.AllocZeroed[int64](ctx, pe, n))
		fcol := must(pgas.AllocZeroed[int64](ctx, pe, npes*n))
		a2a := must(pgas.AllocZeroed[int64](ctx, pe, npes*n))
		sum := must(pgas.AllocZeroed[int64](ctx, pe, n))
		fmax := must(pgas.AllocZeroed[float64](ctx, pe, n))
		info := must(pgas.AllocZeroed[int32](ctx, pe, 5))
		val := func(q, i int) int64 { return int64(q*1000 + i) }
		check(pgas.Put(pe, src, seq(npes*n, func(i int) int64 { return val(me, i) }), me))
		found := findings{me: me}
		for round, tm := range []*pgas.Team{world, world, odd} {
			check(pe.Barrier(ctx)) // the even PEs, outside the odd team, wait here
			if tm == nil {
				continue
			}
			var members []int
			for q := range npes {
				if tm == world || q%2 == 1 {
					members = append(members, q)
				}
			}
			size := len(members)
			check(pgas.Put(pe, fmax, seq(n, func(i int) float64 { return float64((me*5+i+round)%7) - 0.5 }), me))
			check(pgas.Launch(pe, mod, "team_collectives", device.D1(1), device.D1(128), 0,
				g.HeapDescriptor(), tm, src, bcast, fcol, a2a, sum, fmax, info, n))
			check(g.Stream().Sync())
			what := fmt.Sprintf("round %d (team of %d)", round, size)
			found.expect(what+" broadcast", read(pe, bcast), seq(n, func(i int) int64 { return val(members[size-1], i) }))
			found.expect(what+" fcollect", read(pe, fcol)[:size*n], seq(size*n, func(i int) int64 { return val(members[i/n], i%n) }))
			found.expect(what+" alltoall", read(pe, a2a)[:size*n], seq(size*n, func(i int) int64 { return val(members[i/n], tm.ID()*n+i%n) }))
			found.expect(what+" int64 sum", read(pe, sum), seq(n, func(i int) int64 {
				var s int64
				for _, q := range members {
					s += val(q, i)
				}
				return s
			}))
			found.expect(what+" float64 max in place", read(pe, fmax), seq(n, func(i int) float64 {
				m := -1.0
				for _, q := range members {
					m = max(m, float64((q*5+i+round)%7)-0.5)
				}
				return m
			}))
			right := -1
			if tm == world {
				right = (me + 1) % npes
			}
			found.expect(what+" team queries", read(pe, info), []int32{int32(tm.ID()), int32(size), int32(me), int32(tm.ID()), int32(right)})
		}
		// A stream collective on the world after the kernels' phases.
		st := must(pgas.NewStream(pe))
		check(pgas.FCollectOnStream(st, world, fcol, src, n))
		check(st.Close(ctx))
		found.expect("fcollect on a stream after the kernels", read(pe, fcol), seq(npes*n, func(i int) int64 { return val(i/n, i%n) }))
		// A team of another PE's, and the zero team, are refused.
		if err := pgas.Launch(pe, mod, "team_collectives", device.D1(1), device.D1(128), 0, (*pgas.Team)(nil)); !errors.Is(err, pgas.ErrBadArg) {
			found.add(fmt.Errorf("Launch with a nil team: %v, want ErrBadArg", err))
		}
		if !slices.Equal(read(pe, src)[:1], []int64{val(me, 0)}) {
			found.add(fmt.Errorf("PE %d: the source changed", me))
		}
		return found.err()
	})
}

// mismatchSource is a user's kernel for testDeviceArgumentsDiffer: a
// device reduction of n elements and a barrier, whose results it keeps.
const mismatchSource = `#include "symchan.cuh"
extern "C" __global__ void reduce_n(const symchan_heap *h, symchan_team *t, long long *dst, const long long *src, unsigned long long n, int *res) {
	const int r = symchan_int64_sum_reduce_block(h, t, dst, src, n);
	const int b = symchan_barrier_block(h, t);
	if (threadIdx.x == 0) {
		res[0] = r;
		res[1] = b;
	}
}
`

// A device collective in a user's kernel whose members disagree (PE 1
// reduces 4 elements, the others 8) returns SYMCHAN_ERR_MISMATCH on every
// member, moves no data and leaves the team usable (the barrier after it
// returns 0); Stream.Sync of the stream it ran on (LaunchOnStream with
// the team) names the count and the members. A stream's collective and a
// kernel's with the same arguments agree: they are one sequence.
func (ck *kit) testDeviceArgumentsDiffer(t *testing.T) {
	npes := ck.upToPEs(3)
	ck.needGPUs(t, npes)
	prog := compile(t, "mismatch.cu", mismatchSource)
	ck.run(t, npes, func(ctx context.Context, pe *pgas.PE) error {
		me := pe.ID()
		mod := must(must(pe.GPU()).Load(prog))
		world := pe.TeamWorld()
		src := must(pgas.AllocZeroed[int64](ctx, pe, 8))
		dst := must(pgas.AllocZeroed[int64](ctx, pe, 8))
		res := must(pgas.AllocZeroed[int32](ctx, pe, 2))
		check(pgas.Put(pe, src, seq(8, func(i int) int64 { return int64(me*100 + i) }), me))
		check(pe.Barrier(ctx))
		found := findings{me: me}

		n := 8
		if me == 1 {
			n = 4
		}
		st := must(pgas.NewStream(pe))
		check(pgas.LaunchOnStream(st, mod, "reduce_n", device.D1(1), device.D1(64), 0, must(pe.GPU()).HeapDescriptor(), world, dst, src, n, res))
		err := st.Sync(ctx)
		_ = st.Close(ctx)
		if !errors.Is(err, pgas.ErrCollectiveMismatch) || !strings.Contains(err.Error(), "differ: count: 8 on ") || !strings.Contains(err.Error(), "4 on PE 1") {
			found.add(fmt.Errorf("Sync after a kernel's mismatched reduction: %v, want ErrCollectiveMismatch naming the count and PE 1", err))
		} else if me == 0 {
			t.Log(err)
		}
		found.expect("the kernel's results (reduction, barrier)", read(pe, res), []int32{1, 0}) // SYMCHAN_ERR_MISMATCH, then agreement
		found.expect("dst after the mismatch", read(pe, dst), make([]int64, 8))

		// Agreement: PE 0 reduces on a stream, the others in the kernel.
		check(pe.Barrier(ctx))
		st = must(pgas.NewStream(pe))
		if me == 0 {
			check(pgas.ReduceAllOnStream(st, world, pgas.ReduceSum, dst, src, 8))
			check(pgas.BarrierOnStream(st, world))
		} else {
			check(pgas.LaunchOnStream(st, mod, "reduce_n", device.D1(1), device.D1(64), 0, must(pe.GPU()).HeapDescriptor(), world, dst, src, 8, res))
		}
		if err := st.Close(ctx); err != nil {
			found.add(fmt.Errorf("a stream's and kernels' reduction with the same arguments: %v", err))
		}
		if me != 0 {
			found.expect("the kernel's results when agreeing", read(pe, res), []int32{0, 0})
		}
		found.expect("the sum", read(pe, dst), seq(8, func(i int) int64 {
			var s int64
			for q := range npes {
				s += int64(q*100 + i)
			}
			return s
		}))
		return found.err()
	})
}

// A device collective whose members disagree, in a kernel queued with
// pgas.Launch on the PE's own stream (which no Stream.Sync checks), is
// reported by the PE's next blocking collective once the kernel has run:
// that barrier fails on every member with ErrCollectiveMismatch naming the
// count, and the team stays usable.
func (ck *kit) testLaunchMismatchReported(t *testing.T) {
	npes := ck.upToPEs(3)
	ck.needGPUs(t, npes)
	prog := compile(t, "mismatch.cu", mismatchSource)
	ck.run(t, npes, func(ctx context.Context, pe *pgas.PE) error {
		g := must(pe.GPU())
		mod := must(g.Load(prog))
		world := pe.TeamWorld()
		src := must(pgas.AllocZeroed[int64](ctx, pe, 8))
		dst := must(pgas.AllocZeroed[int64](ctx, pe, 8))
		res := must(pgas.AllocZeroed[int32](ctx, pe, 2))
		check(pe.Barrier(ctx))
		n := 8
		if pe.ID() == 1 {
			n = 4
		}
		check(pgas.Launch(pe, mod, "reduce_n", device.D1(1), device.D1(64), 0, g.HeapDescriptor(), world, dst, src, n, res))
		check(g.Stream().Sync()) // the kernel has run
		found := findings{me: pe.ID()}
		err := pe.Barrier(ctx)
		if !errors.Is(err, pgas.ErrCollectiveMismatch) || !strings.Contains(err.Error(), "count: 8 on ") || !strings.Contains(err.Error(), "4 on PE 1") {
			found.add(fmt.Errorf("the barrier after a launched kernel's mismatched reduction: %v, want ErrCollectiveMismatch naming the count and PE 1", err))
		}
		if err := pe.Barrier(ctx); err != nil {
			found.add(fmt.Errorf("the barrier after that: %v, want the team usable", err))
		}
		return found.err()
	})
}
