// conformance.cu: the kernels of the GPU tests, compiled when the tests
// first load them (kernels.Compile, conformance.Kernels).
#include "symchan.cuh"

typedef symchan_u64 u64;

// mailbox_echo receives count 8-byte messages from PE peer on the mailbox
// mb, adds add to each and sends it back (one thread): a kernel talking to
// a Go Chan[uint64] both ways. *status is 0, or the step that failed.
extern "C" __global__ void mailbox_echo(u64 heap_, u64 mb_, u64 out_, u64 in_, u64 peer, u64 count, u64 add, u64 status) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const symchan_mailbox *mb = (const symchan_mailbox *)mb_;
	for (u64 i = 0; i < count; i++) {
		u64 v = 0;
		int n = symchan_mailbox_recv(h, mb, (symchan_mbox_in *)in_, (int)peer, &v, 8);
		if (n != 8) {
			*(volatile u64 *)status = 1000000 + i;
			return;
		}
		v += add;
		if (symchan_mailbox_send(h, mb, (symchan_mbox_out *)out_ + peer, (int)peer, &v, 8) != 0) {
			*(volatile u64 *)status = 2000000 + i;
			return;
		}
	}
}

// mailbox_send_mp: every thread (warp = 0) or every warp (warp = 1) of
// the block is a sender of count messages to PE to through one shared
// out, with symchan_mailbox_send_mp or _mp_warp; then thread 0 closes
// this PE's side towards to. Message i of sender g has mp_size(g, i)
// bytes: g << 32 | i, then byte k = 3k + 7g + i. buf holds 608 bytes per
// sender.
static __device__ __forceinline__ u64 mp_size(u64 g, u64 i) {
	switch ((g + i) % 4) {
	case 0:
		return 8;
	case 1:
		return 240;
	case 2:
		return 241;
	}
	return 600;
}

// mp_send_all is mailbox_send_mp's loop: this thread's (warp = 0) or
// warp's (warp = 1) count messages, each sent with send(buf, n) (the warp
// form by every lane), then, after the block's barrier, close() by thread
// 0.
template <typename Send, typename Close> static __device__ void mp_send_all(u64 count, u64 warp, u64 buf_, Send send, Close close) {
	const unsigned tid = threadIdx.x;
	const u64 g = warp ? tid / 32 : tid;
	unsigned char *buf = (unsigned char *)buf_ + g * 608;
	for (u64 i = 0; i < count; i++) {
		const u64 n = mp_size(g, i);
		if (!warp || (tid & 31) == 0) {
			*(u64 *)buf = g << 32 | i;
			for (u64 k = 8; k < n; k++)
				buf[k] = (unsigned char)(3 * k + 7 * g + i);
		}
		if (warp)
			__syncwarp();
		send(buf, n);
	}
	__syncthreads();
	if (tid == 0)
		close();
}

extern "C" __global__ void mailbox_send_mp(u64 heap_, u64 mb_, u64 out_, u64 to, u64 count, u64 warp, u64 buf_) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const symchan_mailbox *mb = (const symchan_mailbox *)mb_;
	symchan_mbox_out *out = (symchan_mbox_out *)out_ + to;
	mp_send_all(
	    count, warp, buf_,
	    [&](const void *buf, u64 n) {
		    if (warp)
			    symchan_mailbox_send_mp_warp(h, mb, out, (int)to, buf, n);
		    else
			    symchan_mailbox_send_mp(h, mb, out, (int)to, buf, n);
	    },
	    [&] { symchan_mailbox_close(h, mb, out, (int)to); });
}

// actor_send_mp is mailbox_send_mp as a PE's actor (actors.StartKernel),
// one block, with symchan_actor_send_mp and _mp_warp; it returns once its
// side towards to is closed.
extern "C" __global__ void actor_send_mp(u64 heap_, u64 actor_, u64 to, u64 count, u64 warp, u64 buf_) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	symchan_actor *a = (symchan_actor *)actor_;
	mp_send_all(
	    count, warp, buf_,
	    [&](const void *buf, u64 n) {
		    if (warp)
			    symchan_actor_send_mp_warp(h, a, (int)to, buf, n);
		    else
			    symchan_actor_send_mp(h, a, (int)to, buf, n);
	    },
	    [&] { symchan_mailbox_close(h, &a->mb, &symchan_actor_out(a)[to], (int)to); });
}

