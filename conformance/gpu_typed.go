package conformance

import (
	"context"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// typedSource ports the calls NVIDIA's examples make in NVSHMEM's typed
// terms (nvshmem_int_p, _int_put, _int_put_signal_nbi, nvshmemx_float_put
// _block, _float_put_nbi_warp, nvshmem_int64_g, nvshmemx_int_fcollect
// _block) with their signal words spelt uint64_t, as those examples spell
// them: uint64_t is unsigned long in the nvshmem variant and unsigned long
// long in the cuda one, and both must compile. One block of 32 threads;
// every transfer goes to PE peer's copies.
const typedSource = `#include "symchan.cuh"

extern "C" __global__ void typed(const symchan_heap *h, symchan_team *t, int peer, int *ip, int *iput, const int *isrc, int *sigdata,
                                 uint64_t *sig, float *fput, const float *fsrc, float *fnbi, int64_t *l, int64_t *lout, int *gathered,
                                 const int *mine, int *status) {
	if (threadIdx.x == 0) {
		symchan_int_p(h, ip, 40 + symchan_my_pe(h), peer);
		lout[0] = symchan_int64_g(h, l, peer);
		symchan_int_put(h, iput, isrc, 4, peer);
		symchan_int_put_signal_nbi(h, sigdata, isrc, 4, sig, 1, SYMCHAN_SIGNAL_ADD, peer);
	}
	__syncthreads();
	symchan_float_put_block(h, fput, fsrc, 32, peer);
	if (threadIdx.x < 32)
		symchan_float_put_nbi_warp(h, fnbi, fsrc, 8, peer);
	__syncthreads();
	if (threadIdx.x == 0) {
		symchan_quiet();
		symchan_wait_until(sig, SYMCHAN_CMP_GE, 1);
		status[1] = (int)symchan_signal_fetch(sig);
	}
	__syncthreads();
	const int r = symchan_int_fcollect_block(h, t, gathered, mine, 1);
	if (threadIdx.x == 0)
		status[0] = r;
}
`

// NVSHMEM's typed routines, as NVIDIA's examples call them: a kernel
// compiled at run time on each of two PEs writes the other's copies, then
// both sides are checked.
func (ck *kit) testDeviceTypedTerms(t *testing.T) {
	ck.needGPUs(t, 2)
	prog := compile(t, "typed.cu", typedSource)
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		me, peer := pe.ID(), 1-pe.ID()
		g := must(pe.GPU())
		mod := must(g.Load(prog))
		ip := must(pgas.AllocZeroed[int32](ctx, pe, 1))
		iput := must(pgas.AllocZeroed[int32](ctx, pe, 4))
		isrc := must(pgas.AllocZeroed[int32](ctx, pe, 4))
		sigdata := must(pgas.AllocZeroed[int32](ctx, pe, 4))
		sig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		fput := must(pgas.AllocZeroed[float32](ctx, pe, 32))
		fsrc := must(pgas.AllocZeroed[float32](ctx, pe, 32))
		fnbi := must(pgas.AllocZeroed[float32](ctx, pe, 8))
		l := must(pgas.AllocZeroed[int64](ctx, pe, 1))
		lout := must(pgas.AllocZeroed[int64](ctx, pe, 1))
		gathered := must(pgas.AllocZeroed[int32](ctx, pe, 2))
		mine := must(pgas.AllocZeroed[int32](ctx, pe, 1))
		status := must(pgas.AllocZeroed[int32](ctx, pe, 2))
		check(pgas.Put(pe, isrc, seq(4, func(i int) int32 { return int32(me*10 + i) }), me))
		check(pgas.Put(pe, fsrc, seq(32, func(i int) float32 { return float32(me) + float32(i)/4 }), me))
		check(pgas.Put(pe, l, []int64{int64(7000 + me)}, me))
		check(pgas.Put(pe, mine, []int32{int32(500 + me)}, me))
		check(pe.Barrier(ctx))
		check(pgas.Launch(pe, mod, "typed", device.D1(1), device.D1(64), 0, g.HeapDescriptor(), pe.TeamWorld(), peer, ip, iput, isrc,
			sigdata, sig, fput, fsrc, fnbi, l, lout, gathered, mine, status))
		check(g.Stream().Sync())
		check(pe.Barrier(ctx)) // both kernels done
		found := findings{me: me}
		found.expect("status (fcollect's return, the signal word)", read(pe, status), []int32{0, 1})
		found.expect("ip, int_p by the other PE", read(pe, ip), []int32{int32(40 + peer)})
		found.expect("lout, int64_g of the other's l", read(pe, lout), []int64{int64(7000 + peer)})
		found.expect("iput, int_put by the other PE", read(pe, iput), seq(4, func(i int) int32 { return int32(peer*10 + i) }))
		found.expect("sigdata, int_put_signal_nbi by the other PE", read(pe, sigdata), seq(4, func(i int) int32 { return int32(peer*10 + i) }))
		found.expect("fput, float_put_block by the other PE", read(pe, fput), seq(32, func(i int) float32 { return float32(peer) + float32(i)/4 }))
		found.expect("fnbi, float_put_nbi_warp by the other PE", read(pe, fnbi), seq(8, func(i int) float32 { return float32(peer) + float32(i)/4 }))
		found.expect("gathered, int_fcollect_block", read(pe, gathered), []int32{500, 501})
		if err := found.err(); err != nil {
			return err
		}
		return pe.Barrier(ctx)
	})
}
