// The NVSHMEM developer guide's ring as a user's kernel, compiled when
// examples/devicering runs (kernels.Compile): lap after lap a value goes
// around the PEs, each adding its PE number + 1 and passing it to its right
// neighbour with a put-with-signal whose signal is the lap. No host is in
// the loop once the kernels run.
#include "symchan.cuh"

// ring runs laps laps on one thread, in NVSHMEM's terms (symchan_TYPE_…
// for nvshmem_TYPE_…, h first). value, sig and out are this PE's copies
// of symmetric arrays (pgas.Launch passes them so), the symmetric
// addresses NVSHMEM's routines take: value receives the left neighbour's
// value, sig its lap, out is the source of this PE's put (symmetric, as
// NVSHMEM's remote puts want their source).
extern "C" __global__ void ring(const symchan_heap *h, uint64_t *value, uint64_t *sig, uint64_t *out, int laps) {
	if (blockIdx.x != 0 || threadIdx.x != 0) return;
	int mype = symchan_my_pe(h), npes = symchan_n_pes(h), right = (mype + 1) % npes;
	for (int lap = 1; lap <= laps; lap++) {
		// PE 0 starts each lap with what came round on the last one.
		uint64_t want = mype == 0 ? (uint64_t)(lap - 1) : (uint64_t)lap;
		if (want > 0) symchan_wait_until(sig, SYMCHAN_CMP_GE, want);
		*out = (want > 0 ? *value : 0) + mype + 1;
		symchan_uint64_put_signal(h, value, out, 1, sig, lap, SYMCHAN_SIGNAL_SET, right);
	}
	if (mype == 0) symchan_wait_until(sig, SYMCHAN_CMP_GE, laps); // the last lap came round
}