// mailbox_recv_many_check takes, with one warp and
// symchan_mailbox_recv_many_warp (a block of 32 threads) or with a larger
// block and symchan_mailbox_recv_many_block, what mailbox_send_mp sends
// from PE 1 (senders senders, count messages each), then PE 1's close
// marker, checking each sender's order, lengths and bytes; PE 0's own
// close marker may come in between. next (senders words, zero) counts per
// sender; buf holds a message of 608 bytes per thread. *status is 0, or
// what failed: 1e6 + messages taken (a receive error, or a message from
// PE 0), 2e6 + the message's place (out of order, wrong length or bytes),
// 3e6 + messages taken (fewer than sent before the close marker).
extern "C" __global__ void __launch_bounds__(1024) mailbox_recv_many_check(u64 heap_, u64 mb_, u64 in_, u64 senders, u64 count, u64 status_, u64 next_, u64 buf_) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const symchan_mailbox *mb = (const symchan_mailbox *)mb_;
	volatile u64 *status = (volatile u64 *)status_;
	u64 *next = (u64 *)next_;
	const unsigned tid = symchan_block_tid(), nth = symchan_block_size();
	const u64 cap = 608;
	unsigned char *buf = (unsigned char *)buf_;
	__shared__ int from, start, lens[1024];
	if (tid == 0)
		start = 0;
	__syncthreads();
	u64 got = 0;
	for (;;) {
		int len;
		const int n = nth > 32 ? symchan_mailbox_recv_many_block(h, mb, (symchan_mbox_in *)in_, &from, &start, buf, cap, &len)
		                       : symchan_mailbox_recv_many_warp(h, mb, (symchan_mbox_in *)in_, &from, &start, buf, cap, &len);
		lens[tid] = len;
		__syncthreads();
		if (n == SYMCHAN_MBOX_CLOSED && from == 1)
			break;
		if (n == SYMCHAN_MBOX_CLOSED)
			continue;
		if (n < 0 || from != 1) {
			if (tid == 0)
				*status = 1000000 + got;
			return;
		}
		if (tid == 0)
			for (int j = 0; j < n && *status == 0; j++) {
				const unsigned char *m = buf + j * cap;
				const u64 id = *(const u64 *)m, g = id >> 32, i = id & 0xffffffffull;
				bool bad = g >= senders || i != next[g] || (u64)lens[j] != mp_size(g, i);
				for (u64 k = 8; !bad && k < (u64)lens[j]; k++)
					bad = m[k] != (unsigned char)(3 * k + 7 * g + i);
				if (bad)
					*status = 2000000 + got + j;
				else
					next[g]++;
			}
		__syncthreads();
		if (*status != 0)
			return;
		got += (u64)n;
	}
	if (tid == 0 && got != senders * count)
		*status = 3000000 + got;
}

// mailbox_fanin receives on PE h->pe, with one warp and
// symchan_mailbox_recv_any_warp (a block of 32 threads) or with
// symchan_mailbox_recv_any_block (a larger block), from every other PE
// until each has closed
// its side: 8-byte messages sender << 32 | i, i = 0, 1, … count-1 per
// sender. It checks that each sender's arrive once each, in order, and
// that the sender it reports is the one in the message. *status is 0, or
// what failed: 1e6 + step (bad length), 2e6 + step (wrong sender or order),
// 3e6 + sender (missing messages). seen (npes words, zero) counts per
// sender.
extern "C" __global__ void mailbox_fanin(u64 heap_, u64 mb_, u64 in_, u64 count, u64 status, u64 seen_) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const symchan_mailbox *mb = (const symchan_mailbox *)mb_;
	symchan_mbox_in *in = (symchan_mbox_in *)in_;
	u64 *seen = (u64 *)seen_;
	volatile u64 *st = (volatile u64 *)status;
	__shared__ u64 v, fail;
	__shared__ int start, from;
	if (threadIdx.x == 0) {
		start = 0;
		fail = 0;
	}
	const bool block = blockDim.x > 32;
	__syncthreads();
	int closed = 0; // every thread sees the same results
	for (u64 step = 0; closed < h->npes - 1; step++) {
		const int n = block ? symchan_mailbox_recv_any_block(h, mb, in, &from, &start, &v, 8)
		                    : symchan_mailbox_recv_any_warp(h, mb, in, &from, &start, &v, 8);
		if (n == -1) {
			closed++;
			continue;
		}
		if (threadIdx.x == 0) {
			if (n != 8)
				fail = 1000000 + step;
			else if ((int)(v >> 32) != from || (v & 0xffffffffu) != seen[from])
				fail = 2000000 + step;
			else
				seen[from]++;
		}
		if (block)
			__syncthreads();
		else
			__syncwarp();
		if (fail)
			break;
	}
	if (threadIdx.x != 0)
		return;
	for (int q = 0; q < h->npes && !fail; q++)
		if (q != h->pe && seen[q] != count)
			fail = 3000000 + q;
	*st = fail;
}

