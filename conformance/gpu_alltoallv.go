package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// alltoallvSource is a user's kernel for testDeviceAllToAllV: symchan.cuh's
// AllToAllV in the group form named by form (0 thread, 1 warp, 2 block),
// its result in res.
const alltoallvSource = `#include "symchan.cuh"
extern "C" __global__ void a2av(const symchan_heap *h, symchan_team *t, long long *dst, const long long *src, const long long *sc, const long long *so,
                                const long long *rc, const long long *ro, int form, int *res) {
	int err = 0;
	if (form == 2)
		err = symchan_alltoallvmem_block(h, t, dst, src, sc, so, rc, ro, 8);
	else if (form == 1 && threadIdx.x < 32)
		err = symchan_alltoallvmem_warp(h, t, dst, src, sc, so, rc, ro, 8);
	else if (form == 0 && threadIdx.x == 0)
		err = symchan_alltoallvmem(h, t, dst, src, sc, so, rc, ro, 8);
	if (threadIdx.x == 0)
		*res = err;
}
`

// The device's AllToAllV in a user's kernel (symchan_alltoallvmem, in
// thread, warp and block form), laid out as testAllToAllV lays it out:
// every block lands where its receiver said, nothing else is written;
// counts that differ between a sender and its receiver return
// SYMCHAN_ERR_MISMATCH on every member and move no data, and the PE's
// next blocking collective reports the pair.
func (ck *kit) testDeviceAllToAllV(t *testing.T) {
	npes := ck.upToPEs(4)
	ck.needGPUs(t, npes)
	prog := compile(t, "a2av.cu", alltoallvSource)
	ck.run(t, npes, func(ctx context.Context, pe *pgas.PE) error {
		me, world := pe.ID(), pe.TeamWorld()
		g := must(pe.GPU())
		mod := must(g.Load(prog))
		count := func(i, j int) int { return (i*5 + j*3 + 2) % 7 }
		l := newA2AVLayout(ctx, pe, count)
		rc := l.rc
		sendCounts, sendOffs, recvCounts, recvOffs := l.syms[0], l.syms[1], l.syms[2], l.syms[3]
		const room = 7 * 64
		src := must(pgas.AllocZeroed[int64](ctx, pe, room))
		res := must(pgas.AllocZeroed[int32](ctx, pe, 1))
		val := func(form, q, k int) int64 { return int64(form+1)<<48 | int64(q)<<32 | int64(k) }
		found := findings{me: me}
		launch := func(dst pgas.Sym[int64], form int) {
			check(pgas.Launch(pe, mod, "a2av", device.D1(1), device.D1(64), 0, g.HeapDescriptor(), world, dst, src,
				sendCounts, sendOffs, recvCounts, recvOffs, form, res))
			check(g.Stream().Sync())
		}
		for form, name := range []string{"thread", "warp", "block"} {
			dst := must(pgas.AllocZeroed[int64](ctx, pe, room))
			check(pgas.Put(pe, src, seq(room, func(k int) int64 { return val(form, me, k) }), me))
			check(pe.Barrier(ctx))
			launch(dst, form)
			found.expect(name+" form's result", read(pe, res), []int32{0})
			want := l.received(func(q, k int) int64 { return val(form, q, k) }, room)
			found.expect(name+" form's dst", read(pe, dst), want)
			check(pe.Barrier(ctx)) // every member has read its sources' blocks
		}
		// Rank 1 expects one element more from rank 0 than rank 0 sends.
		fresh := must(pgas.AllocZeroed[int64](ctx, pe, room))
		if me == 1 {
			check(pgas.Put(pe, recvCounts, []int64{rc[0] + 1}, me))
		}
		check(pe.Barrier(ctx))
		launch(fresh, 2)
		found.expect("the result where counts differ", read(pe, res), []int32{1}) // SYMCHAN_ERR_MISMATCH
		if slices.ContainsFunc(read(pe, fresh), func(v int64) bool { return v != 0 }) {
			found.add(errors.New("the kernel's AllToAllV moved data although the counts differed"))
		}
		if err := pe.Barrier(ctx); !errors.Is(err, pgas.ErrCollectiveMismatch) || !contains(err, "rank 0 (PE 0) sends rank 1 (PE 1)") {
			found.add(fmt.Errorf("the barrier after a kernel's AllToAllV whose counts differ: %v, want ErrCollectiveMismatch naming the pair", err))
		}
		check(pe.Barrier(ctx))
		return found.err()
	})
}
