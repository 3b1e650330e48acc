package conformance

import (
	"context"
	"math"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// termsSource runs, from one block of 32 threads, the device routines in
// NVSHMEM's terms that user.cu does not: the uint32 atomics, the
// non-fetching and fetch_inc uint64 ones, the float and double ones, and
// the sized strided puts and gets in their thread, warp and block forms,
// all on PE peer's copies. out gets what the fetching ones return (a
// float's or a double's bits).
const termsSource = `#include "symchan.cuh"

extern "C" __global__ void terms(const symchan_heap *h, int peer, unsigned *w32, unsigned long long *w64, float *wf, double *wd,
                                 unsigned long long *out, unsigned *dst32, const unsigned *src32, unsigned long long *dst64,
                                 const unsigned long long *src64, unsigned char *dst8, const unsigned char *src8,
                                 unsigned short *dst16, const unsigned short *src16) {
	if (threadIdx.x == 0) {
		out[0] = symchan_uint32_atomic_fetch_add(h, w32, 5, peer);        // 0 → 5
		out[1] = symchan_uint32_atomic_compare_swap(h, w32, 5, 9, peer);  // → 9
		out[2] = symchan_uint32_atomic_swap(h, w32, 12, peer);            // → 12
		out[3] = symchan_uint32_atomic_fetch_and(h, w32, 6, peer);        // → 4
		out[4] = symchan_uint32_atomic_fetch_or(h, w32, 3, peer);         // → 7
		out[5] = symchan_uint32_atomic_fetch_xor(h, w32, 5, peer);        // → 2
		symchan_uint32_atomic_add(h, w32, 10, peer);                      // → 12
		symchan_uint32_atomic_inc(h, w32, peer);                          // → 13
		out[6] = symchan_uint32_atomic_fetch_inc(h, w32, peer);           // → 14
		out[7] = symchan_uint32_atomic_fetch(h, w32, peer);
		symchan_uint32_atomic_set(h, w32, 100 + symchan_my_pe(h), peer);
		symchan_uint64_atomic_add(h, w64, 7, peer);                       // 0 → 7
		symchan_uint64_atomic_inc(h, w64, peer);                          // → 8
		out[8] = symchan_uint64_atomic_fetch_inc(h, w64, peer);           // → 9
		out[9] = symchan_uint64_atomic_fetch(h, w64, peer);
		symchan_uint64_atomic_set(h, w64, 1000 + symchan_my_pe(h), peer);
		out[10] = __float_as_uint(symchan_float_atomic_swap(h, wf, 1.5f, peer));
		out[11] = __float_as_uint(symchan_float_atomic_fetch(h, wf, peer));
		symchan_float_atomic_set(h, wf, 2.5f + symchan_my_pe(h), peer);
		out[12] = (unsigned long long)__double_as_longlong(symchan_double_atomic_swap(h, wd, 0.25, peer));
		out[13] = (unsigned long long)__double_as_longlong(symchan_double_atomic_fetch(h, wd, peer));
		symchan_double_atomic_set(h, wd, 0.5 + symchan_my_pe(h), peer);
		symchan_iput32(h, dst32, src32, 2, 1, 4, peer);  // peer's dst32[0, 2, 4, 6] = src32[0..3]
		symchan_iget16(h, dst16, src16, 1, 3, 4, peer);  // dst16[0..3] = peer's src16[0, 3, 6, 9]
	}
	__syncthreads();
	if (threadIdx.x < 32)
		symchan_iget64_warp(h, dst64, src64, 1, 2, 8, peer); // dst64[0..7] = peer's src64[0, 2, …, 14]
	symchan_iput8_block(h, dst8, src8, 3, 1, 16, peer);      // peer's dst8[0, 3, …, 45] = src8[0..15]
	symchan_quiet();
}
`

// The device routines in NVSHMEM's terms beyond user.cu's: a user kernel
// compiled at run time, each PE on the other's copies, then every word
// and array checked on both sides.
func (ck *kit) testDeviceTerms(t *testing.T) {
	ck.needGPUs(t, 2)
	prog := compile(t, "terms.cu", termsSource)
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		me, peer := pe.ID(), 1-pe.ID()
		g := must(pe.GPU())
		mod := must(g.Load(prog))
		w32 := must(pgas.AllocZeroed[uint32](ctx, pe, 1))
		w64 := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		wf := must(pgas.AllocZeroed[float32](ctx, pe, 1))
		wd := must(pgas.AllocZeroed[float64](ctx, pe, 1))
		out := must(pgas.AllocZeroed[uint64](ctx, pe, 14))
		dst32 := must(pgas.AllocZeroed[uint32](ctx, pe, 8))
		src32 := must(pgas.AllocZeroed[uint32](ctx, pe, 4))
		dst64 := must(pgas.AllocZeroed[uint64](ctx, pe, 8))
		src64 := must(pgas.AllocZeroed[uint64](ctx, pe, 16))
		dst8 := must(pgas.AllocZeroed[uint8](ctx, pe, 48))
		src8 := must(pgas.AllocZeroed[uint8](ctx, pe, 16))
		dst16 := must(pgas.AllocZeroed[uint16](ctx, pe, 4))
		src16 := must(pgas.AllocZeroed[uint16](ctx, pe, 12))
		check(pgas.Put(pe, src32, seq(4, func(i int) uint32 { return uint32(me*10 + i) }), me))
		check(pgas.Put(pe, src64, seq(16, func(i int) uint64 { return uint64(me*100 + i) }), me))
		check(pgas.Put(pe, src8, seq(16, func(i int) uint8 { return uint8(me*50 + i) }), me))
		check(pgas.Put(pe, src16, seq(12, func(i int) uint16 { return uint16(me*1000 + i) }), me))
		check(pe.Barrier(ctx))
		check(pgas.Launch(pe, mod, "terms", device.D1(1), device.D1(32), 0, g.HeapDescriptor(), peer, w32, w64, wf, wd, out,
			dst32, src32, dst64, src64, dst8, src8, dst16, src16))
		check(g.Stream().Sync())
		check(pe.Barrier(ctx)) // both kernels done: every word is final
		found := findings{me: me}
		found.expect("what the fetching atomics returned", read(pe, out), []uint64{0, 5, 9, 12, 4, 7, 13, 14, 8, 9,
			0, uint64(math.Float32bits(1.5)), 0, math.Float64bits(0.25)})
		found.expect("w32, set by the other PE", read(pe, w32), []uint32{uint32(100 + peer)})
		found.expect("w64, set by the other PE", read(pe, w64), []uint64{uint64(1000 + peer)})
		found.expect("wf, set by the other PE", read(pe, wf), []float32{2.5 + float32(peer)})
		found.expect("wd, set by the other PE", read(pe, wd), []float64{0.5 + float64(peer)})
		found.expect("dst32, iput32 by the other PE every 2nd", read(pe, dst32),
			[]uint32{uint32(peer * 10), 0, uint32(peer*10 + 1), 0, uint32(peer*10 + 2), 0, uint32(peer*10 + 3), 0})
		found.expect("dst16, iget16 of the other's every 3rd", read(pe, dst16),
			seq(4, func(i int) uint16 { return uint16(peer*1000 + 3*i) }))
		found.expect("dst64, iget64_warp of the other's every 2nd", read(pe, dst64),
			seq(8, func(i int) uint64 { return uint64(peer*100 + 2*i) }))
		want8 := make([]uint8, 48)
		for i := range 16 {
			want8[3*i] = uint8(peer*50 + i)
		}
		found.expect("dst8, iput8_block by the other PE every 3rd", read(pe, dst8), want8)
		if err := found.err(); err != nil {
			return err
		}
		return pe.Barrier(ctx)
	})
}