// mailbox_echo_block: the block receives every message PE peer sends on
// the mailbox mb (of any size: chunks are joined in buf, cap bytes) and
// sends it back with the block, until peer closes its side; then it closes
// its own side towards peer. *status is 0, or 1e6 + the step that failed.
extern "C" __global__ void mailbox_echo_block(u64 heap_, u64 mb_, u64 out_, u64 in_, u64 peer, u64 buf_, u64 cap, u64 status) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const symchan_mailbox *mb = (const symchan_mailbox *)mb_;
	symchan_mbox_out *out = (symchan_mbox_out *)out_ + peer;
	__shared__ int from, start;
	if (threadIdx.x == 0)
		start = 0;
	__syncthreads();
	for (u64 step = 0;; step++) {
		const int n = symchan_mailbox_recv_any_block(h, mb, (symchan_mbox_in *)in_, &from, &start, (void *)buf_, cap);
		if (n == SYMCHAN_MBOX_CLOSED && from == (int)peer)
			break;
		if (n < 0 || from != (int)peer || (u64)n > cap) {
			if (threadIdx.x == 0)
				*(volatile u64 *)status = 1000000 + step;
			return;
		}
		symchan_mailbox_send_block(h, mb, out, (int)peer, (const void *)buf_, (u64)n);
	}
	if (threadIdx.x == 0)
		symchan_mailbox_close(h, mb, out, (int)peer);
}

// future_serve: on this PE, one thread takes count requests from PE peer
// on the mailbox mb (struct ask: x, then a ReplyTo, 24 bytes) and replies
// x·x (8 bytes) to each; then it asks PE peer itself, x = 40 with the
// future mine (made in Go on this PE), and waits for the reply. res[0]:
// 0, or the step that failed; res[1]: the reply it got; res[2]: how many
// replies found their future abandoned.
struct ask {
	long long x;
	symchan_reply_to reply_to;
};
extern "C" __global__ void future_serve(u64 heap_, u64 mb_, u64 rs_, u64 out_, u64 in_, u64 peer, u64 count, u64 mine_, u64 res_) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const symchan_mailbox *mb = (const symchan_mailbox *)mb_;
	const symchan_replies *rs = (const symchan_replies *)rs_;
	volatile u64 *res = (volatile u64 *)res_;
	u64 abandoned = 0;
	for (u64 i = 0; i < count; i++) {
		ask a;
		if (symchan_mailbox_recv(h, mb, (symchan_mbox_in *)in_, (int)peer, &a, sizeof a) != (int)sizeof a) {
			res[0] = 1000000 + i;
			return;
		}
		const long long sq = a.x * a.x;
		const int r = symchan_reply(h, rs, a.reply_to, &sq, 8);
		if (r == SYMCHAN_REPLY_ABANDONED)
			abandoned++;
		else if (r != 0) {
			res[0] = 2000000 + i;
			return;
		}
	}
	res[2] = abandoned;
	ask q;
	q.x = 40;
	q.reply_to = *(const symchan_reply_to *)mine_;
	symchan_mailbox_send(h, mb, (symchan_mbox_out *)out_ + peer, (int)peer, &q, sizeof q);
	long long v = 0;
	if (symchan_await_reply(h, rs, q.reply_to, &v, 8) != 8) {
		res[0] = 3000000;
		return;
	}
	res[1] = (u64)v;
	res[0] = 0;
}

