// bench.cu: the kernels of the GPU benchmarks, compiled when a benchmark
// first loads them (kernels.Compile).
#include "symchan.cuh"

typedef symchan_u64 u64;

// bench_pingpong: iters round trips between this PE and peer, one thread.
// mode (flags>>8 & 0xff) 0: put-with-signal of size bytes (data_off) + wait
// on the signal; 1: signal only; 2: the payload rides in the signal word
// (seq<<32 | 4 bytes), one 8-byte store, polled directly. Variants, to
// compare ways of waiting and signalling in one run: flags bit 16 polls
// with volatile loads and fences once (acq_rel) instead of acquire loads;
// bit 17 signals with a system fence and a relaxed store instead of a
// release store; bit 18 polls with volatile loads and then makes one
// acquire load. The initiator sends first; values are base+i so that runs
// need no reset.
static __device__ __forceinline__ void pp_wait(volatile u64 *sig, u64 v, int poll) {
	switch (poll) {
	case 0:
		symchan_wait_until(sig, SYMCHAN_CMP_GE, v);
		return;
	case 1:
		while (*sig < v)
			;
		asm volatile("fence.acq_rel.sys;" ::: "memory");
		return;
	default: // volatile loads, then one acquire load of the word seen
		while (*sig < v)
			;
		symchan_load_acquire(sig);
	}
}

extern "C" __global__ void bench_pingpong(u64 heap_, u64 peer, u64 iters, u64 size, u64 data_off, u64 sig_off, u64 flags, u64 base) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const bool initiator = flags & 1;
	const int mode = (int)((flags >> 8) & 0xff);
	const int poll = (flags >> 16) & 1 ? 1 : (flags >> 18) & 1 ? 2 : 0;
	const bool fence_signal = (flags >> 17) & 1;
	volatile u64 *my_sig = (volatile u64 *)symchan_sym(h, sig_off);
	const void *src = symchan_sym(h, data_off);
	for (u64 i = 1; i <= iters; i++) {
		const u64 v = base + i;
		if (!initiator) {
			if (mode == 2)
				while ((*my_sig >> 32) != (v & 0xffffffff))
					;
			else
				pp_wait(my_sig, v, poll);
		}
		if (mode == 0 && fence_signal) {
			symchan_put(h, (int)peer, data_off, src, size);
			__threadfence_system();
			symchan_signal_op(h, (int)peer, sig_off, v, SYMCHAN_SIGNAL_SET);
		} else if (mode == 0)
			symchan_put_signal(h, (int)peer, data_off, src, size, sig_off, v, SYMCHAN_SIGNAL_SET);
		else if (mode == 1)
			symchan_signal_op(h, (int)peer, sig_off, v, SYMCHAN_SIGNAL_SET);
		else
			symchan_signal_op(h, (int)peer, sig_off, (v << 32) | (u64)(unsigned)i, SYMCHAN_SIGNAL_SET);
		if (initiator) {
			if (mode == 2)
				while ((*my_sig >> 32) != (v & 0xffffffff))
					;
			else
				pp_wait(my_sig, v, poll);
		}
	}
}

// bench_put_block: every block puts its share of size bytes from this PE's
// src_off to peer's dst_off, reps times back to back, then fences.
extern "C" __global__ void bench_put_block(u64 heap_, u64 peer, u64 dst_off, u64 src_off, u64 size, u64 reps) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const u64 share = ((size + gridDim.x - 1) / gridDim.x + 15) & ~15ull;
	const u64 lo = share * blockIdx.x;
	if (lo < size) {
		const u64 n = min(share, size - lo);
		for (u64 r = 0; r < reps; r++)
			symchan_copy_part(symchan_ptr(h, (int)peer, dst_off + lo), symchan_sym(h, src_off + lo), n, threadIdx.x, blockDim.x);
	}
	__threadfence_system();
}

// actor_pingpong is bench_actor_pingpong's thread 0.
static __device__ void actor_pingpong(const symchan_heap *h, symchan_actor *a, u64 iters, volatile u64 *log) {
	int from;
	u64 v;
	if (h->pe == 0) {
		for (u64 i = 0; i < iters; i++) {
			const u64 t0 = symchan_timing_start(log, i);
			v = i + 1;
			symchan_actor_send(h, a, 1, &v, 8);
			const int n = symchan_actor_recv(h, a, &from, &v, 8);
			if (n == SYMCHAN_ACTOR_STOP)
				return;
			if (n != 8 || v != i + 2) {
				symchan_actor_fail(a, n != 8 ? 2000 + n : 1000 + i);
				return;
			}
			symchan_timing_end(log, i, iters, t0);
		}
		return;
	}
	for (;;) {
		const int n = symchan_actor_recv(h, a, &from, &v, 8);
		if (n == SYMCHAN_ACTOR_STOP)
			return;
		if (n == SYMCHAN_MBOX_CLOSED)
			continue;
		if (n != 8) {
			symchan_actor_fail(a, 2000 + n);
			return;
		}
		v++;
		symchan_actor_send(h, a, from, &v, 8);
	}
}

// bench_actor_pingpong is both sides of the kernel-actor ping-pong, run as
// each PE's actor (actors.StartKernel) by one thread with the thread forms:
// PE 0 sends iters 8-byte messages (1, 2, …) to PE 1 and awaits each one's
// echo (the value plus one), timing each round trip into the timing log at
// log_, then returns; PE 1 echoes until it is stopped. With local, the
// actor works on shared-memory copies of its state (symchan_actor_enter).
// A wrong echo fails the actor with code 1000 + the iteration; a message
// not of 8 bytes, 2000 + its length.
extern "C" __global__ void bench_actor_pingpong(u64 heap_, u64 actor_, u64 iters, u64 log_, u64 local) {
	__shared__ symchan_actor_local l;
	symchan_actor *ga = (symchan_actor *)actor_;
	if (local)
		symchan_actor_enter(&l, (const symchan_heap *)heap_, ga);
	if (symchan_block_tid() == 0)
		actor_pingpong(local ? &l.h : (const symchan_heap *)heap_, local ? &l.a : ga, iters, (volatile u64 *)log_);
	if (local)
		symchan_actor_leave(&l, ga);
}

