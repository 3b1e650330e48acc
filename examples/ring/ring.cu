// ring.cu: examples/ring's kernel actor, compiled when the example loads
// it (kernels.Compile).
#include "symchan.cuh"

typedef symchan_u64 u64;

// ring_hop is examples/ring's hop as Go lays it out (64-bit): the lap's
// round, the payload's size and CRC, and an actors.Ref to the payload in
// the sender's partition. Go and kernel PEs pass it to each other.
struct ring_hop {
	u64 round;
	long long size;
	unsigned crc, pad0;
	int ref_pe, pad1;
	long long ref_off, ref_len;
};

// ring_job is how block 0 of ring_actor hands the other blocks their
// shares of a fetch: gen counts fetches (~0: return), done counts the
// shares finished.
struct ring_job {
	u64 gen, done;
	const char *src;
	char *dst;
	u64 n;
};

#define RING_JOB_EXIT (~0ull)

// ring_share is block b's share of n bytes split over nb blocks (16-byte
// aligned pieces): [*lo, *lo + return value).
static __device__ __forceinline__ u64 ring_share(u64 n, unsigned b, unsigned nb, u64 *lo) {
	const u64 share = ((n + nb - 1) / nb + 15) & ~15ull;
	*lo = share * b;
	return *lo < n ? min(share, n - *lo) : 0;
}

// ring_fetch copies n bytes of PE from's partition at src_off to this PE's
// at dst_off with every block of the grid: block 0 (all its threads call
// it) publishes the job, copies its share and waits for the others'.
static __device__ void ring_fetch(const symchan_heap *h, ring_job *job, int from, u64 src_off, u64 dst_off, u64 n) {
#ifdef SYMCHAN_NVSHMEM
	if (h->base[from] == 0) { // not mapped here: block 0 gets it all through NVSHMEM
		symchan_get_block(h, symchan_sym(h, dst_off), from, src_off, n);
		return;
	}
#endif
	const char *src = (const char *)symchan_ptr(h, from, src_off);
	char *dst = (char *)symchan_sym(h, dst_off);
	const unsigned tid = symchan_block_tid(), nb = gridDim.x;
	__shared__ u64 gen;
	volatile ring_job *vj = job;
	if (nb > 1 && tid == 0) {
		vj->src = src;
		vj->dst = dst;
		vj->n = n;
		gen = vj->gen + 1;
		__threadfence();
		vj->gen = gen;
	}
	u64 lo;
	const u64 mine = ring_share(n, 0, nb, &lo);
	symchan_copy_part(dst + lo, src + lo, mine, tid, symchan_block_size());
	if (nb > 1 && tid == 0) {
		while (vj->done < gen * (nb - 1))
			;
		__threadfence();
	}
	__syncthreads();
}

// ring_worker is every block of ring_actor but block 0: it copies its
// share of each fetch ring_fetch publishes, until block 0 says return.
static __device__ void ring_worker(ring_job *job) {
	const unsigned tid = symchan_block_tid();
	volatile ring_job *vj = job;
	__shared__ u64 gen, n;
	__shared__ const char *src;
	__shared__ char *dst;
	u64 seen = 0;
	for (;;) {
		if (tid == 0) {
			u64 g;
			while ((g = vj->gen) == seen)
				;
			__threadfence();
			gen = g;
			src = vj->src;
			dst = vj->dst;
			n = vj->n;
		}
		__syncthreads();
		if (gen == RING_JOB_EXIT)
			return;
		seen = gen;
		u64 lo;
		const u64 mine = ring_share(n, blockIdx.x, gridDim.x, &lo);
		symchan_copy_part(dst + lo, src + lo, mine, tid, symchan_block_size());
		__syncthreads();
		if (tid == 0) {
			__threadfence_system(); // the copy is seen before block 0 passes a Ref to it on
			atomicAdd((unsigned long long *)&job->done, 1ull);
		}
	}
}

// ring_actor is a PE of examples/ring -actors kernel|mixed, run as the PE's
// actor (actors.StartKernel) with a grid of one or more blocks: it takes
// laps hops of size-byte payloads, the first of round round, each a
// ring_hop from the previous PE; fetches the payload its Ref names into this PE's partition at
// buf_off (with every block); and passes a ring_hop naming that copy to
// the next PE. On PE 0 it starts each lap itself (the payload is already
// at buf_off) and times it: scratch holds a ring_job (zeroed), then at
// byte 64 a timing log of the laps (timing_start). A hop out of order or
// naming other than a size-byte payload on a PE fails the actor with code
// 1000 + the lap; a message that is not a ring_hop, 2000 + its length.
extern "C" __global__ void ring_actor(u64 heap_, u64 actor_, u64 buf_off, u64 size, u64 round, u64 laps, u64 crc, u64 scratch_) {
	ring_job *job = (ring_job *)scratch_;
	volatile u64 *log = (volatile u64 *)(scratch_ + 64);
	if (blockIdx.x > 0) {
		ring_worker(job);
		return;
	}
	__shared__ symchan_actor_local l; // block 0 works on copies (symchan_actor_enter)
	symchan_actor_enter(&l, (const symchan_heap *)heap_, (const symchan_actor *)actor_);
	const symchan_heap *h = &l.h;
	symchan_actor *a = &l.a;
	const unsigned tid = symchan_block_tid();
	const int next = (h->pe + 1) % h->npes;
	const bool leader = h->pe == 0;
	__shared__ ring_hop hop;
	__shared__ int from;
	for (u64 lap = 0; lap < laps; lap++) {
		u64 t0 = 0; // thread 0's
		if (leader) {
			if (tid == 0) {
				t0 = symchan_timing_start(log, lap);
				hop = ring_hop{round + lap, (long long)size, (unsigned)crc, 0, 0, 0, (long long)buf_off, (long long)size};
			}
			__syncthreads();
			symchan_actor_send_block(h, a, next, &hop, sizeof hop);
		}
		const int n = symchan_actor_recv_block(h, a, &from, &hop, sizeof hop);
		if (n == SYMCHAN_ACTOR_STOP)
			break;
		if (n != (int)sizeof hop || hop.round != round + lap || hop.size != (long long)size || hop.ref_len != (long long)size ||
		    hop.ref_pe < 0 || hop.ref_pe >= h->npes || hop.ref_off < 0 || (u64)hop.ref_off > h->size - size) {
			if (tid == 0)
				symchan_actor_fail(a, n != (int)sizeof hop ? 2000 + n : 1000 + lap);
			break;
		}
		ring_fetch(h, job, hop.ref_pe, (u64)hop.ref_off, buf_off, (u64)hop.ref_len);
		if (leader) {
			if (tid == 0)
				symchan_timing_end(log, lap, laps, t0);
			continue;
		}
		__syncthreads();
		if (tid == 0)
			hop.ref_pe = h->pe;
		__syncthreads();
		symchan_actor_send_block(h, a, next, &hop, sizeof hop);
	}
	if (tid == 0)
		*(volatile u64 *)&job->gen = RING_JOB_EXIT;
	symchan_actor_leave(&l, (symchan_actor *)actor_);
}