// actor_echo is a kernel actor (actors.StartKernel) of one block: it sends
// every message back to its sender, until the Go side stops it; the
// 4-byte message "FAIL" makes it fail with code 77. buf holds cap bytes.
extern "C" __global__ void actor_echo(u64 heap_, u64 actor_, u64 buf_, u64 cap) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	symchan_actor *a = (symchan_actor *)actor_;
	const unsigned char *buf = (const unsigned char *)buf_;
	__shared__ int from;
	for (;;) {
		const int n = symchan_actor_recv_block(h, a, &from, (void *)buf_, cap);
		if (n == SYMCHAN_ACTOR_STOP)
			return;
		if (n == SYMCHAN_MBOX_CLOSED)
			continue;
		if (n < 0 || (u64)n > cap || (n == 4 && buf[0] == 'F' && buf[1] == 'A' && buf[2] == 'I' && buf[3] == 'L')) {
			if (threadIdx.x == 0)
				symchan_actor_fail(a, n == 4 ? 77 : 1000 - n);
			return;
		}
		symchan_actor_send_block(h, a, from, buf, (u64)n);
	}
}

// actor_ring is a kernel actor (one block) of a ring of kernel actors:
// a token (struct ring_token, then size-24 payload bytes (id·31 + k) & 255)
// is passed to the next PE until its hops run out. PE 0 injects ntokens
// tokens of hops hops (a multiple of the PE count, so that each ends at
// PE 0), at most window in flight, and records each arrival's id in
// log[1 + log[0]++] after checking its payload (a bad one fails the
// actor with code 3000 + id). buf holds cap bytes.
struct ring_token {
	u64 id, hops, size;
};
static __device__ void ring_fill(unsigned char *buf, u64 id, u64 size, unsigned tid, unsigned nth) {
	for (u64 k = 24 + tid; k < size; k += nth)
		buf[k] = (unsigned char)((id * 31 + k) & 255);
}
extern "C" __global__ void actor_ring(u64 heap_, u64 actor_, u64 buf_, u64 cap, u64 log_, u64 ntokens, u64 hops, u64 window, u64 size) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	symchan_actor *a = (symchan_actor *)actor_;
	unsigned char *buf = (unsigned char *)buf_;
	volatile u64 *log = (volatile u64 *)log_;
	ring_token *t = (ring_token *)buf;
	const unsigned tid = symchan_block_tid(), nth = symchan_block_size();
	const int next = (h->pe + 1) % h->npes;
	__shared__ int from;
	__shared__ u64 injected, bad;
	if (tid == 0) {
		injected = 0;
		bad = 0;
	}
	__syncthreads();
	for (;;) {
		// PE 0 keeps window tokens in flight.
		while (h->pe == 0 && injected < ntokens && injected - log[0] < window) {
			if (tid == 0) {
				t->id = injected;
				t->hops = hops;
				t->size = size;
			}
			ring_fill(buf, injected, size, tid, nth);
			__syncthreads();
			symchan_actor_send_block(h, a, next, buf, size);
			if (tid == 0)
				injected++;
			__syncthreads();
		}
		const int n = symchan_actor_recv_block(h, a, &from, buf, cap);
		if (n == SYMCHAN_ACTOR_STOP)
			return;
		if (n == SYMCHAN_MBOX_CLOSED)
			continue;
		if (n < 24 || (u64)n > cap || (u64)n != t->size) {
			if (tid == 0)
				symchan_actor_fail(a, 2000);
			return;
		}
		if (t->hops > 1) {
			__syncthreads();
			if (tid == 0)
				t->hops--;
			__syncthreads();
			symchan_actor_send_block(h, a, next, buf, (u64)n);
			continue;
		}
		for (u64 k = 24 + tid; k < (u64)n; k += nth)
			if (buf[k] != (unsigned char)((t->id * 31 + k) & 255))
				bad = 1;
		__syncthreads();
		if (tid == 0) {
			if (bad)
				symchan_actor_fail(a, 3000 + t->id);
			else {
				log[1 + log[0]] = t->id;
				__threadfence_system();
				log[0] = log[0] + 1;
			}
		}
		__syncthreads();
		if (bad)
			return;
	}
}