// bench_rate_send: lane 0 of every warp of the grid sends per_warp 8-byte
// messages to PE to. raw = 0: through the mailbox mb, all warps sharing
// one sending state (out, symchan_mailbox_send_mp); raw = 1, the anchor's
// shape: an 8-byte put-with-signal into a ring of 64 words of the warp's
// own at data_off, adding 1 to the warp's signal word at sig_off (no flow
// control: the receiver only counts).
extern "C" __global__ void bench_rate_send(u64 heap_, u64 mb_, u64 out_, u64 to, u64 per_warp, u64 raw, u64 data_off, u64 sig_off) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	if ((threadIdx.x & 31) != 0)
		return;
	const u64 g = (blockIdx.x * (u64)blockDim.x + threadIdx.x) / 32;
	for (u64 i = 0; i < per_warp; i++) {
		u64 v = g << 32 | i;
		if (raw)
			symchan_put_signal(h, (int)to, data_off + (g * 64 + i % 64) * 8, &v, 8, sig_off + g * 8, 1, SYMCHAN_SIGNAL_ADD);
		else
			symchan_mailbox_send_mp(h, (const symchan_mailbox *)mb_, (symchan_mbox_out *)out_ + to, (int)to, &v, 8);
	}
}

// rate_take takes total messages with take (a count each call; a count ≤
// 0 is an error, logged as 1e6 + its magnitude), timing from the end of
// the first take to the last with the global timer: log[0] and log[1],
// log[2] the count taken (or the error), log[3] the first take's count,
// which the rate leaves out. Every thread of the group calls it.
template <typename Take> static __device__ void rate_take(u64 total, volatile u64 *log, Take take) {
	u64 got = 0, t0 = 0, first = 0;
	while (got < total) {
		const int n = take();
		if (got == 0) {
			t0 = symchan_now_ns();
			first = n > 0 ? n : 0;
		}
		if (n <= 0) {
			if (symchan_block_tid() == 0)
				log[2] = 1000000 + (u64)(n < 0 ? -n : n);
			return;
		}
		got += (u64)n;
	}
	if (symchan_block_tid() == 0) {
		log[0] = t0;
		log[1] = symchan_now_ns();
		log[2] = got;
		log[3] = first;
	}
}

// The receivers of the rate benchmark: one thread, a warp or a block.
#define RATE_THREAD 0
#define RATE_WARP 1
#define RATE_BLOCK 2

// bench_rate_recv: PE h->pe takes total messages, logged as rate_take
// logs them. raw = 0: from the mailbox mb (state in), by who (RATE_):
// one thread with symchan_mailbox_recv_any, a warp (launched as one) with
// symchan_mailbox_recv_many_warp or a block with
// symchan_mailbox_recv_many_block; raw = 1: the anchor's, one thread
// polling the signal words of warps warps at sig_off until they add up to
// total.
extern "C" __global__ void __launch_bounds__(1024) bench_rate_recv(u64 heap_, u64 mb_, u64 in_, u64 total, u64 raw, u64 sig_off, u64 warps, u64 log_, u64 who) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const symchan_mailbox *mb = (const symchan_mailbox *)mb_;
	symchan_mbox_in *in = (symchan_mbox_in *)in_;
	volatile u64 *log = (volatile u64 *)log_;
	__shared__ int from, start;
	__shared__ u64 v[1024];
	if (symchan_block_tid() == 0)
		start = 0;
	__syncthreads();
	if (raw) {
		const volatile u64 *sig = (const volatile u64 *)symchan_sym(h, sig_off);
		u64 seen = 0;
		rate_take(total, log, [&] { // the messages that arrived since the last look
			u64 sum;
			do {
				sum = 0;
				for (u64 w = 0; w < warps; w++)
					sum += sig[w];
			} while (sum == seen);
			const int n = (int)(sum - seen);
			seen = sum;
			return n;
		});
	} else if (who == RATE_BLOCK)
		rate_take(total, log, [&] {
			int len;
			return symchan_mailbox_recv_many_block(h, mb, in, &from, &start, v, 8, &len);
		});
	else if (who == RATE_WARP)
		rate_take(total, log, [&] {
			int len;
			return symchan_mailbox_recv_many_warp(h, mb, in, &from, &start, v, 8, &len);
		});
	else
		rate_take(total, log, [&] {
			const int n = symchan_mailbox_recv_any(h, mb, in, &from, &start, v, 8);
			return n == 8 ? 1 : n > 0 ? -n : n; // a message of another length is an error
		});
}

// bench_rate_actor is bench_rate_recv's mailbox receiver as a PE's actor
// (actors.StartKernel): a warp with symchan_actor_recv_many_warp, or with
// block a block with symchan_actor_recv_many_block. It takes total
// messages, logs them as rate_take does and returns.
extern "C" __global__ void __launch_bounds__(1024) bench_rate_actor(u64 heap_, u64 actor_, u64 total, u64 log_, u64 block) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	symchan_actor *a = (symchan_actor *)actor_;
	__shared__ int from;
	__shared__ u64 v[1024];
	rate_take(total, (volatile u64 *)log_, [&] {
		int len;
		return block ? symchan_actor_recv_many_block(h, a, &from, v, 8, &len) : symchan_actor_recv_many_warp(h, a, &from, v, 8, &len);
	});
}
