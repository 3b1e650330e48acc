// The NVSHMEM developer guide's ring as a user's kernel, compiled when
// examples/devicering runs (kernels.Compile): lap after lap a value goes
// around the PEs, each adding its PE number + 1 and passing it to its right
// neighbour with a put-with-signal whose signal is the lap. No host is in
// the loop once the kernels run.
#include "symchan.cuh"

// ring runs laps laps on one thread. value, sig and out are this PE's
// copies of symmetric arrays (pgas.Launch passes them so): value receives
// the left neighbour's value, sig its lap, out is the source of this PE's
// put (symmetric, as NVSHMEM's remote puts want their source).
extern "C" __global__ void ring(const symchan_heap *h, unsigned long long *value, unsigned long long *sig,
                                unsigned long long *out, int laps) {
	if (blockIdx.x != 0 || threadIdx.x != 0) return;
	int me = h->pe, right = (me + 1) % h->npes;
	symchan_u64 voff = (symchan_u64)value - h->local, soff = (symchan_u64)sig - h->local;
	for (int lap = 1; lap <= laps; lap++) {
		// PE 0 starts each lap with what came round on the last one.
		symchan_u64 want = me == 0 ? (symchan_u64)(lap - 1) : (symchan_u64)lap;
		if (want > 0) symchan_wait_until(sig, SYMCHAN_CMP_GE, want);
		*out = (want > 0 ? *value : 0) + me + 1;
		symchan_put_signal(h, right, voff, out, 8, soff, lap, SYMCHAN_SIGNAL_SET);
	}
	if (me == 0) symchan_wait_until(sig, SYMCHAN_CMP_GE, laps); // the last lap came round
}