// test_put_signal_variants exercises the thread, warp and block forms of
// put-with-signal (one block of 64 threads, launched cooperatively): warp
// 0 puts n bytes from src_off to peer's dst_off and sets word 0 to 1; the
// block puts the next n bytes and adds 1 to word 1; thread 0 puts the
// next n bytes and sets word 2 to 3.
extern "C" __global__ void test_put_signal_variants(u64 heap_, u64 peer, u64 src_off, u64 dst_off, u64 n, u64 sig_off) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const int p = (int)peer;
	const char *src = (const char *)symchan_sym(h, src_off);
	if (threadIdx.x < 32)
		symchan_put_signal_warp(h, p, dst_off, src, n, sig_off, 1, SYMCHAN_SIGNAL_SET);
	__syncthreads();
	symchan_put_signal_block(h, p, dst_off + n, src + n, n, sig_off + 8, 1, SYMCHAN_SIGNAL_ADD);
	if (threadIdx.x == 0)
		symchan_put_signal(h, p, dst_off + 2 * n, src + 2 * n, n, sig_off + 16, 3, SYMCHAN_SIGNAL_SET);
	symchan_quiet();
}

// test_waits waits on the device for this PE's words 0..2 at sig_off
// (all ≥ {1,1,3}), then reports what any and some find into out[0..4]:
// out[0] = 1 after the all-wait, out[1] = the any index from start 1,
// out[2] = the some count, out[3], out[4] = its first two indices.
extern "C" __global__ void test_waits(u64 heap_, u64 sig_off, u64 out_) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const volatile symchan_u64 *w = (const volatile symchan_u64 *)symchan_sym(h, sig_off);
	symchan_u64 *out = (symchan_u64 *)out_;
	const symchan_u64 want[3] = {1, 1, 3};
	symchan_wait_until_all(w, 3, NULL, SYMCHAN_CMP_GE, 0, want);
	out[0] = 1;
	int start = 1;
	out[1] = symchan_wait_until_any(w, 3, NULL, SYMCHAN_CMP_EQ, 3, NULL, &start);
	int status[3] = {0, 1, 0}, idx[3];
	int k = symchan_wait_until_some(w, 3, status, SYMCHAN_CMP_GE, 1, NULL, idx);
	out[2] = k;
	out[3] = k > 0 ? idx[0] : 99;
	out[4] = k > 1 ? idx[1] : 99;
}

// test_routines exercises the strided, atomic, peer-pointer and collective
// routines of symchan.cuh on every PE at once (one block of 64 threads
// each). Words of the uint64 array at off, on each PE: [0, 32) src (the
// host writes me·1000 + i); [32, 64) what the left neighbour's iput_block
// left (10 elements of its src, stride 2, at stride 3); [64, 64+4·npes)
// fcollectmem_block of every PE's src[0..4) over the world team;
// [128, 128+2·npes) alltoallmem_warp of the 2-element blocks; [193] on PE 0 a counter every PE fetch-adds 1 to; [194] a double swapped
// to 2.5; [195] a compare-swap word; [200, 210) iget of the right
// neighbour's src at stride 3, [230, 240) iget_block of it at stride 2;
// [220..224) results: the fetch-add's old
// value, the two compare-swaps' old values, the pe_ptr checks (1 = ok).
extern "C" __global__ void test_routines(u64 heap_, u64 off) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const int me = h->pe, n = h->npes, right = (me + 1) % n;
	symchan_u64 *w = (symchan_u64 *)symchan_ptr(h, me, off);
	symchan_iput_block(h, right, off + 32 * 8, w, 3, 2, 8, 10);
	symchan_team *world = symchan_team_world(h);
	symchan_fcollectmem_block(h, world, w + 64, w, 4 * 8);
	if (threadIdx.x < 32)
		symchan_alltoallmem_warp(h, world, w + 128, w, 2 * 8);
	__syncthreads();
	symchan_iget_block(h, w + 230, 1, right, off, 2, 8, 10);
	if (threadIdx.x != 0)
		return;
	w[220] = symchan_atomic_fetch_add(h, 0, off + 193 * 8, 1);
	symchan_atomic_swap_double(h, me, off + 194 * 8, 2.5);
	w[221] = symchan_atomic_compare_swap(h, me, off + 195 * 8, 0, 7);
	w[222] = symchan_atomic_compare_swap(h, me, off + 195 * 8, 0, 9);
	symchan_iget(h, w + 200, 1, right, off, 3, 8, 10);
	w[223] = symchan_pe_ptr(h, n, 0) == NULL && symchan_pe_ptr(h, me, h->size) == NULL && symchan_pe_ptr(h, right, off) != NULL &&
	         symchan_atomic_fetch(h, right, off + 5 * 8) == (symchan_u64)(right * 1000 + 5);
	symchan_quiet();
}
