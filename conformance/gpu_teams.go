package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
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
	prog, err := kernels.Compile("teams.cu", teamSource, kernels.CompileOptions{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
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
