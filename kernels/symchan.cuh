// symchan.cuh: the device-side API of symchan's cuda backend, header-only.
//
// Our kernels and users' kernels include it. Every routine works on a heap
// descriptor (struct symchan_heap) that the Go side builds and passes in
// (internal/abi: HeapDescriptor): the device address of each PE's partition
// of the symmetric heap, so a symmetric address is (PE, byte offset) and a
// peer pointer is base[pe] + offset (peer access is enabled pairwise).
// Nothing here bounds the number of PEs: the descriptor's base array, a
// receiver's state and a kernel actor's hold one entry per PE of the
// world, sized when the Go side allocates them.
//
// Semantics follow NVSHMEM: a put-with-signal makes its data visible before
// the signal update; fence orders puts to one PE; quiet completes them (our
// puts are stores, so both are a system-scope fence); waits return only
// after the update they observed is complete (acquire).
//
// Compiled with SYMCHAN_NVSHMEM defined (and linked with NVSHMEM's device
// library, as the nvshmem backend links symchan.cu), every routine on a PE
// whose base is 0 — a partition this GPU cannot map, on another host —
// goes through NVSHMEM's device routines instead (symmetric address: this
// PE's own base + offset); fence and quiet are then NVSHMEM's too. Mapped
// PEs keep the load/store path.
#ifndef SYMCHAN_CUH
#define SYMCHAN_CUH

#ifdef SYMCHAN_NVSHMEM
#include <nvshmem.h>
#include <nvshmemx.h>
// SYMCHAN_REMOTE(h, pe, stmt) runs stmt where pe is not mapped here.
#define SYMCHAN_REMOTE(h, pe, stmt) \
	if (symchan_bases(h)[pe] == 0) { \
		stmt;                       \
	}
#else
#define SYMCHAN_REMOTE(h, pe, stmt)
#endif

// Signal operations and comparisons: the values of pgas.SigOp and pgas.Cmp.
#define SYMCHAN_SIGNAL_SET 1
#define SYMCHAN_SIGNAL_ADD 2
#define SYMCHAN_CMP_EQ 1
#define SYMCHAN_CMP_NE 2
#define SYMCHAN_CMP_GT 3
#define SYMCHAN_CMP_GE 4
#define SYMCHAN_CMP_LT 5
#define SYMCHAN_CMP_LE 6

// Worlds of up to SYMCHAN_LOCAL_PES PEs keep their per-PE arrays where
// their address is computed rather than loaded (symchan_bases,
// symchan_actor_in): a kernel actor reads them several times a message.
// It is no bound on a world's size.
#define SYMCHAN_LOCAL_PES 64

// symchan_heap is laid out exactly as internal/abi's HeapDescriptor encodes it:
// this header, then (at base) the npes partition addresses.
struct symchan_heap {
	const unsigned long long *base; // npes entries: the partition of each PE (0: not mapped here)
	unsigned long long local;       // base[pe]: this PE's partition, the one read most
	unsigned long long size;        // bytes per partition
	int pe;                         // the PE this descriptor belongs to
	int npes;
	const volatile unsigned long long *abort; // the world's abort word (mapped host memory; NULL: none): nonzero once the world failed or ended
};

typedef unsigned long long symchan_u64;

// symchan_bases is h's base array. Up to SYMCHAN_LOCAL_PES PEs it follows
// the header in every descriptor and in symchan_actor_local's copy alike.
static __device__ __forceinline__ const symchan_u64 *symchan_bases(const symchan_heap *h) {
	return h->npes <= SYMCHAN_LOCAL_PES ? (const symchan_u64 *)(h + 1) : h->base;
}

static __device__ __forceinline__ void *symchan_ptr(const symchan_heap *h, int pe, symchan_u64 off) {
	return (void *)(symchan_bases(h)[pe] + off);
}

// symchan_sym is byte off of the symmetric heap as NVSHMEM names it on
// every PE: its address on this one.
static __device__ __forceinline__ void *symchan_sym(const symchan_heap *h, symchan_u64 off) { return (void *)(h->local + off); }

// symchan_aborted reports whether h's world has failed or ended: the host
// sets the word h->abort points to (mapped host memory) when a PE fails,
// when the PEs' context ends and before the world closes, and every wait of
// the runtime on the device then ends (see symchan_spin_aborted).
static __device__ __forceinline__ bool symchan_aborted(const symchan_heap *h) { return h->abort != NULL && *h->abort != 0; }

// A waiting loop looks at the abort word once every SYMCHAN_ABORT_SPINS
// turns (a read across PCIe; a turn is an acquire load of device memory,
// so a wait ends well within a millisecond of the host's store), never on
// its first turns, so that a wait that ends at once pays nothing for it.
#define SYMCHAN_ABORT_SPINS 256
static __device__ __forceinline__ bool symchan_spin_aborted(const symchan_heap *h, unsigned *spins) {
	return (++*spins & (SYMCHAN_ABORT_SPINS - 1)) == 0 && symchan_aborted(h);
}

// symchan_now_ns reads the GPU's global nanosecond timer.
static __device__ __forceinline__ symchan_u64 symchan_now_ns() {
	symchan_u64 t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

// A timing log of n repetitions, which kernels.Timings decodes: the global
// timer and clock64 at the first one's start and the last one's end, then
// each one's clock64 cycles (SYMCHAN_TIMING_WORDS words, then n). Call
// symchan_timing_start before repetition i and symchan_timing_end after
// it, from one thread that stays on one SM throughout.
#define SYMCHAN_TIMING_WORDS 4
static __device__ __forceinline__ symchan_u64 symchan_timing_start(volatile symchan_u64 *log, symchan_u64 i) {
	const symchan_u64 t0 = clock64();
	if (i == 0) {
		log[0] = symchan_now_ns();
		log[2] = t0;
	}
	return t0;
}
static __device__ __forceinline__ void symchan_timing_end(volatile symchan_u64 *log, symchan_u64 i, symchan_u64 n, symchan_u64 t0) {
	const symchan_u64 t1 = clock64();
	log[SYMCHAN_TIMING_WORDS + i] = t1 - t0;
	if (i == n - 1) {
		log[1] = symchan_now_ns();
		log[3] = t1;
	}
}

// --- ordering -------------------------------------------------------------

#ifdef SYMCHAN_NVSHMEM
static __device__ __forceinline__ void symchan_fence() {
	__threadfence_system();
	nvshmem_fence();
}
static __device__ __forceinline__ void symchan_quiet() {
	__threadfence_system();
	nvshmem_quiet();
}
#else
static __device__ __forceinline__ void symchan_fence() { __threadfence_system(); }
static __device__ __forceinline__ void symchan_quiet() { __threadfence_system(); }
#endif

// --- groups ----------------------------------------------------------------
//
// Groups that run a team or mailbox routine together: every thread of the
// group calls it with the same arguments; thread 0 of the group waits and
// signals, all of them copy.
#define SYMCHAN_SCOPE_THREAD 0
#define SYMCHAN_SCOPE_WARP 1
#define SYMCHAN_SCOPE_BLOCK 2

static __device__ __forceinline__ void symchan_group_sync(int scope) {
	if (scope == SYMCHAN_SCOPE_WARP)
		__syncwarp();
	else if (scope == SYMCHAN_SCOPE_BLOCK)
		__syncthreads();
}

static __device__ __forceinline__ unsigned symchan_block_tid() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
static __device__ __forceinline__ unsigned symchan_block_size() { return blockDim.x * blockDim.y * blockDim.z; }

static __device__ __forceinline__ unsigned symchan_group_tid(int scope) {
	return scope == SYMCHAN_SCOPE_BLOCK ? symchan_block_tid() : scope == SYMCHAN_SCOPE_WARP ? (threadIdx.x & 31) : 0;
}
static __device__ __forceinline__ unsigned symchan_group_size(int scope) {
	return scope == SYMCHAN_SCOPE_BLOCK ? symchan_block_size() : scope == SYMCHAN_SCOPE_WARP ? 32 : 1;
}

// symchan_group_pick returns thread 0's v to every thread of the group.
// The block form waits first for every thread to have read the last
// call's value.
static __device__ __forceinline__ symchan_u64 symchan_group_pick(symchan_u64 v, int scope) {
	if (scope == SYMCHAN_SCOPE_WARP)
		return __shfl_sync(0xffffffffu, (unsigned long long)v, 0);
	if (scope != SYMCHAN_SCOPE_BLOCK)
		return v;
	__shared__ symchan_u64 picked;
	__syncthreads();
	if (symchan_block_tid() == 0)
		picked = v;
	__syncthreads();
	return picked;
}

// symchan_group_run returns to every thread of the group how many of its
// first threads (by symchan_group_tid) have ok: the run of them before
// the first without it.
static __device__ __forceinline__ unsigned symchan_group_run(bool ok, int scope) {
	if (scope == SYMCHAN_SCOPE_WARP) {
		const unsigned ready = __ballot_sync(0xffffffffu, ok);
		return ready == 0xffffffffu ? 32 : __ffs(~ready) - 1;
	}
	if (scope != SYMCHAN_SCOPE_BLOCK)
		return ok ? 1 : 0;
	__shared__ unsigned run;
	__syncthreads();
	if (symchan_block_tid() == 0)
		run = symchan_block_size();
	__syncthreads();
	if (!ok)
		atomicMin(&run, symchan_block_tid());
	__syncthreads();
	return run;
}

// SYMCHAN_GROUP_FORMS(ret, name, params, args...) declares the three forms
// of a routine (symchan_name, symchan_name_warp, symchan_name_block), each
// calling symchan_name_group(args..., its scope): the one way symchan.cuh
// makes a routine's group forms. A _group routine tells its forms apart
// only through the symchan_group_ helpers (tid, size, sync, pick, run,
// all, xor).
#define SYMCHAN_GROUP_FORMS(ret, name, params, ...)                                                                                      \
	static __device__ __forceinline__ ret symchan_##name params { return symchan_##name##_group(__VA_ARGS__, SYMCHAN_SCOPE_THREAD); }      \
	static __device__ __forceinline__ ret symchan_##name##_warp params { return symchan_##name##_group(__VA_ARGS__, SYMCHAN_SCOPE_WARP); } \
	static __device__ __forceinline__ ret symchan_##name##_block params { return symchan_##name##_group(__VA_ARGS__, SYMCHAN_SCOPE_BLOCK); }

#ifdef SYMCHAN_NVSHMEM
// SYMCHAN_NV_SCOPED calls NVSHMEM's routine of the group's scope:
// thread_fn, thread_fn's _warp or its _block form (nvshmemx_).
#define SYMCHAN_NV_SCOPED(scope, thread_fn, warp_fn, block_fn, args) \
	do {                                                           \
		if ((scope) == SYMCHAN_SCOPE_BLOCK)                        \
			block_fn args;                                         \
		else if ((scope) == SYMCHAN_SCOPE_WARP)                    \
			warp_fn args;                                          \
		else                                                       \
			thread_fn args;                                        \
	} while (0)
#endif

// --- put ------------------------------------------------------------------

// symchan_copy_part copies n bytes with `nthreads` cooperating threads, this
// one being `tid`, in 16-byte words when both ends allow it.
static __device__ __forceinline__ void symchan_copy_part(void *dst, const void *src, symchan_u64 n, unsigned tid, unsigned nthreads) {
	char *d = (char *)dst;
	const char *s = (const char *)src;
	symchan_u64 done = 0;
	if ((((symchan_u64)d | (symchan_u64)s) & 15) == 0) {
		symchan_u64 nv = n / 16;
		uint4 *dv = (uint4 *)d;
		const uint4 *sv = (const uint4 *)s;
		symchan_u64 i = tid;
		// Four loads in flight before their stores (the compiler may not
		// reorder them itself: dst and src could overlap as far as it knows).
		for (; i + 3ull * nthreads < nv; i += 4ull * nthreads) {
			const uint4 a = sv[i], b = sv[i + nthreads], c = sv[i + 2ull * nthreads], e = sv[i + 3ull * nthreads];
			dv[i] = a;
			dv[i + nthreads] = b;
			dv[i + 2ull * nthreads] = c;
			dv[i + 3ull * nthreads] = e;
		}
		for (; i < nv; i += nthreads)
			dv[i] = sv[i];
		done = nv * 16;
	} else if ((((symchan_u64)d | (symchan_u64)s) & 7) == 0) {
		symchan_u64 nv = n / 8;
		symchan_u64 *dv = (symchan_u64 *)d;
		const symchan_u64 *sv = (const symchan_u64 *)s;
		for (symchan_u64 i = tid; i < nv; i += nthreads)
			dv[i] = sv[i];
		done = nv * 8;
	}
	for (symchan_u64 i = done + tid; i < n; i += nthreads)
		d[i] = s[i];
}

// symchan_put (_warp, _block) copies n bytes from local src to pe's
// partition at off. Every thread of the group (one thread, a full warp,
// the block) calls it with the same arguments; the group forms return
// when the group is done.
static __device__ __forceinline__ void symchan_put_group(const symchan_heap *h, int pe, symchan_u64 off, const void *src, symchan_u64 n, int scope) {
	SYMCHAN_REMOTE(h, pe, SYMCHAN_NV_SCOPED(scope, nvshmem_putmem, nvshmemx_putmem_warp, nvshmemx_putmem_block, (symchan_sym(h, off), src, n, pe)); return)
	symchan_copy_part(symchan_ptr(h, pe, off), src, n, symchan_group_tid(scope), symchan_group_size(scope));
	symchan_group_sync(scope);
}
SYMCHAN_GROUP_FORMS(void, put, (const symchan_heap *h, int pe, symchan_u64 off, const void *src, symchan_u64 n), h, pe, off, src, n)

// --- get ------------------------------------------------------------------

// symchan_get (_warp, _block) copies n bytes from pe's partition at off
// to local dst; they are in dst when it returns (nvshmem_getmem). The
// source is read as it is: a get that must see data a signal announced
// follows the wait that saw the signal. Groups as symchan_put.
static __device__ __forceinline__ void symchan_get_group(const symchan_heap *h, void *dst, int pe, symchan_u64 off, symchan_u64 n, int scope) {
	SYMCHAN_REMOTE(h, pe, SYMCHAN_NV_SCOPED(scope, nvshmem_getmem, nvshmemx_getmem_warp, nvshmemx_getmem_block, (dst, symchan_sym(h, off), n, pe)); return)
	symchan_copy_part(dst, symchan_ptr(h, pe, off), n, symchan_group_tid(scope), symchan_group_size(scope));
	symchan_group_sync(scope);
}
SYMCHAN_GROUP_FORMS(void, get, (const symchan_heap *h, void *dst, int pe, symchan_u64 off, symchan_u64 n), h, dst, pe, off, n)

// --- signals --------------------------------------------------------------

#ifdef SYMCHAN_NVSHMEM
// symchan_nv_sigop is NVSHMEM's signal operation for ours.
static __device__ __forceinline__ int symchan_nv_sigop(int op) { return op == SYMCHAN_SIGNAL_ADD ? NVSHMEM_SIGNAL_ADD : NVSHMEM_SIGNAL_SET; }
#endif

// symchan_signal_op updates the uint64 signal word at pe's sig_off,
// atomically and without ordering earlier stores (NVSHMEM's signal_op;
// fence first, or use a put-with-signal, to publish data with it).
static __device__ __forceinline__ void symchan_signal_op(const symchan_heap *h, int pe, symchan_u64 sig_off, symchan_u64 value, int op) {
	SYMCHAN_REMOTE(h, pe,
	               nvshmemx_signal_op((uint64_t *)symchan_sym(h, sig_off), value, symchan_nv_sigop(op), pe);
	               return)
	symchan_u64 *p = (symchan_u64 *)symchan_ptr(h, pe, sig_off);
	if (op == SYMCHAN_SIGNAL_ADD)
		asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(value) : "memory");
	else
		asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(value) : "memory");
}

// symchan_signal_release is symchan_signal_op with release semantics: the
// calling thread's earlier stores are visible to whoever observes the
// update. Neither form waits for an answer from the peer.
static __device__ __forceinline__ void symchan_signal_release(const symchan_heap *h, int pe, symchan_u64 sig_off, symchan_u64 value, int op) {
	SYMCHAN_REMOTE(h, pe, symchan_fence(); symchan_signal_op(h, pe, sig_off, value, op); return)
	symchan_u64 *p = (symchan_u64 *)symchan_ptr(h, pe, sig_off);
	if (op == SYMCHAN_SIGNAL_ADD)
		asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(p), "l"(value) : "memory");
	else
		asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(value) : "memory");
}

// symchan_load_acquire reads a signal word; later reads see what was
// written before the update it returns.
static __device__ __forceinline__ symchan_u64 symchan_load_acquire(const volatile symchan_u64 *sig) {
	symchan_u64 v;
	asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(sig) : "memory");
	return v;
}

// symchan_signal_fetch reads a local signal word (acquire).
static __device__ __forceinline__ symchan_u64 symchan_signal_fetch(const volatile symchan_u64 *sig) { return symchan_load_acquire(sig); }

// symchan_put_signal (_warp, _block): the put, then pe's signal word at
// sig_off updated with op and value after it. One thread releases the
// signal, which orders its data stores before it; a group synchronises,
// then its first thread fences at system scope (cumulative over the
// group's stores) and signals.
static __device__ __forceinline__ void symchan_put_signal_group(const symchan_heap *h, int pe, symchan_u64 off, const void *src, symchan_u64 n,
                                                                symchan_u64 sig_off, symchan_u64 value, int op, int scope) {
	SYMCHAN_REMOTE(h, pe,
	               SYMCHAN_NV_SCOPED(scope, nvshmem_putmem_signal, nvshmemx_putmem_signal_warp, nvshmemx_putmem_signal_block,
	                                 (symchan_sym(h, off), src, n, (uint64_t *)symchan_sym(h, sig_off), value, symchan_nv_sigop(op), pe));
	               return)
	symchan_put_group(h, pe, off, src, n, scope);
	if (scope == SYMCHAN_SCOPE_THREAD) {
		symchan_signal_release(h, pe, sig_off, value, op);
		return;
	}
	if (symchan_group_tid(scope) == 0) {
		__threadfence_system();
		symchan_signal_op(h, pe, sig_off, value, op);
	}
	symchan_group_sync(scope);
}
SYMCHAN_GROUP_FORMS(void, put_signal,
                    (const symchan_heap *h, int pe, symchan_u64 off, const void *src, symchan_u64 n, symchan_u64 sig_off, symchan_u64 value, int op),
                    h, pe, off, src, n, sig_off, value, op)

// symchan_put_nbi, symchan_get_nbi and symchan_put_signal_nbi (_warp,
// _block) may return before their data has moved, as NVSHMEM's _nbi
// routines: the source of a put must not change, and the destination of
// a get is not to be read, until symchan_quiet. On a PE this GPU maps
// they are the blocking routines (stores and loads, done when they
// return, which _nbi allows); on one it does not, NVSHMEM's _nbi
// routines, whose transfer overlaps what follows.
static __device__ __forceinline__ void symchan_put_nbi_group(const symchan_heap *h, int pe, symchan_u64 off, const void *src, symchan_u64 n, int scope) {
	SYMCHAN_REMOTE(h, pe, SYMCHAN_NV_SCOPED(scope, nvshmem_putmem_nbi, nvshmemx_putmem_nbi_warp, nvshmemx_putmem_nbi_block, (symchan_sym(h, off), src, n, pe)); return)
	symchan_put_group(h, pe, off, src, n, scope);
}
SYMCHAN_GROUP_FORMS(void, put_nbi, (const symchan_heap *h, int pe, symchan_u64 off, const void *src, symchan_u64 n), h, pe, off, src, n)

static __device__ __forceinline__ void symchan_get_nbi_group(const symchan_heap *h, void *dst, int pe, symchan_u64 off, symchan_u64 n, int scope) {
	SYMCHAN_REMOTE(h, pe, SYMCHAN_NV_SCOPED(scope, nvshmem_getmem_nbi, nvshmemx_getmem_nbi_warp, nvshmemx_getmem_nbi_block, (dst, symchan_sym(h, off), n, pe)); return)
	symchan_get_group(h, dst, pe, off, n, scope);
}
SYMCHAN_GROUP_FORMS(void, get_nbi, (const symchan_heap *h, void *dst, int pe, symchan_u64 off, symchan_u64 n), h, dst, pe, off, n)

static __device__ __forceinline__ void symchan_put_signal_nbi_group(const symchan_heap *h, int pe, symchan_u64 off, const void *src, symchan_u64 n,
                                                                    symchan_u64 sig_off, symchan_u64 value, int op, int scope) {
	SYMCHAN_REMOTE(h, pe,
	               SYMCHAN_NV_SCOPED(scope, nvshmem_putmem_signal_nbi, nvshmemx_putmem_signal_nbi_warp, nvshmemx_putmem_signal_nbi_block,
	                                 (symchan_sym(h, off), src, n, (uint64_t *)symchan_sym(h, sig_off), value, symchan_nv_sigop(op), pe));
	               return)
	symchan_put_signal_group(h, pe, off, src, n, sig_off, value, op, scope);
}
SYMCHAN_GROUP_FORMS(void, put_signal_nbi,
                    (const symchan_heap *h, int pe, symchan_u64 off, const void *src, symchan_u64 n, symchan_u64 sig_off, symchan_u64 value, int op),
                    h, pe, off, src, n, sig_off, value, op)

// --- waits ----------------------------------------------------------------

static __device__ __forceinline__ bool symchan_compare(symchan_u64 word, int cmp, symchan_u64 value) {
	switch (cmp) {
	case SYMCHAN_CMP_EQ: return word == value;
	case SYMCHAN_CMP_NE: return word != value;
	case SYMCHAN_CMP_GT: return word > value;
	case SYMCHAN_CMP_GE: return word >= value;
	case SYMCHAN_CMP_LT: return word < value;
	case SYMCHAN_CMP_LE: return word <= value;
	}
	return false;
}

// symchan_wait_until blocks the calling thread until *sig cmp value and
// returns the word that satisfied it. Like NVSHMEM's, it waits for nothing
// else: a kernel that must end when its world fails waits with
// symchan_wait_until_h.
static __device__ __forceinline__ symchan_u64 symchan_wait_until(const volatile symchan_u64 *sig, int cmp, symchan_u64 value) {
	// Acquire loads in the spin: measured faster on H200 over NVLink than
	// volatile loads followed by a fence or a re-read.
	symchan_u64 v;
	while (!symchan_compare(v = symchan_load_acquire(sig), cmp, value))
		;
	return v;
}

// symchan_wait_until_h is symchan_wait_until that also ends when h's
// world fails or ends (symchan_aborted): it returns whether the word
// satisfied the comparison, and sets *got to the word it last read.
static __device__ __forceinline__ bool symchan_wait_until_h(const symchan_heap *h, const volatile symchan_u64 *sig, int cmp, symchan_u64 value,
                                                           symchan_u64 *got) {
	unsigned spins = 0;
	symchan_u64 v;
	while (!symchan_compare(v = symchan_load_acquire(sig), cmp, value))
		if (symchan_spin_aborted(h, &spins)) {
			*got = v;
			return false;
		}
	*got = v;
	return true;
}

// symchan_wait_until_all waits until every word i with status == 0 (or
// status NULL) satisfies cmp value (or values[i] when values is not NULL).
static __device__ __forceinline__ void symchan_wait_until_all(const volatile symchan_u64 *sigs, int n, const int *status, int cmp,
                                                             symchan_u64 value, const symchan_u64 *values) {
	for (int i = 0; i < n; i++)
		if (!status || !status[i])
			while (!symchan_compare(sigs[i], cmp, values ? values[i] : value))
				;
	__threadfence_system();
}

// symchan_wait_until_any returns the index of a satisfied word, scanning
// from *start and leaving *start after it, so repeated calls are fair; n == 0
// or every word excluded returns -1 at once.
static __device__ __forceinline__ int symchan_wait_until_any(const volatile symchan_u64 *sigs, int n, const int *status, int cmp,
                                                            symchan_u64 value, const symchan_u64 *values, int *start) {
	int live = 0;
	for (int i = 0; i < n; i++)
		live += !status || !status[i];
	if (live == 0)
		return -1;
	for (int i = start ? *start % n : 0;; i = (i + 1) % n) {
		if ((!status || !status[i]) && symchan_compare(sigs[i], cmp, values ? values[i] : value)) {
			__threadfence_system();
			if (start)
				*start = (i + 1) % n;
			return i;
		}
	}
}

// symchan_wait_until_some writes every satisfied index to indices and
// returns how many (at least one, or 0 at once for an empty set).
static __device__ __forceinline__ int symchan_wait_until_some(const volatile symchan_u64 *sigs, int n, const int *status, int cmp,
                                                             symchan_u64 value, const symchan_u64 *values, int *indices) {
	int live = 0;
	for (int i = 0; i < n; i++)
		live += !status || !status[i];
	if (live == 0)
		return 0;
	for (;;) {
		int k = 0;
		for (int i = 0; i < n; i++)
			if ((!status || !status[i]) && symchan_compare(sigs[i], cmp, values ? values[i] : value))
				indices[k++] = i;
		if (k > 0) {
			__threadfence_system();
			return k;
		}
	}
}

// --- peer pointers (nvshmem_ptr) ------------------------------------------

// symchan_pe_ptr returns the address of byte off of pe's partition, or NULL
// when pe is not a PE of the heap or off lies outside a partition. Every
// PE's partition is load/store reachable from every GPU of a cuda world
// (peer access is enabled pairwise), so it is NULL only for bad arguments.
static __device__ __forceinline__ void *symchan_pe_ptr(const symchan_heap *h, int pe, symchan_u64 off) {
	if (pe < 0 || pe >= h->npes || off >= h->size || h->base[pe] == 0)
		return NULL;
	return symchan_ptr(h, pe, off);
}

// --- strided put and get (nvshmem_iput, nvshmem_iget) ---------------------

// symchan_strided_part copies n elements of elem bytes from src, sst
// elements apart, to dst, tst elements apart, with nthreads cooperating
// threads (this one tid). Elements of 4, 8 or 16 bytes that are aligned
// move as one load and store.
static __device__ __forceinline__ void symchan_strided_part(void *dst, symchan_u64 tst, const void *src, symchan_u64 sst, symchan_u64 elem,
                                                            symchan_u64 n, unsigned tid, unsigned nthreads) {
	char *d = (char *)dst;
	const char *s = (const char *)src;
	const symchan_u64 al = (symchan_u64)d | (symchan_u64)s | (tst * elem) | (sst * elem);
	for (symchan_u64 i = tid; i < n; i += nthreads) {
		char *di = d + i * tst * elem;
		const char *si = s + i * sst * elem;
		if (elem == 8 && (al & 7) == 0)
			*(symchan_u64 *)di = *(const symchan_u64 *)si;
		else if (elem == 4 && (al & 3) == 0)
			*(unsigned *)di = *(const unsigned *)si;
		else if (elem == 16 && (al & 15) == 0)
			*(uint4 *)di = *(const uint4 *)si;
		else
			for (symchan_u64 b = 0; b < elem; b++)
				di[b] = si[b];
	}
}

#ifdef SYMCHAN_NVSHMEM
// symchan_remote_strided is a strided put (or get) on an unmapped PE
// through NVSHMEM: its sized iput/iget where elem is one of their sizes,
// else one putmem (getmem) per element. remote_off is the symmetric side.
static __device__ __forceinline__ void symchan_remote_strided(const symchan_heap *h, bool put, int pe, symchan_u64 remote_off, void *local,
                                                              symchan_u64 rst, symchan_u64 lst, symchan_u64 elem, symchan_u64 n) {
	void *r = symchan_sym(h, remote_off);
#define SYMCHAN_ISTRIDED(bits)                                                 \
	if (put)                                                                   \
		nvshmem_iput##bits(r, local, (ptrdiff_t)rst, (ptrdiff_t)lst, n, pe);   \
	else                                                                       \
		nvshmem_iget##bits(local, r, (ptrdiff_t)lst, (ptrdiff_t)rst, n, pe);   \
	return;
	switch (elem) {
	case 1: SYMCHAN_ISTRIDED(8)
	case 2: SYMCHAN_ISTRIDED(16)
	case 4: SYMCHAN_ISTRIDED(32)
	case 8: SYMCHAN_ISTRIDED(64)
	case 16: SYMCHAN_ISTRIDED(128)
	}
#undef SYMCHAN_ISTRIDED
	for (symchan_u64 i = 0; i < n; i++) {
		char *ri = (char *)r + i * rst * elem, *li = (char *)local + i * lst * elem;
		if (put)
			nvshmem_putmem(ri, li, elem, pe);
		else
			nvshmem_getmem(li, ri, elem, pe);
	}
}
// A group's strided routine on an unmapped PE: its first thread moves it all.
#define SYMCHAN_REMOTE_STRIDED_GROUP(h, put, pe, off, local, rst, lst, elem, n, first, sync) \
	SYMCHAN_REMOTE(h, pe, if (first) symchan_remote_strided(h, put, pe, off, (void *)(local), rst, lst, elem, n); sync; return)
#else
#define SYMCHAN_REMOTE_STRIDED_GROUP(h, put, pe, off, local, rst, lst, elem, n, first, sync)
#endif

// symchan_iput (_warp, _block) copies n elements of elem bytes from local
// src (sst elements apart) to pe's partition at off (tst elements apart).
// Like symchan_put it is complete for the caller at once and visible to
// others after symchan_fence/quiet or a signal release; groups as
// symchan_put.
static __device__ __forceinline__ void symchan_iput_group(const symchan_heap *h, int pe, symchan_u64 off, const void *src, symchan_u64 tst,
                                                          symchan_u64 sst, symchan_u64 elem, symchan_u64 n, int scope) {
	SYMCHAN_REMOTE_STRIDED_GROUP(h, true, pe, off, src, tst, sst, elem, n, symchan_group_tid(scope) == 0, symchan_group_sync(scope))
	symchan_strided_part(symchan_ptr(h, pe, off), tst, src, sst, elem, n, symchan_group_tid(scope), symchan_group_size(scope));
	symchan_group_sync(scope);
}
SYMCHAN_GROUP_FORMS(void, iput,
                    (const symchan_heap *h, int pe, symchan_u64 off, const void *src, symchan_u64 tst, symchan_u64 sst, symchan_u64 elem, symchan_u64 n),
                    h, pe, off, src, tst, sst, elem, n)

// symchan_iget (_warp, _block) copies n elements of elem bytes from pe's
// partition at off (sst elements apart) into local dst (tst elements
// apart); groups as symchan_get.
static __device__ __forceinline__ void symchan_iget_group(const symchan_heap *h, void *dst, symchan_u64 tst, int pe, symchan_u64 off,
                                                          symchan_u64 sst, symchan_u64 elem, symchan_u64 n, int scope) {
	SYMCHAN_REMOTE_STRIDED_GROUP(h, false, pe, off, dst, sst, tst, elem, n, symchan_group_tid(scope) == 0, symchan_group_sync(scope))
	symchan_strided_part(dst, tst, symchan_ptr(h, pe, off), sst, elem, n, symchan_group_tid(scope), symchan_group_size(scope));
	symchan_group_sync(scope);
}
SYMCHAN_GROUP_FORMS(void, iget,
                    (const symchan_heap *h, void *dst, symchan_u64 tst, int pe, symchan_u64 off, symchan_u64 sst, symchan_u64 elem, symchan_u64 n),
                    h, dst, tst, pe, off, sst, elem, n)

// --- fetching atomics (nvshmem_atomic_fetch_*) ----------------------------
//
// On any PE's word of 32 or 64 bits, at system scope (the word may be
// read or updated by the host and by other GPUs meanwhile); each returns the
// previous value. They order nothing else: fence first to publish data.

static __device__ __forceinline__ symchan_u64 symchan_atomic_fetch_add(const symchan_heap *h, int pe, symchan_u64 off, symchan_u64 v) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint64_atomic_fetch_add((uint64_t *)symchan_sym(h, off), v, pe))
	return atomicAdd_system((unsigned long long *)symchan_ptr(h, pe, off), v);
}
static __device__ __forceinline__ unsigned symchan_atomic_fetch_add32(const symchan_heap *h, int pe, symchan_u64 off, unsigned v) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint32_atomic_fetch_add((uint32_t *)symchan_sym(h, off), v, pe))
	return atomicAdd_system((unsigned *)symchan_ptr(h, pe, off), v);
}
static __device__ __forceinline__ symchan_u64 symchan_atomic_compare_swap(const symchan_heap *h, int pe, symchan_u64 off, symchan_u64 cond,
                                                                       symchan_u64 v) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint64_atomic_compare_swap((uint64_t *)symchan_sym(h, off), cond, v, pe))
	return atomicCAS_system((unsigned long long *)symchan_ptr(h, pe, off), cond, v);
}
static __device__ __forceinline__ unsigned symchan_atomic_compare_swap32(const symchan_heap *h, int pe, symchan_u64 off, unsigned cond,
                                                                      unsigned v) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint32_atomic_compare_swap((uint32_t *)symchan_sym(h, off), cond, v, pe))
	return atomicCAS_system((unsigned *)symchan_ptr(h, pe, off), cond, v);
}
static __device__ __forceinline__ symchan_u64 symchan_atomic_swap(const symchan_heap *h, int pe, symchan_u64 off, symchan_u64 v) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint64_atomic_swap((uint64_t *)symchan_sym(h, off), v, pe))
	return atomicExch_system((unsigned long long *)symchan_ptr(h, pe, off), v);
}
static __device__ __forceinline__ unsigned symchan_atomic_swap32(const symchan_heap *h, int pe, symchan_u64 off, unsigned v) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint32_atomic_swap((uint32_t *)symchan_sym(h, off), v, pe))
	return atomicExch_system((unsigned *)symchan_ptr(h, pe, off), v);
}
static __device__ __forceinline__ symchan_u64 symchan_atomic_fetch(const symchan_heap *h, int pe, symchan_u64 off) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint64_atomic_fetch((uint64_t *)symchan_sym(h, off), pe))
	symchan_u64 v;
	asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(symchan_ptr(h, pe, off)) : "memory");
	return v;
}
static __device__ __forceinline__ unsigned symchan_atomic_fetch32(const symchan_heap *h, int pe, symchan_u64 off) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint32_atomic_fetch((uint32_t *)symchan_sym(h, off), pe))
	unsigned v;
	asm volatile("ld.relaxed.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(symchan_ptr(h, pe, off)) : "memory");
	return v;
}
static __device__ __forceinline__ symchan_u64 symchan_atomic_fetch_and(const symchan_heap *h, int pe, symchan_u64 off, symchan_u64 v) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint64_atomic_fetch_and((uint64_t *)symchan_sym(h, off), v, pe))
	return atomicAnd_system((unsigned long long *)symchan_ptr(h, pe, off), v);
}
static __device__ __forceinline__ symchan_u64 symchan_atomic_fetch_or(const symchan_heap *h, int pe, symchan_u64 off, symchan_u64 v) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint64_atomic_fetch_or((uint64_t *)symchan_sym(h, off), v, pe))
	return atomicOr_system((unsigned long long *)symchan_ptr(h, pe, off), v);
}
static __device__ __forceinline__ symchan_u64 symchan_atomic_fetch_xor(const symchan_heap *h, int pe, symchan_u64 off, symchan_u64 v) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint64_atomic_fetch_xor((uint64_t *)symchan_sym(h, off), v, pe))
	return atomicXor_system((unsigned long long *)symchan_ptr(h, pe, off), v);
}
static __device__ __forceinline__ unsigned symchan_atomic_fetch_and32(const symchan_heap *h, int pe, symchan_u64 off, unsigned v) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint32_atomic_fetch_and((uint32_t *)symchan_sym(h, off), v, pe))
	return atomicAnd_system((unsigned *)symchan_ptr(h, pe, off), v);
}
static __device__ __forceinline__ unsigned symchan_atomic_fetch_or32(const symchan_heap *h, int pe, symchan_u64 off, unsigned v) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint32_atomic_fetch_or((uint32_t *)symchan_sym(h, off), v, pe))
	return atomicOr_system((unsigned *)symchan_ptr(h, pe, off), v);
}
static __device__ __forceinline__ unsigned symchan_atomic_fetch_xor32(const symchan_heap *h, int pe, symchan_u64 off, unsigned v) {
	SYMCHAN_REMOTE(h, pe, return nvshmem_uint32_atomic_fetch_xor((uint32_t *)symchan_sym(h, off), v, pe))
	return atomicXor_system((unsigned *)symchan_ptr(h, pe, off), v);
}
// Floating-point words move as their bits (the spec's extended AMO types
// have fetch, set and swap only).
static __device__ __forceinline__ double symchan_atomic_swap_double(const symchan_heap *h, int pe, symchan_u64 off, double v) {
	return __longlong_as_double((long long)symchan_atomic_swap(h, pe, off, (symchan_u64)__double_as_longlong(v)));
}
static __device__ __forceinline__ float symchan_atomic_swap_float(const symchan_heap *h, int pe, symchan_u64 off, float v) {
	return __int_as_float((int)symchan_atomic_swap32(h, pe, off, (unsigned)__float_as_int(v)));
}

// --- in NVSHMEM's terms: symmetric pointers and PE numbers ---------------
//
// The routines above name symmetric memory by its offset in the heap; these
// take what NVSHMEM's take: dest and source (or sig_addr) are this PE's
// address of a symmetric object (what pgas.Launch passes for a Sym, or
// symchan_sym), pe the PE whose copy the routine reaches, and they go the
// same way (load/store or copy on a peer this GPU maps, NVSHMEM's routine
// on one it does not). Local buffers (src of a put, dest of a get) are any
// device memory. Waits, fence and quiet above already take pointers.

// symchan_off is the heap offset of this PE's address p of a symmetric object.
static __device__ __forceinline__ symchan_u64 symchan_off(const symchan_heap *h, const void *p) { return (symchan_u64)p - h->local; }
static __device__ __forceinline__ int symchan_my_pe(const symchan_heap *h) { return h->pe; }
static __device__ __forceinline__ int symchan_n_pes(const symchan_heap *h) { return h->npes; }

// nvshmem_putmem, _warp, _block: n bytes from local source to dest on pe.
static __device__ __forceinline__ void symchan_putmem_group(const symchan_heap *h, void *dest, const void *source, symchan_u64 n, int pe, int scope) {
	symchan_put_group(h, pe, symchan_off(h, dest), source, n, scope);
}
SYMCHAN_GROUP_FORMS(void, putmem, (const symchan_heap *h, void *dest, const void *source, symchan_u64 n, int pe), h, dest, source, n, pe)
// nvshmem_getmem, _warp, _block: n bytes of source on pe to local dest.
static __device__ __forceinline__ void symchan_getmem_group(const symchan_heap *h, void *dest, const void *source, symchan_u64 n, int pe, int scope) {
	symchan_get_group(h, dest, pe, symchan_off(h, source), n, scope);
}
SYMCHAN_GROUP_FORMS(void, getmem, (const symchan_heap *h, void *dest, const void *source, symchan_u64 n, int pe), h, dest, source, n, pe)
// nvshmem_putmem_signal, _warp, _block: the put, then sig_addr on pe
// updated by sig_op (SYMCHAN_SIGNAL_SET or _ADD) with signal, after it.
static __device__ __forceinline__ void symchan_putmem_signal_group(const symchan_heap *h, void *dest, const void *source, symchan_u64 n,
                                                                   symchan_u64 *sig_addr, symchan_u64 signal, int sig_op, int pe, int scope) {
	symchan_put_signal_group(h, pe, symchan_off(h, dest), source, n, symchan_off(h, sig_addr), signal, sig_op, scope);
}
SYMCHAN_GROUP_FORMS(void, putmem_signal,
                    (const symchan_heap *h, void *dest, const void *source, symchan_u64 n, symchan_u64 *sig_addr, symchan_u64 signal, int sig_op, int pe),
                    h, dest, source, n, sig_addr, signal, sig_op, pe)
// nvshmem_putmem_nbi, _getmem_nbi, _putmem_signal_nbi (_warp, _block):
// as above, completed by symchan_quiet (see symchan_put_nbi).
static __device__ __forceinline__ void symchan_putmem_nbi_group(const symchan_heap *h, void *dest, const void *source, symchan_u64 n, int pe, int scope) {
	symchan_put_nbi_group(h, pe, symchan_off(h, dest), source, n, scope);
}
SYMCHAN_GROUP_FORMS(void, putmem_nbi, (const symchan_heap *h, void *dest, const void *source, symchan_u64 n, int pe), h, dest, source, n, pe)
static __device__ __forceinline__ void symchan_getmem_nbi_group(const symchan_heap *h, void *dest, const void *source, symchan_u64 n, int pe, int scope) {
	symchan_get_nbi_group(h, dest, pe, symchan_off(h, source), n, scope);
}
SYMCHAN_GROUP_FORMS(void, getmem_nbi, (const symchan_heap *h, void *dest, const void *source, symchan_u64 n, int pe), h, dest, source, n, pe)
static __device__ __forceinline__ void symchan_putmem_signal_nbi_group(const symchan_heap *h, void *dest, const void *source, symchan_u64 n,
                                                                       symchan_u64 *sig_addr, symchan_u64 signal, int sig_op, int pe, int scope) {
	symchan_put_signal_nbi_group(h, pe, symchan_off(h, dest), source, n, symchan_off(h, sig_addr), signal, sig_op, scope);
}
SYMCHAN_GROUP_FORMS(void, putmem_signal_nbi,
                    (const symchan_heap *h, void *dest, const void *source, symchan_u64 n, symchan_u64 *sig_addr, symchan_u64 signal, int sig_op, int pe),
                    h, dest, source, n, sig_addr, signal, sig_op, pe)
// nvshmemx_signal_op: sig_addr on pe updated by sig_op with signal.
static __device__ __forceinline__ void symchan_signal(const symchan_heap *h, symchan_u64 *sig_addr, symchan_u64 signal, int sig_op, int pe) {
	symchan_signal_op(h, pe, symchan_off(h, sig_addr), signal, sig_op);
}
// nvshmem_uint64_atomic_* and nvshmem_uint32_atomic_*, on dest (source) of
// pe: fetch_add, compare_swap, swap, fetch, fetch_and/or/xor and
// fetch_inc return the value before; add, inc and set do not. Each is
// complete for the caller when it returns; none orders anything else.
#define SYMCHAN_AMO_TERMS(T, name, sfx)                                                                                           \
	static __device__ __forceinline__ T symchan_##name##_atomic_fetch_add(const symchan_heap *h, T *dest, T value, int pe) {      \
		return symchan_atomic_fetch_add##sfx(h, pe, symchan_off(h, dest), value);                                              \
	}                                                                                                                          \
	static __device__ __forceinline__ T symchan_##name##_atomic_compare_swap(const symchan_heap *h, T *dest, T cond, T value,     \
	                                                                         int pe) {                                       \
		return symchan_atomic_compare_swap##sfx(h, pe, symchan_off(h, dest), cond, value);                                     \
	}                                                                                                                          \
	static __device__ __forceinline__ T symchan_##name##_atomic_swap(const symchan_heap *h, T *dest, T value, int pe) {          \
		return symchan_atomic_swap##sfx(h, pe, symchan_off(h, dest), value);                                                   \
	}                                                                                                                          \
	static __device__ __forceinline__ T symchan_##name##_atomic_fetch(const symchan_heap *h, const T *source, int pe) {          \
		return symchan_atomic_fetch##sfx(h, pe, symchan_off(h, source));                                                       \
	}                                                                                                                          \
	static __device__ __forceinline__ T symchan_##name##_atomic_fetch_and(const symchan_heap *h, T *dest, T value, int pe) {      \
		return symchan_atomic_fetch_and##sfx(h, pe, symchan_off(h, dest), value);                                              \
	}                                                                                                                          \
	static __device__ __forceinline__ T symchan_##name##_atomic_fetch_or(const symchan_heap *h, T *dest, T value, int pe) {       \
		return symchan_atomic_fetch_or##sfx(h, pe, symchan_off(h, dest), value);                                               \
	}                                                                                                                          \
	static __device__ __forceinline__ T symchan_##name##_atomic_fetch_xor(const symchan_heap *h, T *dest, T value, int pe) {      \
		return symchan_atomic_fetch_xor##sfx(h, pe, symchan_off(h, dest), value);                                              \
	}                                                                                                                          \
	static __device__ __forceinline__ T symchan_##name##_atomic_fetch_inc(const symchan_heap *h, T *dest, int pe) {               \
		return symchan_atomic_fetch_add##sfx(h, pe, symchan_off(h, dest), 1);                                                  \
	}                                                                                                                          \
	static __device__ __forceinline__ void symchan_##name##_atomic_add(const symchan_heap *h, T *dest, T value, int pe) {         \
		(void)symchan_atomic_fetch_add##sfx(h, pe, symchan_off(h, dest), value);                                               \
	}                                                                                                                          \
	static __device__ __forceinline__ void symchan_##name##_atomic_inc(const symchan_heap *h, T *dest, int pe) {                  \
		(void)symchan_atomic_fetch_add##sfx(h, pe, symchan_off(h, dest), 1);                                                   \
	}                                                                                                                          \
	static __device__ __forceinline__ void symchan_##name##_atomic_set(const symchan_heap *h, T *dest, T value, int pe) {         \
		(void)symchan_atomic_swap##sfx(h, pe, symchan_off(h, dest), value);                                                    \
	}
SYMCHAN_AMO_TERMS(symchan_u64, uint64, )
SYMCHAN_AMO_TERMS(unsigned long, uint64, ) // uint64_t where it is unsigned long (see symchan_word)
SYMCHAN_AMO_TERMS(unsigned, uint32, 32)
#undef SYMCHAN_AMO_TERMS

// symchan_word: a signal word may be spelt uint64_t, which is unsigned
// long where glibc's headers say so (nvcc, and the nvshmem variant of
// kernels.Compile) and unsigned long long (symchan_u64) under plain NVRTC
// (the cuda variant). Every routine that takes a signal word or a uint64
// word by address takes either, so a kernel compiles alike for both
// backends.
static_assert(sizeof(unsigned long) == 8, "symchan.cuh needs a 64-bit unsigned long (LP64)");
#define SYMCHAN_WORD(p) ((symchan_u64 *)(p))
#define SYMCHAN_CWORD(p) ((const volatile symchan_u64 *)(p))
static __device__ __forceinline__ symchan_u64 symchan_signal_fetch(const volatile unsigned long *sig) { return symchan_signal_fetch(SYMCHAN_CWORD(sig)); }
static __device__ __forceinline__ symchan_u64 symchan_wait_until(const volatile unsigned long *sig, int cmp, symchan_u64 value) {
	return symchan_wait_until(SYMCHAN_CWORD(sig), cmp, value);
}
static __device__ __forceinline__ bool symchan_wait_until_h(const symchan_heap *h, const volatile unsigned long *sig, int cmp, symchan_u64 value,
                                                           symchan_u64 *got) {
	return symchan_wait_until_h(h, SYMCHAN_CWORD(sig), cmp, value, got);
}
static __device__ __forceinline__ void symchan_wait_until_all(const volatile unsigned long *sigs, int n, const int *status, int cmp,
                                                             symchan_u64 value, const unsigned long *values) {
	symchan_wait_until_all(SYMCHAN_CWORD(sigs), n, status, cmp, value, (const symchan_u64 *)values);
}
static __device__ __forceinline__ int symchan_wait_until_any(const volatile unsigned long *sigs, int n, const int *status, int cmp,
                                                            symchan_u64 value, const unsigned long *values, int *start) {
	return symchan_wait_until_any(SYMCHAN_CWORD(sigs), n, status, cmp, value, (const symchan_u64 *)values, start);
}
static __device__ __forceinline__ int symchan_wait_until_some(const volatile unsigned long *sigs, int n, const int *status, int cmp,
                                                             symchan_u64 value, const unsigned long *values, int *indices) {
	return symchan_wait_until_some(SYMCHAN_CWORD(sigs), n, status, cmp, value, (const symchan_u64 *)values, indices);
}
static __device__ __forceinline__ void symchan_signal(const symchan_heap *h, unsigned long *sig_addr, symchan_u64 signal, int sig_op, int pe) {
	symchan_signal(h, SYMCHAN_WORD(sig_addr), signal, sig_op, pe);
}
static __device__ __forceinline__ void symchan_putmem_signal_group(const symchan_heap *h, void *dest, const void *source, symchan_u64 n,
                                                                   unsigned long *sig_addr, symchan_u64 signal, int sig_op, int pe, int scope) {
	symchan_putmem_signal_group(h, dest, source, n, SYMCHAN_WORD(sig_addr), signal, sig_op, pe, scope);
}
SYMCHAN_GROUP_FORMS(void, putmem_signal,
                    (const symchan_heap *h, void *dest, const void *source, symchan_u64 n, unsigned long *sig_addr, symchan_u64 signal, int sig_op, int pe),
                    h, dest, source, n, sig_addr, signal, sig_op, pe)
static __device__ __forceinline__ void symchan_putmem_signal_nbi_group(const symchan_heap *h, void *dest, const void *source, symchan_u64 n,
                                                                       unsigned long *sig_addr, symchan_u64 signal, int sig_op, int pe, int scope) {
	symchan_putmem_signal_nbi_group(h, dest, source, n, SYMCHAN_WORD(sig_addr), signal, sig_op, pe, scope);
}
SYMCHAN_GROUP_FORMS(void, putmem_signal_nbi,
                    (const symchan_heap *h, void *dest, const void *source, symchan_u64 n, unsigned long *sig_addr, symchan_u64 signal, int sig_op, int pe),
                    h, dest, source, n, sig_addr, signal, sig_op, pe)

// nvshmem_float_atomic_* and nvshmem_double_atomic_*: fetch, set and swap
// (the spec's extended types have no others).
static __device__ __forceinline__ float symchan_float_atomic_swap(const symchan_heap *h, float *dest, float value, int pe) {
	return symchan_atomic_swap_float(h, pe, symchan_off(h, dest), value);
}
static __device__ __forceinline__ void symchan_float_atomic_set(const symchan_heap *h, float *dest, float value, int pe) {
	(void)symchan_atomic_swap_float(h, pe, symchan_off(h, dest), value);
}
static __device__ __forceinline__ float symchan_float_atomic_fetch(const symchan_heap *h, const float *source, int pe) {
	return __int_as_float((int)symchan_atomic_fetch32(h, pe, symchan_off(h, source)));
}
static __device__ __forceinline__ double symchan_double_atomic_swap(const symchan_heap *h, double *dest, double value, int pe) {
	return symchan_atomic_swap_double(h, pe, symchan_off(h, dest), value);
}
static __device__ __forceinline__ void symchan_double_atomic_set(const symchan_heap *h, double *dest, double value, int pe) {
	(void)symchan_atomic_swap_double(h, pe, symchan_off(h, dest), value);
}
static __device__ __forceinline__ double symchan_double_atomic_fetch(const symchan_heap *h, const double *source, int pe) {
	return __longlong_as_double((long long)symchan_atomic_fetch(h, pe, symchan_off(h, source)));
}

// nvshmem_iput8 … _iput128 and nvshmem_iget8 … _iget128, with their _warp
// and _block forms (nvshmemx_): nelems elements of BITS/8 bytes, the
// symmetric side every dst-th (iput) or sst-th (iget) element, the local
// side every sst-th (iput) or dst-th (iget). Complete as symchan_putmem's
// and symchan_getmem's are.
#define SYMCHAN_STRIDED_FORMS(bits)                                                                                                      \
	static __device__ __forceinline__ void symchan_iput##bits##_group(const symchan_heap *h, void *dest, const void *source, symchan_u64 dst, \
	                                                                  symchan_u64 sst, symchan_u64 nelems, int pe, int scope) {            \
		symchan_iput_group(h, pe, symchan_off(h, dest), source, dst, sst, (bits) / 8, nelems, scope);                                      \
	}                                                                                                                                      \
	static __device__ __forceinline__ void symchan_iget##bits##_group(const symchan_heap *h, void *dest, const void *source, symchan_u64 dst, \
	                                                                  symchan_u64 sst, symchan_u64 nelems, int pe, int scope) {            \
		symchan_iget_group(h, dest, dst, pe, symchan_off(h, source), sst, (bits) / 8, nelems, scope);                                      \
	}                                                                                                                                      \
	SYMCHAN_GROUP_FORMS(void, iput##bits, (const symchan_heap *h, void *dest, const void *source, symchan_u64 dst, symchan_u64 sst,        \
	                                       symchan_u64 nelems, int pe),                                                                    \
	                    h, dest, source, dst, sst, nelems, pe)                                                                             \
	SYMCHAN_GROUP_FORMS(void, iget##bits, (const symchan_heap *h, void *dest, const void *source, symchan_u64 dst, symchan_u64 sst,        \
	                                       symchan_u64 nelems, int pe),                                                                    \
	                    h, dest, source, dst, sst, nelems, pe)
SYMCHAN_STRIDED_FORMS(8)
SYMCHAN_STRIDED_FORMS(16)
SYMCHAN_STRIDED_FORMS(32)
SYMCHAN_STRIDED_FORMS(64)
SYMCHAN_STRIDED_FORMS(128)
#undef SYMCHAN_STRIDED_FORMS

// --- teams and their collectives ------------------------------------------
//
// A team (pgas.Team) is strided, as NVSHMEM's are: rank r is world PE
// start + r·stride. Every member keeps a struct symchan_team in its team's
// control slot, at the same heap offset on every member, so the struct is
// a symmetric object: pgas.Launch passes this PE's copy for a *pgas.Team
// argument, and symchan_team_world and symchan_team_node find the two
// teams every world has. Routines take it where NVSHMEM's take a
// nvshmem_team_t.
//
// The collectives synchronise in phases: in each phase a member adds to
// every member's arrivals word of the phase's parity (release, after its
// group's stores and puts are complete) and waits until its own word holds
// every member's addition. Members must call a team's collectives in the
// same order; host-side collectives on a stream (pgas.BarrierOnStream,
// pgas.ReduceAllOnStream, …) are phases of the same sequence. Each
// collective opens with a phase (everyone's sources are ready and nobody
// still reads a destination of an earlier one) and closes with one (the
// results are complete, and sources may change); a barrier is its opening
// phase alone. Sources are read where they are (a pull); source and
// destination are symmetric, as NVSHMEM requires. The _warp and _block
// forms are called by every thread of a full warp or of the block with the
// same arguments; the plain form by one thread. Only one group of a PE runs
// a given team's collective at a time.
//
// Members that disagree on a collective (its kind, byte or element count,
// root, operator, element type) are found, where NVSHMEM leaves the result
// undefined: a member adds 1 + sig<<32 in the phase that opens a
// collective, sig a 32-bit signature of its arguments (1 in other phases),
// so the word's low half counts arrivals and its high half sums
// signatures. A member's word is complete when its low half has grown by
// the team's size (nobody can add to that parity again before this member
// has arrived in the next phase), and the members agreed when it grew by
// exactly size·(1 + sig<<32). When they did not, every member (but for a
// 2^-31 chance of equal sums) skips the collective's data step, runs its
// closing phase (a barrier adds one), records the phase and its arguments
// in its struct for the host (pgas.Stream.Sync names the argument and the
// members from them), tells the host so through t->notice, and returns
// SYMCHAN_ERR_MISMATCH; the team goes on.

// symchan_team is laid out as pgas writes it (kernels.Team*).
struct symchan_team {
	int rank;               // this PE's rank in the team
	int size;               // members
	int start;              // world PE of rank 0
	int stride;             // world PEs between ranks
	symchan_u64 arrivals[2]; // by phase parity: every member adds 1 + sig<<32 once a phase of that parity
	symchan_u64 seen[2];     // arrivals[p] when this PE's last phase of parity p ended (only it writes these and below)
	symchan_u64 phases;      // phases this PE has begun
	symchan_u64 differed;    // the phase that opened this PE's last collective whose members differed; 0: none
	symchan_u64 args[5];     // this PE's arguments in that collective: kind (SYMCHAN_COLL_*), count, root, operator, element type
	symchan_u64 *notice;     // where the host learns of a mismatch without a read from the GPU (its phase; mapped host memory), or NULL
	symchan_u64 abort;       // nonzero once a member abandoned a collective of the team (pgas's blocking collectives): every wait of the team ends
	symchan_u64 ctl;         // seq<<2 | how the host's blocking collective seq was decided on this PE (SYMCHAN_CTL_*)
	symchan_u64 small;       // heap offset of the team's small-message buffers, two of small_bytes by phase parity (the same on every member); 0: none
	symchan_u64 small_bytes; // bytes of each
};

// How a blocking collective called from the host was decided on its PE
// (symchan_team.ctl): its kernel went on to its closing phase, or the
// host abandoned it first (pgas: Team.decideCancel, a compare-and-swap
// of ctl through the transport).
#define SYMCHAN_CTL_CLOSING 1
#define SYMCHAN_CTL_CANCELLED 2

// symchan_team_decide moves t->ctl from "collective seq-1 decided" to
// seq<<2 | how, and returns how collective seq was decided (how, or what
// the other side decided first).
static __device__ __forceinline__ symchan_u64 symchan_team_decide(symchan_team *t, symchan_u64 seq, symchan_u64 how) {
	symchan_u64 c = *(volatile symchan_u64 *)&t->ctl;
	while (c >> 2 < seq) {
		const symchan_u64 was = atomicCAS((unsigned long long *)&t->ctl, c, seq << 2 | how);
		if (was == c)
			return how;
		c = was;
	}
	return c & 3;
}

// Kinds of collective, in their signatures and in symchan_team.args
// (pgas names them by these numbers too).
#define SYMCHAN_COLL_BARRIER 1
#define SYMCHAN_COLL_SYNC 2
#define SYMCHAN_COLL_BROADCAST 3
#define SYMCHAN_COLL_FCOLLECT 4
#define SYMCHAN_COLL_ALLTOALL 5
#define SYMCHAN_COLL_REDUCE 6
#define SYMCHAN_COLL_ALLTOALLV 7
// Kinds from 16 up are pgas's: host synchronisations that agree on the
// device first, and a member whose arguments were invalid.
//
// SYMCHAN_COLL_BLOCKING is or-ed into the kind of a collective called
// blocking from Go (pgas: symchan.cu's symchan_team_step with a seq) that
// a stream or a kernel runs in one phase: a barrier, a sync, a small
// collective. The blocking one keeps two phases, so its signature differs
// and a member that called the other form sees a mismatch on every member
// instead of a team whose phases fall out of step.
#define SYMCHAN_COLL_BLOCKING 256

// SYMCHAN_ERR_MISMATCH is what a device collective returns when the
// members' arguments differed (0 when they agreed); SYMCHAN_ERR_ABORTED
// when the world failed or ended while it waited for a member
// (symchan_aborted): its data is then undefined, and so is every later
// collective of the team, which return at once.
#define SYMCHAN_ERR_MISMATCH 1
#define SYMCHAN_ERR_ABORTED 2

// Where the world's and the node's teams keep their struct in every
// partition (pgas: the control slots of TeamWorld and TeamNode).
#define SYMCHAN_TEAM_WORLD_OFF 832
#define SYMCHAN_TEAM_NODE_OFF 1792

// symchan_team_world and symchan_team_node are NVSHMEM_TEAM_WORLD and
// NVSHMEMX_TEAM_NODE: every PE, and the PEs on this PE's node.
static __device__ __forceinline__ symchan_team *symchan_team_world(const symchan_heap *h) {
	return (symchan_team *)symchan_sym(h, SYMCHAN_TEAM_WORLD_OFF);
}
static __device__ __forceinline__ symchan_team *symchan_team_node(const symchan_heap *h) {
	return (symchan_team *)symchan_sym(h, SYMCHAN_TEAM_NODE_OFF);
}

// nvshmem_team_my_pe, _n_pes, _translate_pe.
static __device__ __forceinline__ int symchan_team_my_pe(const symchan_team *t) { return t->rank; }
static __device__ __forceinline__ int symchan_team_n_pes(const symchan_team *t) { return t->size; }
// symchan_team_world_pe is the world PE of rank r of t.
static __device__ __forceinline__ int symchan_team_world_pe(const symchan_team *t, int r) { return t->start + r * t->stride; }
// symchan_team_translate_pe is the rank in dst of rank r of src, or -1
// where that PE is not a member of dst (or r no rank of src).
static __device__ __forceinline__ int symchan_team_translate_pe(const symchan_team *src, int r, const symchan_team *dst) {
	if (r < 0 || r >= src->size)
		return -1;
	int d = symchan_team_world_pe(src, r) - dst->start;
	if (d < 0 || d % dst->stride != 0 || d / dst->stride >= dst->size)
		return -1;
	return d / dst->stride;
}

// symchan_coll_sig is the 32-bit signature of a collective's arguments
// (a 64-bit mix of each word, its high half; never 0).
static __device__ __forceinline__ unsigned symchan_coll_sig(symchan_u64 kind, symchan_u64 count, symchan_u64 root, symchan_u64 op, symchan_u64 elem) {
	const symchan_u64 w[5] = {kind, count, root, op, elem};
	symchan_u64 x = 0x243f6a8885a308d3ull;
	for (int i = 0; i < 5; i++) {
		x = (x ^ w[i]) * 0xff51afd7ed558ccdull;
		x ^= x >> 33;
	}
	const unsigned s = (unsigned)(x >> 32);
	return s ? s : 1;
}

// symchan_team_phase is one phase of t by the calling group, carrying sig
// (a collective's signature, or 0 in a phase that opens none). With quiet,
// the group's earlier puts (NVSHMEM's to unmapped PEs included) are
// complete first; the group's stores always are (a system fence before the
// arrivals, or the release of each). It returns 0 when every member's
// phase carried the same signature, SYMCHAN_ERR_MISMATCH when they did
// not, and SYMCHAN_ERR_ABORTED when the world failed or ended first.
static __device__ int symchan_team_phase(const symchan_heap *h, symchan_team *t, int scope, bool quiet, unsigned sig) {
	const unsigned tid = symchan_group_tid(scope), nth = symchan_group_size(scope);
	const symchan_u64 phase = t->phases + 1;
	const int q = (int)(phase & 1);
	const symchan_u64 off = symchan_off(h, &t->arrivals[q]);
	const symchan_u64 add = 1 + ((symchan_u64)sig << 32);
	symchan_group_sync(scope);
	if (t->size <= 32) {
		// Thread 0 alone: one system fence (cumulative: it covers what
		// the group stored before the sync) or quiet, then plain adds.
		if (tid == 0) {
			if (quiet)
				symchan_quiet();
			else
				__threadfence_system();
			for (int r = 0; r < t->size; r++)
				symchan_signal_op(h, symchan_team_world_pe(t, r), off, add, SYMCHAN_SIGNAL_ADD);
		}
	} else {
		if (quiet) {
			if (tid == 0)
				symchan_quiet();
			symchan_group_sync(scope);
		}
		for (int r = tid; r < t->size; r += nth)
			symchan_signal_release(h, symchan_team_world_pe(t, r), off, add, SYMCHAN_SIGNAL_ADD);
	}
	int verdict = 0;
	if (tid == 0) {
		const symchan_u64 want = t->seen[q] + (symchan_u64)t->size * add;
		symchan_u64 v;
		unsigned spins = 0;
		while ((unsigned)(v = symchan_load_acquire(&t->arrivals[q])) != (unsigned)want)
			if ((spins & (SYMCHAN_ABORT_SPINS - 1)) == SYMCHAN_ABORT_SPINS - 1 && *(volatile symchan_u64 *)&t->abort != 0) {
				// A member abandoned the team's collective: the host
				// learns it from the notice (pgas reads t->abort).
				verdict = SYMCHAN_ERR_ABORTED;
				if (t->notice)
					asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(t->notice), "l"(~0ull) : "memory");
				break;
			} else if (symchan_spin_aborted(h, &spins)) {
				verdict = SYMCHAN_ERR_ABORTED;
				break;
			}
		if (verdict == 0) {
			t->seen[q] = v;
			t->phases = phase;
			if (v != want) {
				t->differed = phase;
				verdict = SYMCHAN_ERR_MISMATCH;
			}
		}
	}
	// The group's barrier, carrying thread 0's verdict (rather than a
	// read of t->differed after it, one more global load in the phase).
	if (scope == SYMCHAN_SCOPE_BLOCK) {
		// Thread 0's verdict beside it, for the rare phase that did not
		// agree (the sync that began this phase ended the last one's reads).
		__shared__ int block_verdict;
		if (tid == 0)
			block_verdict = verdict;
		if (__syncthreads_and(verdict == 0))
			return 0;
		return block_verdict;
	}
	if (scope == SYMCHAN_SCOPE_WARP) {
		__syncwarp();
		return __shfl_sync(0xffffffffu, verdict, 0);
	}
	return verdict;
}

// symchan_team_open opens a collective of kind with its arguments (0 for
// those it does not take): a phase carrying their signature. It returns
// 0, or SYMCHAN_ERR_MISMATCH, having recorded its arguments, when the
// members' differed.
static __device__ int symchan_team_open(const symchan_heap *h, symchan_team *t, int scope, bool quiet, symchan_u64 kind, symchan_u64 count,
                                        symchan_u64 root, symchan_u64 op, symchan_u64 elem) {
	const int verdict = symchan_team_phase(h, t, scope, quiet, symchan_coll_sig(kind, count, root, op, elem));
	if (verdict != SYMCHAN_ERR_MISMATCH)
		return verdict;
	if (symchan_group_tid(scope) == 0) {
		t->args[0] = kind;
		t->args[1] = count;
		t->args[2] = root;
		t->args[3] = op;
		t->args[4] = elem;
		if (t->notice)
			asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(t->notice), "l"(t->differed) : "memory");
	}
	return SYMCHAN_ERR_MISMATCH; // the closing phase's fence publishes the record
}

// symchan_team_close closes a collective: a phase without a signature.
static __device__ __forceinline__ void symchan_team_close(const symchan_heap *h, symchan_team *t, int scope, bool quiet) {
	symchan_team_phase(h, t, scope, quiet, 0);
}

// symchan_team_alone is a collective of one phase (a barrier, a sync): a
// mismatched one closes, as every other collective does.
static __device__ int symchan_team_alone(const symchan_heap *h, symchan_team *t, int scope, bool quiet, symchan_u64 kind) {
	const int err = symchan_team_open(h, t, scope, quiet, kind, 0, 0, 0, 0);
	if (err)
		symchan_team_close(h, t, scope, false);
	return err;
}

// nvshmem_team_sync (_warp, _block): a phase, no quiet. It returns 0, or
// SYMCHAN_ERR_MISMATCH when another member was in another collective.
static __device__ __forceinline__ int symchan_team_sync_group(const symchan_heap *h, symchan_team *t, int scope) {
	return symchan_team_alone(h, t, scope, false, SYMCHAN_COLL_SYNC);
}
SYMCHAN_GROUP_FORMS(int, team_sync, (const symchan_heap *h, symchan_team *t), h, t)

// nvshmem_barrier (_warp, _block): the group's puts complete, then a phase.
// It returns as symchan_team_sync does.
static __device__ __forceinline__ int symchan_barrier_group(const symchan_heap *h, symchan_team *t, int scope) {
	return symchan_team_alone(h, t, scope, true, SYMCHAN_COLL_BARRIER);
}
SYMCHAN_GROUP_FORMS(int, barrier, (const symchan_heap *h, symchan_team *t), h, t)

// The data steps of the collectives, by thread tid of nth cooperating
// threads (a group's, or a grid's when the runtime splits a large
// collective into phase, data, phase kernels).

// symchan_team_pull copies n bytes at source on rank r of t to local dst.
static __device__ __forceinline__ void symchan_team_pull(const symchan_heap *h, const symchan_team *t, void *dst, const void *source, symchan_u64 n,
                                                         int r, unsigned tid, unsigned nth) {
	const int pe = symchan_team_world_pe(t, r);
	const symchan_u64 off = symchan_off(h, source);
#ifdef SYMCHAN_NVSHMEM
	if (symchan_bases(h)[pe] == 0) {
		// NVSHMEM's get in pieces, one a thread: its group forms need the
		// whole group, which a split grid is not.
		const symchan_u64 piece = 4096;
		for (symchan_u64 i = tid * piece; i < n; i += (symchan_u64)nth * piece)
			nvshmem_getmem((char *)dst + i, (const char *)symchan_sym(h, off) + i, n - i < piece ? n - i : piece, pe);
		return;
	}
#endif
	symchan_copy_part(dst, symchan_ptr(h, pe, off), n, tid, nth);
}

// A broadcast's data step is symchan_team_pull from the root.
static __device__ __forceinline__ void symchan_fcollect_part(const symchan_heap *h, const symchan_team *t, void *dest, const void *source,
                                                             symchan_u64 n, unsigned tid, unsigned nth) {
	for (int r = 0; r < t->size; r++)
		symchan_team_pull(h, t, (char *)dest + r * n, source, n, r, tid, nth);
}
static __device__ __forceinline__ void symchan_alltoall_part(const symchan_heap *h, const symchan_team *t, void *dest, const void *source,
                                                             symchan_u64 n, unsigned tid, unsigned nth) {
	for (int r = 0; r < t->size; r++)
		symchan_team_pull(h, t, (char *)dest + r * n, (const char *)source + t->rank * n, n, r, tid, nth);
}

// Reduction operators: the values of pgas.ReduceOp.
#define SYMCHAN_REDUCE_SUM 1
#define SYMCHAN_REDUCE_PROD 2
#define SYMCHAN_REDUCE_MIN 3
#define SYMCHAN_REDUCE_MAX 4
#define SYMCHAN_REDUCE_AND 5
#define SYMCHAN_REDUCE_OR 6
#define SYMCHAN_REDUCE_XOR 7

// symchan_combine applies op; min and max of a NaN are NaN, as Go's are.
template <typename T> static __device__ __forceinline__ T symchan_combine(int op, T a, T b) {
	switch (op) {
	case SYMCHAN_REDUCE_SUM: return a + b;
	case SYMCHAN_REDUCE_PROD: return a * b;
	case SYMCHAN_REDUCE_MIN: return a != a ? a : b != b ? b : b < a ? b : a;
	case SYMCHAN_REDUCE_MAX: return a != a ? a : b != b ? b : b > a ? b : a;
	}
	return a;
}
// symchan_combine_any is symchan_combine with and, or and xor, for the
// integer types; the floating-point ones have the arithmetic only.
template <typename T> static __device__ __forceinline__ T symchan_combine_any(int op, T a, T b) {
	switch (op) {
	case SYMCHAN_REDUCE_AND: return a & b;
	case SYMCHAN_REDUCE_OR: return a | b;
	case SYMCHAN_REDUCE_XOR: return a ^ b;
	}
	return symchan_combine(op, a, b);
}
template <> __device__ __forceinline__ float symchan_combine_any<float>(int op, float a, float b) { return symchan_combine(op, a, b); }
template <> __device__ __forceinline__ double symchan_combine_any<double>(int op, double a, double b) { return symchan_combine(op, a, b); }

// symchan_team_load reads element i of source on rank r of t, and
// symchan_team_store writes element i of dest there.
template <typename T>
static __device__ __forceinline__ T symchan_team_load(const symchan_heap *h, const symchan_team *t, const T *source, symchan_u64 i, int r) {
	const int pe = symchan_team_world_pe(t, r);
	T v;
#ifdef SYMCHAN_NVSHMEM
	if (symchan_bases(h)[pe] == 0) {
		nvshmem_getmem(&v, source + i, sizeof v, pe);
		return v;
	}
#endif
	v = ((const T *)symchan_ptr(h, pe, symchan_off(h, source)))[i];
	return v;
}
template <typename T>
static __device__ __forceinline__ void symchan_team_store(const symchan_heap *h, const symchan_team *t, T *dest, symchan_u64 i, int r, T v) {
	const int pe = symchan_team_world_pe(t, r);
#ifdef SYMCHAN_NVSHMEM
	if (symchan_bases(h)[pe] == 0) {
		nvshmem_putmem(dest + i, &v, sizeof v, pe);
		return;
	}
#endif
	((T *)symchan_ptr(h, pe, symchan_off(h, dest)))[i] = v;
}

// symchan_combine16 combines the 16 bytes of b into a, element by element.
template <typename T> static __device__ __forceinline__ void symchan_combine16(int op, uint4 &a, const uint4 &b) {
	T *x = (T *)&a;
	const T *y = (const T *)&b;
#pragma unroll
	for (int j = 0; j < (int)(16 / sizeof(T)); j++)
		x[j] = symchan_combine_any(op, x[j], y[j]);
}

// symchan_reduce_part: rank r owns the r-th of size contiguous segments
// of the nreduce elements. For each element of its segment it folds every
// member's source in rank order (every member gets the same bits) and
// stores the result in every member's dest. Only the owner reads an
// element, and it reads every copy before it writes any: dest may be
// source. Elements of 4 and 8 bytes, where both arrays are 16-byte aligned
// and every member is mapped, go 16 bytes a load, four loads in flight a
// thread; the elements past the last whole 16 bytes, and everything
// otherwise, one at a time.
template <typename T>
static __device__ void symchan_reduce_part(const symchan_heap *h, const symchan_team *t, int op, T *dest, const T *source, symchan_u64 nreduce,
                                           unsigned tid, unsigned nth) {
	const int size = t->size;
	bool wide = sizeof(T) >= 4 && (((symchan_u64)dest | (symchan_u64)source) & 15) == 0;
#ifdef SYMCHAN_NVSHMEM
	for (int r = 0; r < size && wide; r++)
		wide = symchan_bases(h)[symchan_team_world_pe(t, r)] != 0;
#endif
	symchan_u64 first = 0, seg = (nreduce + size - 1) / size; // the scalar loop's elements and segments
	if (wide) {
		const unsigned V = 16 / sizeof(T);
		const symchan_u64 nv = nreduce / V, segv = (nv + size - 1) / size, lo = segv * t->rank, hi = lo + segv < nv ? lo + segv : nv;
		const symchan_u64 soff = symchan_off(h, source), doff = symchan_off(h, dest);
		for (symchan_u64 c = lo + tid; c < hi; c += 4ull * nth) {
			uint4 acc[4], v[4];
			const uint4 *s0 = (const uint4 *)symchan_ptr(h, symchan_team_world_pe(t, 0), soff);
#pragma unroll
			for (int k = 0; k < 4; k++)
				if (c + k * nth < hi)
					acc[k] = s0[c + k * nth];
			for (int r = 1; r < size; r++) {
				const uint4 *sr = (const uint4 *)symchan_ptr(h, symchan_team_world_pe(t, r), soff);
#pragma unroll
				for (int k = 0; k < 4; k++)
					if (c + k * nth < hi)
						v[k] = sr[c + k * nth];
#pragma unroll
				for (int k = 0; k < 4; k++)
					if (c + k * nth < hi)
						symchan_combine16<T>(op, acc[k], v[k]);
			}
			for (int r = 0; r < size; r++) {
				uint4 *dr = (uint4 *)symchan_ptr(h, symchan_team_world_pe(t, (t->rank + r) % size), doff);
#pragma unroll
				for (int k = 0; k < 4; k++)
					if (c + k * nth < hi)
						dr[c + k * nth] = acc[k];
			}
		}
		first = nv * V;
		seg = nreduce - first; // the tail: rank 0's
	}
	const symchan_u64 lo = first + seg * t->rank, hi = lo + seg < nreduce ? lo + seg : nreduce;
	for (symchan_u64 i = lo + tid; i < hi; i += nth) {
		T acc = symchan_team_load(h, t, source, i, 0);
		for (int r = 1; r < size; r++)
			acc = symchan_combine_any(op, acc, symchan_team_load(h, t, source, i, r));
		for (int r = 0; r < size; r++)
			symchan_team_store(h, t, dest, i, (t->rank + r) % size, acc);
	}
}

// The small-message path: one phase where a collective otherwise takes
// two. Where what lands on each member fits the team's small-message
// buffer (symchan_small_fits), every member stores its part into the
// buffers of the members (the buffer of the opening phase's parity)
// before it opens the collective, so the opening phase's fence (or quiet)
// publishes the data with the member's arrival; once every member has
// arrived, each copies (or, for a reduction, folds in rank order) its own
// buffer into dest, and the collective ends without a closing phase. The
// opening phase still carries the arguments' signature, so members that
// disagree (one on this path, another not) all see the mismatch there
// and close as every collective does.
//
// Buffers by parity are safe to store into before the others arrive: a
// member stores into a buffer of the parity of its phase p only after
// every member arrived at phase p−1, and a member reads its buffer of
// phase p−2 before it arrives at p−1. A phase's fence covers the data's
// stores (the group's, before the phase's sync), so no flag rides in
// the data, and there is no store to tear. A buffer belongs to the team
// (pgas reserves it at the end of every member's heap, the same offset
// everywhere); a team without one (small == 0) takes the two phases.

// symchan_small_fits reports whether a collective of kind moving n bytes
// from each member (a broadcast from its root alone) takes the
// small-message path on t: what lands on each member (n, or size·n)
// fits a buffer.
static __device__ __forceinline__ bool symchan_small_fits(const symchan_team *t, symchan_u64 kind, symchan_u64 n) {
	if (t->small == 0)
		return false;
	return kind == SYMCHAN_COLL_BROADCAST ? n <= t->small_bytes : n <= t->small_bytes / (symchan_u64)t->size;
}

// symchan_small_buf is the offset of t's buffer for the phase this PE
// opens next.
static __device__ __forceinline__ symchan_u64 symchan_small_buf(const symchan_team *t) {
	return t->small + ((t->phases + 1) & 1) * t->small_bytes;
}

// symchan_small_push stores this member's part of a small collective of
// kind into every member's buffer buf, by thread tid of nth: a broadcast's
// root its n bytes at 0; an fcollect's and a reduction's member its n
// bytes at rank·n; an alltoall's member its block for rank q (at source +
// q·n) at rank·n on q. Members start at the next rank, so that they do
// not all store to rank 0 first.
static __device__ void symchan_small_push(const symchan_heap *h, const symchan_team *t, symchan_u64 buf, symchan_u64 kind, const void *source,
                                          symchan_u64 n, int root, unsigned tid, unsigned nth) {
	if (kind == SYMCHAN_COLL_BROADCAST && t->rank != root)
		return;
	const symchan_u64 at = buf + (kind == SYMCHAN_COLL_BROADCAST ? 0 : (symchan_u64)t->rank * n);
	for (int i = 1; i <= t->size; i++) {
		const int q = (t->rank + i) % t->size, pe = symchan_team_world_pe(t, q);
		const char *src = (const char *)source + (kind == SYMCHAN_COLL_ALLTOALL ? (symchan_u64)q * n : 0);
#ifdef SYMCHAN_NVSHMEM
		if (symchan_bases(h)[pe] == 0) {
			if (tid == 0)
				nvshmem_putmem(symchan_sym(h, at), src, n, pe); // the opening phase's quiet completes it
			continue;
		}
#endif
		symchan_copy_part(symchan_ptr(h, pe, at), src, n, tid, nth);
	}
}

// symchan_small_fold is a small reduction's step once every member has
// arrived: element i of dest is element i of every member's part of buf
// combined with op in rank order (every member gets the same bits).
template <typename T>
static __device__ void symchan_small_fold(const symchan_heap *h, const symchan_team *t, symchan_u64 buf, int op, T *dest, symchan_u64 nreduce,
                                          unsigned tid, unsigned nth) {
	const T *b = (const T *)symchan_sym(h, buf);
	for (symchan_u64 i = tid; i < nreduce; i += nth) {
		T acc = b[i];
		for (int r = 1; r < t->size; r++)
			acc = symchan_combine_any(op, acc, b[(symchan_u64)r * nreduce + i]);
		dest[i] = acc;
	}
}

// symchan_small_take is a small broadcast's, fcollect's or alltoall's
// step once every member has arrived: this member's buffer into dest.
static __device__ __forceinline__ void symchan_small_take(const symchan_heap *h, const symchan_team *t, symchan_u64 buf, symchan_u64 kind, void *dest,
                                                          symchan_u64 n, unsigned tid, unsigned nth) {
	symchan_copy_part(dest, symchan_sym(h, buf), kind == SYMCHAN_COLL_BROADCAST ? n : n * (symchan_u64)t->size, tid, nth);
}

// symchan_small_run runs a small collective of kind by the group: this
// member's part (nbytes) pushed, the opening phase with the collective's
// signature (count, root, op and elem as symchan_team_open takes them),
// then finish(buf, tid, nth), the take or the fold, where the members
// agreed, else the closing phase. It returns as the two-phase form does.
// Every small collective runs here: the group forms below and pgas's on a
// stream (symchan.cu).
template <typename Finish>
static __device__ int symchan_small_run(const symchan_heap *h, symchan_team *t, int scope, symchan_u64 kind, const void *source, symchan_u64 nbytes,
                                        symchan_u64 count, int root, symchan_u64 op, symchan_u64 elem, Finish finish) {
	const unsigned tid = symchan_group_tid(scope), nth = symchan_group_size(scope);
	const symchan_u64 buf = symchan_small_buf(t);
	symchan_small_push(h, t, buf, kind, source, nbytes, root, tid, nth);
	const int err = symchan_team_open(h, t, scope, true, kind, count, kind == SYMCHAN_COLL_BROADCAST ? (symchan_u64)root : 0, op, elem);
	if (err) {
		symchan_team_close(h, t, scope, false);
		return err;
	}
	finish(buf, tid, nth);
	symchan_group_sync(scope);
	return 0;
}

// symchan_small_group runs a small broadcast, fcollect or alltoall of n
// bytes by the group.
static __device__ int symchan_small_group(const symchan_heap *h, symchan_team *t, symchan_u64 kind, void *dest, const void *source, symchan_u64 n,
                                          int root, int scope) {
	return symchan_small_run(h, t, scope, kind, source, n, n, root, 0, 0,
	                         [&](symchan_u64 buf, unsigned tid, unsigned nth) { symchan_small_take(h, t, buf, kind, dest, n, tid, nth); });
}

// The collectives in NVSHMEM's terms: a phase, the data step by the
// group, a phase (or, small, the small-message path's one). n counts bytes for the _mem forms and elements for the
// reductions. Each returns 0, or SYMCHAN_ERR_MISMATCH when the members'
// arguments differed (it then moved no data).

// nvshmem_broadcastmem (_warp, _block): n bytes of source on rank root
// into dest on every member, root included.
static __device__ int symchan_broadcastmem_group(const symchan_heap *h, symchan_team *t, void *dest, const void *source, symchan_u64 n, int root,
                                                 int scope) {
	if (symchan_small_fits(t, SYMCHAN_COLL_BROADCAST, n))
		return symchan_small_group(h, t, SYMCHAN_COLL_BROADCAST, dest, source, n, root, scope);
	const int err = symchan_team_open(h, t, scope, true, SYMCHAN_COLL_BROADCAST, n, (symchan_u64)root, 0, 0);
	if (!err)
		symchan_team_pull(h, t, dest, source, n, root, symchan_group_tid(scope), symchan_group_size(scope));
	symchan_team_close(h, t, scope, false);
	return err;
}
// nvshmem_fcollectmem (_warp, _block): n bytes of source on rank r land at
// dest + r·n on every member.
static __device__ int symchan_fcollectmem_group(const symchan_heap *h, symchan_team *t, void *dest, const void *source, symchan_u64 n, int scope) {
	if (symchan_small_fits(t, SYMCHAN_COLL_FCOLLECT, n))
		return symchan_small_group(h, t, SYMCHAN_COLL_FCOLLECT, dest, source, n, 0, scope);
	const int err = symchan_team_open(h, t, scope, true, SYMCHAN_COLL_FCOLLECT, n, 0, 0, 0);
	if (!err)
		symchan_fcollect_part(h, t, dest, source, n, symchan_group_tid(scope), symchan_group_size(scope));
	symchan_team_close(h, t, scope, false);
	return err;
}
// nvshmem_alltoallmem (_warp, _block): the n bytes at source + q·n on rank
// r land at dest + r·n on rank q.
static __device__ int symchan_alltoallmem_group(const symchan_heap *h, symchan_team *t, void *dest, const void *source, symchan_u64 n, int scope) {
	if (symchan_small_fits(t, SYMCHAN_COLL_ALLTOALL, n))
		return symchan_small_group(h, t, SYMCHAN_COLL_ALLTOALL, dest, source, n, 0, scope);
	const int err = symchan_team_open(h, t, scope, true, SYMCHAN_COLL_ALLTOALL, n, 0, 0, 0);
	if (!err)
		symchan_alltoall_part(h, t, dest, source, n, symchan_group_tid(scope), symchan_group_size(scope));
	symchan_team_close(h, t, scope, false);
	return err;
}

// Element types' codes, in a reduction's signature and in
// symchan_team_step's arg: the names pgas gives Go's element types
// (generated into internal/abi as Elem*). Go's int, uint and uintptr
// travel to the device as the sized codes with their bits; a type with no
// code of its own is SYMCHAN_ELEM_SIZED + its size.
#define SYMCHAN_ELEM_I8 1
#define SYMCHAN_ELEM_U8 2
#define SYMCHAN_ELEM_I16 3
#define SYMCHAN_ELEM_U16 4
#define SYMCHAN_ELEM_I32 5
#define SYMCHAN_ELEM_U32 6
#define SYMCHAN_ELEM_I64 7
#define SYMCHAN_ELEM_U64 8
#define SYMCHAN_ELEM_INT 9
#define SYMCHAN_ELEM_UINT 10
#define SYMCHAN_ELEM_UINTPTR 11
#define SYMCHAN_ELEM_F32 12
#define SYMCHAN_ELEM_F64 13
#define SYMCHAN_ELEM_C64 14
#define SYMCHAN_ELEM_C128 15
#define SYMCHAN_ELEM_SIZED 1000

// symchan_elem_code names T in a reduction's signature (SYMCHAN_ELEM_*).
template <typename T> static __device__ __forceinline__ int symchan_elem_code(const T *) { return SYMCHAN_ELEM_SIZED + (int)sizeof(T); }
static __device__ __forceinline__ int symchan_elem_code(const signed char *) { return SYMCHAN_ELEM_I8; }
static __device__ __forceinline__ int symchan_elem_code(const unsigned char *) { return SYMCHAN_ELEM_U8; }
static __device__ __forceinline__ int symchan_elem_code(const short *) { return SYMCHAN_ELEM_I16; }
static __device__ __forceinline__ int symchan_elem_code(const unsigned short *) { return SYMCHAN_ELEM_U16; }
static __device__ __forceinline__ int symchan_elem_code(const int *) { return SYMCHAN_ELEM_I32; }
static __device__ __forceinline__ int symchan_elem_code(const unsigned *) { return SYMCHAN_ELEM_U32; }
static __device__ __forceinline__ int symchan_elem_code(const long *) { return sizeof(long) == 8 ? SYMCHAN_ELEM_I64 : SYMCHAN_ELEM_I32; }
static __device__ __forceinline__ int symchan_elem_code(const long long *) { return SYMCHAN_ELEM_I64; }
static __device__ __forceinline__ int symchan_elem_code(const unsigned long *) { return sizeof(long) == 8 ? SYMCHAN_ELEM_U64 : SYMCHAN_ELEM_U32; }
static __device__ __forceinline__ int symchan_elem_code(const unsigned long long *) { return SYMCHAN_ELEM_U64; }
static __device__ __forceinline__ int symchan_elem_code(const float *) { return SYMCHAN_ELEM_F32; }
static __device__ __forceinline__ int symchan_elem_code(const double *) { return SYMCHAN_ELEM_F64; }

// nvshmem_<type>_<op>_reduce (_warp, _block): the nreduce elements of
// source combined over the members with op (SYMCHAN_REDUCE_*) into dest on
// every member.
template <typename T>
static __device__ int symchan_reduce_group(const symchan_heap *h, symchan_team *t, int op, T *dest, const T *source, symchan_u64 nreduce, int scope) {
	const symchan_u64 sig_elem = (symchan_u64)symchan_elem_code(source);
	if (symchan_small_fits(t, SYMCHAN_COLL_REDUCE, nreduce * sizeof(T)))
		return symchan_small_run(h, t, scope, SYMCHAN_COLL_REDUCE, source, nreduce * sizeof(T), nreduce, 0, (symchan_u64)op, sig_elem,
		                         [&](symchan_u64 buf, unsigned tid, unsigned nth) { symchan_small_fold(h, t, buf, op, dest, nreduce, tid, nth); });
	const int err = symchan_team_open(h, t, scope, true, SYMCHAN_COLL_REDUCE, nreduce, 0, (symchan_u64)op, sig_elem);
	if (!err)
		symchan_reduce_part(h, t, op, dest, source, nreduce, symchan_group_tid(scope), symchan_group_size(scope));
	symchan_team_close(h, t, scope, true); // NVSHMEM's puts to unmapped members complete
	return err;
}

SYMCHAN_GROUP_FORMS(int, broadcastmem, (const symchan_heap *h, symchan_team *t, void *dest, const void *source, symchan_u64 n, int root), h, t, dest,
                    source, n, root)
SYMCHAN_GROUP_FORMS(int, fcollectmem, (const symchan_heap *h, symchan_team *t, void *dest, const void *source, symchan_u64 n), h, t, dest, source, n)
SYMCHAN_GROUP_FORMS(int, alltoallmem, (const symchan_heap *h, symchan_team *t, void *dest, const void *source, symchan_u64 n), h, t, dest, source, n)

// symchan_group_any is whether p holds on any thread of the group.
static __device__ __forceinline__ bool symchan_group_any(int scope, bool p) {
	if (scope == SYMCHAN_SCOPE_BLOCK)
		return __syncthreads_or(p);
	if (scope == SYMCHAN_SCOPE_WARP)
		return __any_sync(0xffffffffu, p);
	return p;
}

// AllToAllV (MPI's alltoallv, the token exchange of mixture-of-experts
// routing; NVSHMEM has none): rank r sends send_counts[q] elements of
// elem_bytes each, from source + send_offsets[q] elements, to rank q,
// where they land at dest + recv_offsets[r] elements; q expects
// recv_counts[r] of them. The four layout arrays are symmetric arrays of
// at least size long longs (pgas.AllToAllV's), which every member may
// read while the collective runs.
//
// Three phases: the opening one (its signature: the kind and elem_bytes),
// one that carries each member's verdict on its counts (every receiver
// compares each sender's send_counts[rank] with its recv_counts), then the
// data, pulled by each receiver, and the closing one. Members that differ
// in either phase move no data and return SYMCHAN_ERR_MISMATCH; where a
// count differed, a receiver that saw it records in its struct the kind,
// elem_bytes and, in the root's place, 1 + the first sender whose count
// differs (pgas names the pair).

// symchan_alltoallv_agree is the verdict phase, by the group: 0, or
// SYMCHAN_ERR_MISMATCH (recorded) when some receiver's counts differ from
// its senders', or SYMCHAN_ERR_ABORTED.
//
// With dest_n and src_n (elements; ~0 where unknown) a member also checks
// that its own blocks fit its dest and source: one that does not carries
// a verdict of its own, so no data moves, and records 1 in the operator's
// place.
static __device__ __forceinline__ bool symchan_block_fits(long long count, long long off, symchan_u64 n) {
	return count >= 0 && off >= 0 && (symchan_u64)off <= n && (symchan_u64)count <= n - (symchan_u64)off;
}
static __device__ int symchan_alltoallv_agree(const symchan_heap *h, symchan_team *t, const long long *send_counts, const long long *send_offsets,
                                              const long long *recv_counts, const long long *recv_offsets, symchan_u64 elem_bytes,
                                              symchan_u64 dest_n, symchan_u64 src_n, int scope) {
	const unsigned tid = symchan_group_tid(scope), nth = symchan_group_size(scope);
	bool bad = false, unfit = false;
	for (int r = tid; r < t->size; r += nth) {
		bad = bad || symchan_team_load(h, t, send_counts, (symchan_u64)t->rank, r) != recv_counts[r];
		unfit = unfit || !symchan_block_fits(send_counts[r], send_offsets[r], src_n) || !symchan_block_fits(recv_counts[r], recv_offsets[r], dest_n);
	}
	unfit = symchan_group_any(scope, unfit);
	bad = symchan_group_any(scope, bad) || unfit;
	// Agreeing receivers carry 1, one whose counts differ 2 + its rank:
	// the members' signatures agree only where every receiver's counts
	// do (a receiver that saw a difference knows it from its own).
	int err = symchan_team_phase(h, t, scope, false, bad ? 2 + (unsigned)t->rank : 1);
	if (err == 0 && bad) {
		err = SYMCHAN_ERR_MISMATCH;
		if (tid == 0)
			t->differed = t->phases;
	}
	if (err == SYMCHAN_ERR_MISMATCH && tid == 0) {
		symchan_u64 first = 0;
		for (int r = 0; r < t->size && first == 0; r++)
			if (symchan_team_load(h, t, send_counts, (symchan_u64)t->rank, r) != recv_counts[r])
				first = (symchan_u64)r + 1;
		t->args[0] = SYMCHAN_COLL_ALLTOALLV;
		t->args[1] = elem_bytes;
		t->args[2] = first;
		t->args[3] = unfit;
		t->args[4] = 0;
		if (t->notice)
			asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(t->notice), "l"(t->differed) : "memory");
	}
	return err;
}

// symchan_alltoallv_part is the data step by thread tid of nth (of
// groups of scope: a grid's blocks are groups of its own): from every
// sender r, its block for this member into dest + recv_offsets[r]. The
// count is this member's recv_counts[r], which the verdict phase found
// equal to the sender's; the sender's offset is read once a group.
static __device__ void symchan_alltoallv_part(const symchan_heap *h, const symchan_team *t, void *dest, const void *source,
                                              const long long *recv_counts, const long long *send_offsets, const long long *recv_offsets,
                                              symchan_u64 elem_bytes, unsigned tid, unsigned nth, int scope) {
	for (int i = 0; i < t->size; i++) {
		const int r = (t->rank + i) % t->size; // not every receiver at rank 0 first
		const long long c = recv_counts[r];
		if (c <= 0)
			continue;
		symchan_u64 o = 0;
		if (symchan_group_tid(scope) == 0)
			o = (symchan_u64)symchan_team_load(h, t, send_offsets, (symchan_u64)t->rank, r);
		o = symchan_group_pick(o, scope);
		symchan_team_pull(h, t, (char *)dest + recv_offsets[r] * elem_bytes, (const char *)source + (long long)o * elem_bytes,
		                  (symchan_u64)c * elem_bytes, r, tid, nth);
	}
}

// symchan_alltoallvmem (_warp, _block): as above. It returns 0, or
// SYMCHAN_ERR_MISMATCH when the members' element sizes or counts differ.
static __device__ int symchan_alltoallvmem_group(const symchan_heap *h, symchan_team *t, void *dest, const void *source, const long long *send_counts,
                                                 const long long *send_offsets, const long long *recv_counts, const long long *recv_offsets,
                                                 symchan_u64 elem_bytes, int scope) {
	int err = symchan_team_open(h, t, scope, true, SYMCHAN_COLL_ALLTOALLV, elem_bytes, 0, 0, 0);
	if (!err)
		err = symchan_alltoallv_agree(h, t, send_counts, send_offsets, recv_counts, recv_offsets, elem_bytes, ~0ull, ~0ull, scope);
	if (!err)
		symchan_alltoallv_part(h, t, dest, source, recv_counts, send_offsets, recv_offsets, elem_bytes, symchan_group_tid(scope),
		                       symchan_group_size(scope), scope);
	symchan_team_close(h, t, scope, false);
	return err;
}
SYMCHAN_GROUP_FORMS(int, alltoallvmem,
                    (const symchan_heap *h, symchan_team *t, void *dest, const void *source, const long long *send_counts, const long long *send_offsets,
                     const long long *recv_counts, const long long *recv_offsets, symchan_u64 elem_bytes),
                    h, t, dest, source, send_counts, send_offsets, recv_counts, recv_offsets, elem_bytes)

// NVSHMEM's typed routines, nvshmem_TYPENAME_…, for its standard RMA
// types: symchan_int_p(h, dest, value, pe), symchan_float_put_block(h,
// dest, source, nelems, pe), symchan_int64_g(h, source, pe),
// symchan_int_put_signal_nbi(h, dest, source, nelems, sig_addr, signal,
// sig_op, pe), symchan_int_fcollect_block(h, t, dest, source, nelems), …:
// put, get, put_nbi, get_nbi, put_signal, put_signal_nbi, iput and iget
// (strides in elements) and the team's broadcast, fcollect and alltoall,
// each in thread, warp and block forms; p and g by one thread. Counts are
// elements of the type; each forwards to the byte routine above.
#define SYMCHAN_TYPED_RMA(tname, T)                                                                                                        \
	static __device__ __forceinline__ void symchan_##tname##_put_group(const symchan_heap *h, T *dest, const T *source, symchan_u64 nelems, \
	                                                                   int pe, int scope) {                                             \
		symchan_putmem_group(h, dest, source, nelems * sizeof(T), pe, scope);                                                            \
	}                                                                                                                                    \
	SYMCHAN_GROUP_FORMS(void, tname##_put, (const symchan_heap *h, T *dest, const T *source, symchan_u64 nelems, int pe), h, dest, source, \
	                    nelems, pe)                                                                                                      \
	static __device__ __forceinline__ void symchan_##tname##_get_group(const symchan_heap *h, T *dest, const T *source, symchan_u64 nelems, \
	                                                                   int pe, int scope) {                                             \
		symchan_getmem_group(h, dest, source, nelems * sizeof(T), pe, scope);                                                            \
	}                                                                                                                                    \
	SYMCHAN_GROUP_FORMS(void, tname##_get, (const symchan_heap *h, T *dest, const T *source, symchan_u64 nelems, int pe), h, dest, source, \
	                    nelems, pe)                                                                                                      \
	static __device__ __forceinline__ void symchan_##tname##_put_nbi_group(const symchan_heap *h, T *dest, const T *source,                \
	                                                                       symchan_u64 nelems, int pe, int scope) {                     \
		symchan_putmem_nbi_group(h, dest, source, nelems * sizeof(T), pe, scope);                                                       \
	}                                                                                                                                    \
	SYMCHAN_GROUP_FORMS(void, tname##_put_nbi, (const symchan_heap *h, T *dest, const T *source, symchan_u64 nelems, int pe), h, dest,    \
	                    source, nelems, pe)                                                                                              \
	static __device__ __forceinline__ void symchan_##tname##_get_nbi_group(const symchan_heap *h, T *dest, const T *source,                \
	                                                                       symchan_u64 nelems, int pe, int scope) {                     \
		symchan_getmem_nbi_group(h, dest, source, nelems * sizeof(T), pe, scope);                                                        \
	}                                                                                                                                    \
	SYMCHAN_GROUP_FORMS(void, tname##_get_nbi, (const symchan_heap *h, T *dest, const T *source, symchan_u64 nelems, int pe), h, dest,    \
	                    source, nelems, pe)                                                                                              \
	template <typename W>                                                                                                                \
	static __device__ __forceinline__ void symchan_##tname##_put_signal_group(const symchan_heap *h, T *dest, const T *source,             \
	                                                                          symchan_u64 nelems, W *sig_addr, symchan_u64 signal,        \
	                                                                          int sig_op, int pe, int scope) {                          \
		symchan_putmem_signal_group(h, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe, scope);                           \
	}                                                                                                                                    \
	template <typename W>                                                                                                                \
	static __device__ __forceinline__ void symchan_##tname##_put_signal_nbi_group(const symchan_heap *h, T *dest, const T *source,         \
	                                                                              symchan_u64 nelems, W *sig_addr, symchan_u64 signal,    \
	                                                                              int sig_op, int pe, int scope) {                      \
		symchan_putmem_signal_nbi_group(h, dest, source, nelems * sizeof(T), sig_addr, signal, sig_op, pe, scope);                       \
	}                                                                                                                                    \
	SYMCHAN_TYPED_SIGNAL_FORMS(tname, T, symchan_u64)                                                                                    \
	SYMCHAN_TYPED_SIGNAL_FORMS(tname, T, unsigned long)                                                                                  \
	static __device__ __forceinline__ void symchan_##tname##_iput_group(const symchan_heap *h, T *dest, const T *source, symchan_u64 dst,  \
	                                                                    symchan_u64 sst, symchan_u64 nelems, int pe, int scope) {       \
		symchan_iput_group(h, pe, symchan_off(h, dest), source, dst, sst, sizeof(T), nelems, scope);                                     \
	}                                                                                                                                    \
	SYMCHAN_GROUP_FORMS(void, tname##_iput,                                                                                              \
	                    (const symchan_heap *h, T *dest, const T *source, symchan_u64 dst, symchan_u64 sst, symchan_u64 nelems, int pe),  \
	                    h, dest, source, dst, sst, nelems, pe)                                                                           \
	static __device__ __forceinline__ void symchan_##tname##_iget_group(const symchan_heap *h, T *dest, const T *source, symchan_u64 dst,  \
	                                                                    symchan_u64 sst, symchan_u64 nelems, int pe, int scope) {       \
		symchan_iget_group(h, dest, dst, pe, symchan_off(h, source), sst, sizeof(T), nelems, scope);                                     \
	}                                                                                                                                    \
	SYMCHAN_GROUP_FORMS(void, tname##_iget,                                                                                              \
	                    (const symchan_heap *h, T *dest, const T *source, symchan_u64 dst, symchan_u64 sst, symchan_u64 nelems, int pe),  \
	                    h, dest, source, dst, sst, nelems, pe)                                                                           \
	static __device__ __forceinline__ void symchan_##tname##_p(const symchan_heap *h, T *dest, T value, int pe) {                          \
		symchan_put(h, pe, symchan_off(h, dest), &value, sizeof value);                                                                  \
	}                                                                                                                                    \
	static __device__ __forceinline__ T symchan_##tname##_g(const symchan_heap *h, const T *source, int pe) {                              \
		T v;                                                                                                                             \
		symchan_get(h, &v, pe, symchan_off(h, source), sizeof v);                                                                        \
		return v;                                                                                                                        \
	}                                                                                                                                    \
	static __device__ __forceinline__ int symchan_##tname##_broadcast_group(const symchan_heap *h, symchan_team *t, T *dest,               \
	                                                                        const T *source, symchan_u64 nelems, int root, int scope) {   \
		return symchan_broadcastmem_group(h, t, dest, source, nelems * sizeof(T), root, scope);                                          \
	}                                                                                                                                    \
	SYMCHAN_GROUP_FORMS(int, tname##_broadcast, (const symchan_heap *h, symchan_team *t, T *dest, const T *source, symchan_u64 nelems,     \
	                                             int root),                                                                              \
	                    h, t, dest, source, nelems, root)                                                                                \
	static __device__ __forceinline__ int symchan_##tname##_fcollect_group(const symchan_heap *h, symchan_team *t, T *dest,                \
	                                                                       const T *source, symchan_u64 nelems, int scope) {              \
		return symchan_fcollectmem_group(h, t, dest, source, nelems * sizeof(T), scope);                                                 \
	}                                                                                                                                    \
	SYMCHAN_GROUP_FORMS(int, tname##_fcollect, (const symchan_heap *h, symchan_team *t, T *dest, const T *source, symchan_u64 nelems),     \
	                    h, t, dest, source, nelems)                                                                                      \
	static __device__ __forceinline__ int symchan_##tname##_alltoall_group(const symchan_heap *h, symchan_team *t, T *dest,                \
	                                                                       const T *source, symchan_u64 nelems, int scope) {              \
		return symchan_alltoallmem_group(h, t, dest, source, nelems * sizeof(T), scope);                                                 \
	}                                                                                                                                    \
	SYMCHAN_GROUP_FORMS(int, tname##_alltoall, (const symchan_heap *h, symchan_team *t, T *dest, const T *source, symchan_u64 nelems),     \
	                    h, t, dest, source, nelems)
// The put_signal forms of a type for signal words of type W (see symchan_word).
#define SYMCHAN_TYPED_SIGNAL_FORMS(tname, T, W)                                                                                            \
	SYMCHAN_GROUP_FORMS(void, tname##_put_signal,                                                                                        \
	                    (const symchan_heap *h, T *dest, const T *source, symchan_u64 nelems, W *sig_addr, symchan_u64 signal, int sig_op, \
	                     int pe),                                                                                                        \
	                    h, dest, source, nelems, sig_addr, signal, sig_op, pe)                                                           \
	SYMCHAN_GROUP_FORMS(void, tname##_put_signal_nbi,                                                                                    \
	                    (const symchan_heap *h, T *dest, const T *source, symchan_u64 nelems, W *sig_addr, symchan_u64 signal, int sig_op, \
	                     int pe),                                                                                                        \
	                    h, dest, source, nelems, sig_addr, signal, sig_op, pe)
SYMCHAN_TYPED_RMA(float, float)
SYMCHAN_TYPED_RMA(double, double)
SYMCHAN_TYPED_RMA(char, char)
SYMCHAN_TYPED_RMA(schar, signed char)
SYMCHAN_TYPED_RMA(short, short)
SYMCHAN_TYPED_RMA(int, int)
SYMCHAN_TYPED_RMA(long, long)
SYMCHAN_TYPED_RMA(longlong, long long)
SYMCHAN_TYPED_RMA(uchar, unsigned char)
SYMCHAN_TYPED_RMA(ushort, unsigned short)
SYMCHAN_TYPED_RMA(uint, unsigned int)
SYMCHAN_TYPED_RMA(ulong, unsigned long)
SYMCHAN_TYPED_RMA(ulonglong, unsigned long long)
SYMCHAN_TYPED_RMA(int8, signed char)
SYMCHAN_TYPED_RMA(int16, short)
SYMCHAN_TYPED_RMA(int32, int)
SYMCHAN_TYPED_RMA(int64, long long)
SYMCHAN_TYPED_RMA(int64, long) // int64_t where it is long (see symchan_word)
SYMCHAN_TYPED_RMA(uint8, unsigned char)
SYMCHAN_TYPED_RMA(uint16, unsigned short)
SYMCHAN_TYPED_RMA(uint32, unsigned int)
SYMCHAN_TYPED_RMA(uint64, unsigned long long)
SYMCHAN_TYPED_RMA(uint64, unsigned long) // uint64_t where it is unsigned long
#undef SYMCHAN_TYPED_SIGNAL_FORMS
#undef SYMCHAN_TYPED_RMA

// symchan_<type>_<op>_reduce, _warp, _block for NVSHMEM's standard types
// and operators: symchan_float_sum_reduce_block(h, t, dest, source, n), …
#define SYMCHAN_REDUCE_FORMS(tname, T, oname, OP)                                                                                    \
	static __device__ __forceinline__ int symchan_##tname##_##oname##_reduce_group(const symchan_heap *h, symchan_team *t, T *dest,    \
	                                                                                const T *source, symchan_u64 n, int scope) {      \
		return symchan_reduce_group<T>(h, t, OP, dest, source, n, scope);                                                              \
	}                                                                                                                                \
	SYMCHAN_GROUP_FORMS(int, tname##_##oname##_reduce, (const symchan_heap *h, symchan_team *t, T *dest, const T *source, symchan_u64 n), \
	                    h, t, dest, source, n)
#define SYMCHAN_REDUCE_ARITH(tname, T)                          \
	SYMCHAN_REDUCE_FORMS(tname, T, sum, SYMCHAN_REDUCE_SUM)     \
	SYMCHAN_REDUCE_FORMS(tname, T, prod, SYMCHAN_REDUCE_PROD)   \
	SYMCHAN_REDUCE_FORMS(tname, T, min, SYMCHAN_REDUCE_MIN)     \
	SYMCHAN_REDUCE_FORMS(tname, T, max, SYMCHAN_REDUCE_MAX)
#define SYMCHAN_REDUCE_INT(tname, T)                        \
	SYMCHAN_REDUCE_ARITH(tname, T)                          \
	SYMCHAN_REDUCE_FORMS(tname, T, and, SYMCHAN_REDUCE_AND) \
	SYMCHAN_REDUCE_FORMS(tname, T, or, SYMCHAN_REDUCE_OR)   \
	SYMCHAN_REDUCE_FORMS(tname, T, xor, SYMCHAN_REDUCE_XOR)
SYMCHAN_REDUCE_ARITH(float, float)
SYMCHAN_REDUCE_ARITH(double, double)
SYMCHAN_REDUCE_INT(int32, int)
SYMCHAN_REDUCE_INT(uint32, unsigned)
SYMCHAN_REDUCE_INT(int64, long long)
SYMCHAN_REDUCE_INT(uint64, unsigned long long)

// --- mailboxes (the wire format of package actors) ----------------------
//
// A kernel can send to a PE's actors.Mailbox (or a Chan[T] of a plain T,
// which carries the value's bytes) and receive from one. The Go side hands
// the layout over with actors.Mailbox.Device, laid out as symchan_mailbox.
// Receiver r's inbox holds, for each sender s, k slot words (words_off, a
// uint64 each: the sequence number of the slot's message) and k slots of
// slot_size bytes (slots_off): a SYMCHAN_SLOT_HEADER-byte header (kind,
// payload bytes, total bytes, seal) and the payload. Slots are sealed
// (symchan_mailbox_seal): a sender puts a slot and its word with no fence
// between them, and a receiver takes a slot only once what it read agrees
// with the seal for the slot's sequence number, reading again until it
// does. Sender s's credit word for r (credit_off
// + 8r, in s's partition) counts the slots r has freed. On one PE, either
// Go or the device sends to a given destination (one thread or group, or
// many at once with the _mp routines), and either Go or one device thread
// receives: they share the sequence numbers.

struct symchan_mailbox {
	symchan_u64 words_off, slots_off, credit_off;
	unsigned npes, k, slot_size, pad;
};

// Sending state of one device sender towards one destination (an array
// of npes of them for a sender that sends to every PE), and the receiving
// state of one device receiver: SYMCHAN_MBOX_IN_SIZE(npes) bytes, per
// sender the next sequence number due and the slots not yet credited
// back. Both are zeroed before first use.
struct symchan_mbox_out {
	symchan_u64 sent, freed;
};
struct symchan_mbox_in; // next[npes], then unpaid[npes]
#define SYMCHAN_MBOX_IN_SIZE(npes) (16ull * (npes))

static __device__ __forceinline__ symchan_u64 *symchan_in_next(const symchan_mailbox *, const symchan_mbox_in *in) {
	return (symchan_u64 *)in;
}
static __device__ __forceinline__ symchan_u64 *symchan_in_unpaid(const symchan_mailbox *mb, const symchan_mbox_in *in) {
	return (symchan_u64 *)in + mb->npes;
}

// A slot's header: word 0 kind | payload bytes << 32, word 1 the
// message's total bytes (a first chunk) or the chunk's offset (a further
// one), word 2 the seal; then the payload.
#define SYMCHAN_SLOT_HEADER 24

#define SYMCHAN_MBOX_DATA 1
#define SYMCHAN_MBOX_MORE 2
#define SYMCHAN_MBOX_CLOSE 3

// What the receive routines return besides a length.
#define SYMCHAN_MBOX_CLOSED -1    // the sender closed its side
#define SYMCHAN_MBOX_CUT_SHORT -3 // the sender cut a message short; its next message is left in place
#define SYMCHAN_MBOX_PROTOCOL -4  // a slot that breaks the wire format (a stray continuation)
#define SYMCHAN_MBOX_ABORTED -6   // the world failed or ended while the receive waited (symchan_aborted); *from is then -1

// symchan_mailbox_ring is sequence number seq's place in a ring of k
// slots: a mask for the usual power of two (a 64-bit remainder is a long
// software sequence on the GPU, paid several times a message).
static __device__ __forceinline__ symchan_u64 symchan_mailbox_ring(symchan_u64 seq, unsigned k) {
	return (k & (k - 1)) == 0 ? (seq - 1) & (k - 1) : (seq - 1) % k;
}

// symchan_seal_mix is the hash term of word w at index i: splitmix64's
// finaliser over w ^ i·φ (seal.Mix in internal/seal; the agent's requests
// are sealed with it too).
static __device__ __forceinline__ symchan_u64 symchan_seal_mix(symchan_u64 w, symchan_u64 i) {
	w ^= i * 0x9e3779b97f4a7c15ull;
	w ^= w >> 30;
	w *= 0xbf58476d1ce4e5b9ull;
	w ^= w >> 27;
	w *= 0x94d049bb133111ebull;
	return w ^ (w >> 31);
}

// symchan_mailbox_seal is the seal of the slot of sequence number seq
// whose header words are w0 and v and whose payload words' terms XOR to
// part: the XOR of symchan_seal_mix(seq, 0), (w0, 1), (v, 2) and, over the
// payload's 8-byte little-endian words j (the last one zero-padded),
// (word, 3 + j), which part holds (actors' slotSeal computes the same).
static __device__ __forceinline__ symchan_u64 symchan_mailbox_seal(symchan_u64 seq, symchan_u64 w0, symchan_u64 v, symchan_u64 part) {
	return part ^ symchan_seal_mix(seq, 0) ^ symchan_seal_mix(w0, 1) ^ symchan_seal_mix(v, 2);
}

// symchan_payload_word is word j of the n bytes at src (any alignment),
// zero past n.
static __device__ __forceinline__ symchan_u64 symchan_payload_word(const unsigned char *src, symchan_u64 n, symchan_u64 j) {
	const symchan_u64 at = 8 * j;
	if (((symchan_u64)src & 7) == 0 && at + 8 <= n)
		return *(const symchan_u64 *)(src + at);
	symchan_u64 w = 0;
	for (unsigned b = 0; b < 8 && at + b < n; b++)
		w |= (symchan_u64)src[at + b] << (8 * b);
	return w;
}

// symchan_group_xor returns to every thread of the group the XOR of the
// values its threads pass (a full warp, or the whole block).
static __device__ __forceinline__ symchan_u64 symchan_group_xor(symchan_u64 x, int scope) {
	if (scope == SYMCHAN_SCOPE_THREAD)
		return x;
	for (int o = 16; o > 0; o /= 2)
		x ^= __shfl_xor_sync(0xffffffffu, x, o);
	if (scope == SYMCHAN_SCOPE_WARP)
		return x;
	__shared__ unsigned long long acc;
	__syncthreads(); // every thread read the last call's acc
	if (symchan_block_tid() == 0)
		acc = 0;
	__syncthreads();
	if ((threadIdx.x & 31) == 0 && x != 0)
		atomicXor(&acc, (unsigned long long)x);
	__syncthreads();
	return acc;
}

// symchan_group_all reports to every thread of the group whether ok holds
// in all of them (a group barrier).
static __device__ __forceinline__ bool symchan_group_all(bool ok, int scope) {
	if (scope == SYMCHAN_SCOPE_WARP)
		return __all_sync(0xffffffffu, ok);
	if (scope == SYMCHAN_SCOPE_BLOCK)
		return __syncthreads_and(ok);
	return ok;
}

// symchan_mailbox_credit waits (one thread) until the slot of sequence
// number seq towards PE to is free: the receiver has credited seq - k.
// With shared, out is shared by several senders of this GPU (see
// symchan_mailbox_send_mp): out->freed, the latest credit any of them saw,
// is read with acquire and raised with release, so that a sender that
// takes another's credit is ordered after the receiver's reads as that
// one was.
static __device__ __forceinline__ void symchan_mailbox_credit(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_out *out, int to,
                                                              symchan_u64 seq, bool shared) {
	symchan_u64 freed;
	if (shared)
		asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(freed) : "l"(&out->freed) : "memory");
	else
		freed = out->freed;
	if (seq <= freed + mb->k)
		return;
	const volatile symchan_u64 *credit = (const volatile symchan_u64 *)symchan_sym(h, mb->credit_off + 8ull * to);
	unsigned spins = 0;
	do
		freed = symchan_load_acquire(credit);
	while (seq > freed + mb->k && !symchan_spin_aborted(h, &spins)); // aborted: the world's memory no longer matters
	if (shared)
		asm volatile("red.release.gpu.max.u64 [%0], %1;" ::"l"(&out->freed), "l"(freed) : "memory");
	else
		out->freed = freed;
}

// symchan_mailbox_put_slot sends the slot of sequence number seq to PE
// to: waits (thread 0) for credit, the group copies the payload and seals
// it, then thread 0 writes the header and the slot's word, with no fence
// between data and word (the receiver checks the seal). Without shared it
// also records seq as sent.
static __device__ void symchan_mailbox_put_slot(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_out *out, int to, unsigned kind,
                                                unsigned n, symchan_u64 v, const void *payload, symchan_u64 seq, bool shared, unsigned tid,
                                                unsigned nth, int scope) {
	if (tid == 0)
		symchan_mailbox_credit(h, mb, out, to, seq, shared);
	symchan_u64 part = 0;
	for (symchan_u64 j = tid; 8 * j < n; j += nth)
		part ^= symchan_seal_mix(symchan_payload_word((const unsigned char *)payload, n, j), 3 + j);
	part = symchan_group_xor(part, scope); // a group barrier too: credit is there
	const symchan_u64 w0 = (symchan_u64)n << 32 | kind, seal = symchan_mailbox_seal(seq, w0, v, part);
	const symchan_u64 slot = (symchan_u64)h->pe * mb->k + symchan_mailbox_ring(seq, mb->k);
#ifdef SYMCHAN_NVSHMEM
	if (h->base[to] == 0) { // through NVSHMEM: the header, the payload, the word
		char *p = (char *)symchan_sym(h, mb->slots_off + slot * mb->slot_size);
		if (tid == 0) { // the header as words (_p: values in registers, as a proxy needs them)
			nvshmem_uint64_p((uint64_t *)p, w0, to);
			nvshmem_uint64_p((uint64_t *)(p + 8), v, to);
			nvshmem_uint64_p((uint64_t *)(p + 16), seal, to);
		}
		if (n > 0) {
			if (scope == SYMCHAN_SCOPE_WARP)
				nvshmemx_putmem_warp(p + SYMCHAN_SLOT_HEADER, payload, n, to);
			else if (scope == SYMCHAN_SCOPE_BLOCK)
				nvshmemx_putmem_block(p + SYMCHAN_SLOT_HEADER, payload, n, to);
			else
				nvshmem_putmem(p + SYMCHAN_SLOT_HEADER, payload, n, to);
		}
		symchan_group_sync(scope);
		if (tid == 0) {
			nvshmemx_signal_op((uint64_t *)symchan_sym(h, mb->words_off + slot * 8), seq, NVSHMEM_SIGNAL_SET, to);
			if (!shared)
				out->sent = seq;
		}
		symchan_group_sync(scope);
		return;
	}
#endif
	unsigned char *p = (unsigned char *)symchan_ptr(h, to, mb->slots_off + slot * mb->slot_size);
	if (tid == 0) {
		((symchan_u64 *)p)[0] = w0;
		((symchan_u64 *)p)[1] = v;
		((symchan_u64 *)p)[2] = seal;
	}
	symchan_copy_part(p + SYMCHAN_SLOT_HEADER, payload, n, tid, nth);
	symchan_group_sync(scope);
	if (tid == 0) {
		symchan_signal_op(h, to, mb->words_off + slot * 8, seq, SYMCHAN_SIGNAL_SET);
		if (!shared)
			out->sent = seq;
	}
	symchan_group_sync(scope);
}

// symchan_mailbox_first_seq is the sequence number of a message's first
// slot. With shared, thread 0 reserves all of the message's slots (n
// bytes) at once with an atomic add on out->sent, so that they are
// consecutive among the other senders' messages, and the group shares the
// result.
static __device__ __forceinline__ symchan_u64 symchan_mailbox_first_seq(const symchan_mailbox *mb, symchan_mbox_out *out, symchan_u64 n, bool shared,
                                                                       unsigned tid, int scope) {
	if (!shared)
		return out->sent + 1;
	symchan_u64 seq = 0;
	if (tid == 0) {
		const symchan_u64 cap = mb->slot_size - SYMCHAN_SLOT_HEADER, slots = n == 0 ? 1 : (n + cap - 1) / cap;
		seq = atomicAdd((unsigned long long *)&out->sent, (unsigned long long)slots) + 1;
	}
	return symchan_group_pick(seq, scope);
}

// symchan_mailbox_send_scoped sends n bytes to PE to as one message, in
// chunks of slot_size - SYMCHAN_SLOT_HEADER bytes in consecutive slots when it does not fit
// one, waiting for credit: the wire format of Mailbox.Send, so Go and
// kernel receivers take it alike. The Go receiver's MaxMessage bounds n.
// shared: out is shared by many producers (symchan_mailbox_send_mp).
static __device__ void symchan_mailbox_send_scoped(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_out *out, int to, const void *data,
                                                   symchan_u64 n, bool shared, int scope) {
	const unsigned tid = symchan_group_tid(scope), nth = symchan_group_size(scope);
	const symchan_u64 cap = mb->slot_size - SYMCHAN_SLOT_HEADER;
	symchan_u64 seq = symchan_mailbox_first_seq(mb, out, n, shared, tid, scope), off = 0;
	do {
		const unsigned c = (unsigned)(n - off < cap ? n - off : cap);
		symchan_mailbox_put_slot(h, mb, out, to, off == 0 ? SYMCHAN_MBOX_DATA : SYMCHAN_MBOX_MORE, c, off == 0 ? n : off,
		                         (const char *)data + off, seq++, shared, tid, nth, scope);
		off += c;
	} while (off < n);
}

// symchan_mailbox_send (_warp, _block) sends n bytes to PE to (messages
// of several slots included); the group forms send with the whole warp or
// block, all of it copying. It returns 0.
static __device__ __forceinline__ int symchan_mailbox_send_group(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_out *out, int to,
                                                                 const void *data, symchan_u64 n, int scope) {
	symchan_mailbox_send_scoped(h, mb, out, to, data, n, false, scope);
	return 0;
}
SYMCHAN_GROUP_FORMS(int, mailbox_send, (const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_out *out, int to, const void *data, symchan_u64 n),
                    h, mb, out, to, data, n)

// symchan_mailbox_send_mp (_warp, _block) sends n bytes to PE to as
// symchan_mailbox_send does, where any number of threads of this GPU send
// to to at once through the same out ("many producers"): each message
// takes its slots with one atomic add, so one sender's messages arrive in
// its order and whole, interleaved with the others'. The group forms send
// with a whole warp or block, each group a sender. out must be memory all
// of them reach (global memory, or shared memory when they are all in one
// block), and a destination is sent to either with these routines or with
// the others, not both at once; close it (symchan_mailbox_close) once they
// are done.
static __device__ __forceinline__ void symchan_mailbox_send_mp_group(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_out *out, int to,
                                                                    const void *data, symchan_u64 n, int scope) {
	symchan_mailbox_send_scoped(h, mb, out, to, data, n, true, scope);
}
SYMCHAN_GROUP_FORMS(void, mailbox_send_mp,
                    (const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_out *out, int to, const void *data, symchan_u64 n), h, mb, out,
                    to, data, n)

// symchan_mailbox_close sends the close marker to PE to (one thread):
// the receiver learns it after this sender's last message.
static __device__ void symchan_mailbox_close(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_out *out, int to) {
	// (A volatile read: after the _mp routines, the count is their atomics'.)
	const symchan_u64 seq = *(volatile symchan_u64 *)&out->sent + 1;
	symchan_mailbox_put_slot(h, mb, out, to, SYMCHAN_MBOX_CLOSE, 0, 0, NULL, seq, false, 0, 1, SYMCHAN_SCOPE_THREAD);
}

// symchan_mailbox_slot is the address of from's due slot: its 16-byte
// header (kind, payload bytes, total bytes or chunk offset), then the
// payload.
static __device__ __forceinline__ const unsigned char *symchan_mailbox_slot(const symchan_heap *h, const symchan_mailbox *mb,
                                                                          const symchan_mbox_in *in, int from) {
	const symchan_u64 seq = symchan_in_next(mb, in)[from] ? symchan_in_next(mb, in)[from] : 1;
	const symchan_u64 slot = (symchan_u64)from * mb->k + symchan_mailbox_ring(seq, mb->k);
	return (const unsigned char *)symchan_sym(h, mb->slots_off + slot * mb->slot_size);
}

// symchan_mailbox_due reports whether from's next slot has arrived (an
// acquire: the slot is then seen whole).
static __device__ __forceinline__ bool symchan_mailbox_due(const symchan_heap *h, const symchan_mailbox *mb, const symchan_mbox_in *in,
                                                           int from) {
	const symchan_u64 seq = symchan_in_next(mb, in)[from] ? symchan_in_next(mb, in)[from] : 1;
	const symchan_u64 slot = (symchan_u64)from * mb->k + symchan_mailbox_ring(seq, mb->k);
	return symchan_load_acquire((const volatile symchan_u64 *)symchan_sym(h, mb->words_off + slot * 8)) >= seq;
}

// symchan_mailbox_done retires from's due slot (of kind kind) and credits
// freed slots back in batches of k/2, as the Go receiver does.
static __device__ __forceinline__ void symchan_mailbox_done(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_in *in, int from,
                                                            unsigned kind) {
	const symchan_u64 seq = symchan_in_next(mb, in)[from] ? symchan_in_next(mb, in)[from] : 1;
	symchan_in_next(mb, in)[from] = seq + 1;
	symchan_in_unpaid(mb, in)[from]++;
	if (kind == SYMCHAN_MBOX_CLOSE || 2 * symchan_in_unpaid(mb, in)[from] >= mb->k) {
		symchan_signal_release(h, from, mb->credit_off + 8ull * h->pe, symchan_in_unpaid(mb, in)[from], SYMCHAN_SIGNAL_ADD);
		symchan_in_unpaid(mb, in)[from] = 0;
	}
}

// symchan_mailbox_next_sender waits until some sender's next message has
// arrived and returns that sender, scanning from *start and leaving *start
// after it, so that under load every sender is served in turn (none
// starves). Senders whose side is closed never have a next message.
// In a world of more than SYMCHAN_LOCAL_PES PEs the scan peeks at each
// word with a relaxed load and takes the acquire only for a sender found
// ready: an acquire at system scope costs a pass over the L1 cache, and a
// receiver of 1024 senders pays the scan's loads for each message it
// takes. In smaller worlds the acquire is the load that sees the word
// (a second load of it cost a kernel-actor hop 0.1 µs).
static __device__ __forceinline__ bool symchan_mailbox_peek(const symchan_heap *h, const symchan_mailbox *mb, const symchan_mbox_in *in, int from) {
	const symchan_u64 next = symchan_in_next(mb, in)[from], seq = next ? next : 1;
	const symchan_u64 slot = (symchan_u64)from * mb->k + symchan_mailbox_ring(seq, mb->k);
	return *(const volatile symchan_u64 *)symchan_sym(h, mb->words_off + slot * 8) >= seq;
}

static __device__ __forceinline__ int symchan_mailbox_next_sender(const symchan_heap *h, const symchan_mailbox *mb, const symchan_mbox_in *in,
                                                                  int *start) {
	const int n = (int)mb->npes;
	unsigned spins = 0;
	for (int s = *start % n;; s = (s + 1) % n) {
		if ((n <= SYMCHAN_LOCAL_PES || symchan_mailbox_peek(h, mb, in, s)) && symchan_mailbox_due(h, mb, in, s)) {
			*start = (s + 1) % n;
			return s;
		}
		if (symchan_spin_aborted(h, &spins))
			return SYMCHAN_MBOX_ABORTED;
	}
}

// symchan_mailbox_wait_due waits until from's next slot has arrived
// (true) or the world failed or ended (false). One thread.
static __device__ __forceinline__ bool symchan_mailbox_wait_due(const symchan_heap *h, const symchan_mailbox *mb, const symchan_mbox_in *in,
                                                                int from) {
	unsigned spins = 0;
	while (!symchan_mailbox_due(h, mb, in, from))
		if (symchan_spin_aborted(h, &spins))
			return false;
	return true;
}

// symchan_slot_head is a slot's header (w0: kind | payload bytes << 32;
// v: total bytes or chunk offset; seal) and, with payload, its first 16
// payload bytes, read together by symchan_mailbox_head after the slot's
// word was seen: a small message's payload then comes with its header,
// not a memory round trip after it. One thread reading for itself takes
// the payload bytes too (the kernel-actor ping-pong: 3.14 → 3.00 µs a
// half round trip on two H200s); a group reads the header alone, since
// every one of its threads reads it and more loads of one line slowed the
// ring's block receiver (6.5 → 6.8 µs a hop). The loads are volatile:
// a slot read again after a torn read must come from memory, not L1.
struct symchan_slot_head {
	symchan_u64 w0, v, seal, d0, d1;
	bool payload;
};

static __device__ __forceinline__ symchan_slot_head symchan_mailbox_head(const unsigned char *p, bool payload) {
	const volatile symchan_u64 *q = (const volatile symchan_u64 *)p;
	if (payload)
		return symchan_slot_head{q[0], q[1], q[2], q[3], q[4], true};
	return symchan_slot_head{q[0], q[1], q[2], 0, 0, false};
}

// symchan_slot_payload is the payload's length in the header hd read,
// clipped to what the slot holds (a torn header may say more).
static __device__ __forceinline__ unsigned symchan_slot_payload(const symchan_mailbox *mb, const symchan_slot_head &hd) {
	const symchan_u64 n = hd.w0 >> 32, cap = mb->slot_size - SYMCHAN_SLOT_HEADER;
	return (unsigned)(n < cap ? n : cap);
}

// symchan_mailbox_read_payload reads the n-byte payload of the slot at p,
// whose head hd was read, with the group (tid of nth): this thread's
// words j = tid, tid + nth, … (from hd where they lie there), copying
// their bytes below m to dst unless dst is NULL. It returns this thread's
// part of the seal (the XOR of its words' terms).
static __device__ __forceinline__ symchan_u64 symchan_mailbox_read_payload(void *dst, unsigned m, const unsigned char *p,
                                                                          const symchan_slot_head &hd, unsigned n, unsigned tid,
                                                                          unsigned nth) {
	const volatile symchan_u64 *q = (const volatile symchan_u64 *)(p + SYMCHAN_SLOT_HEADER);
	unsigned char *d = (unsigned char *)dst;
	symchan_u64 part = 0;
	for (unsigned j = tid; 8 * j < n; j += nth) {
		symchan_u64 w = hd.payload && j < 2 ? (j == 0 ? hd.d0 : hd.d1) : q[j];
		const unsigned at = 8 * j, left = n - at;
		if (left < 8)
			w &= (1ull << (8 * left)) - 1;
		part ^= symchan_seal_mix(w, 3 + j);
		if (d != NULL && at < m) {
			if (at + 8 <= m && ((symchan_u64)(d + at) & 7) == 0)
				*(symchan_u64 *)(d + at) = w;
			else
				for (unsigned b = 0; b < 8 && at + b < m; b++)
					d[at + b] = (unsigned char)(w >> (8 * b));
		}
	}
	return part;
}

// symchan_mailbox_take: the group takes from's due message, which has
// arrived: it copies up to cap bytes of it into buf (joining the chunks
// of a message of several slots as they arrive) and retires its slots,
// crediting them back. Each slot is read until its seal agrees for its
// sequence number (its word may have come before its data). It returns
// the message's length (which may exceed cap: the rest is dropped),
// SYMCHAN_MBOX_CLOSED, SYMCHAN_MBOX_CUT_SHORT or SYMCHAN_MBOX_PROTOCOL.
static __device__ int symchan_mailbox_take(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_in *in, int from, void *buf, symchan_u64 cap,
                                           unsigned tid, unsigned nth, int scope) {
	symchan_u64 got = 0, total = 0;
	for (bool first = true;; first = false) {
		if (!first && !symchan_group_all(tid != 0 || symchan_mailbox_wait_due(h, mb, in, from), scope))
			return SYMCHAN_MBOX_ABORTED;
		const unsigned char *p = symchan_mailbox_slot(h, mb, in, from);
		const symchan_u64 seq = symchan_in_next(mb, in)[from] ? symchan_in_next(mb, in)[from] : 1;
		symchan_slot_head hd;
		unsigned kind, n;
		int r;
		for (;;) {
			hd = symchan_mailbox_head(p, scope == SYMCHAN_SCOPE_THREAD && mb->slot_size >= SYMCHAN_SLOT_HEADER + 16);
			kind = (unsigned)hd.w0 & 0xff, n = symchan_slot_payload(mb, hd);
			r = 0;
			if (first && kind != SYMCHAN_MBOX_DATA)
				r = kind == SYMCHAN_MBOX_CLOSE ? SYMCHAN_MBOX_CLOSED : SYMCHAN_MBOX_PROTOCOL;
			else if (!first && (kind != SYMCHAN_MBOX_MORE || hd.v != got))
				r = SYMCHAN_MBOX_CUT_SHORT;
			const symchan_u64 m = r == 0 && got < cap ? (n < cap - got ? n : cap - got) : 0;
			const symchan_u64 part = symchan_mailbox_read_payload(m ? (char *)buf + got : NULL, (unsigned)m, p, hd, n, tid, nth);
			// Each thread read the header for itself: the group goes on
			// only when every one of them found it whole.
			if (symchan_group_all(symchan_mailbox_seal(seq, hd.w0, hd.v, symchan_group_xor(part, scope)) == hd.seal, scope))
				break; // else torn: read it again
		}
		if (r == SYMCHAN_MBOX_CUT_SHORT)
			return r; // the slot stays: it starts the sender's next message
		if (first && r == 0)
			total = hd.v;
		symchan_group_sync(scope);
		if (tid == 0)
			symchan_mailbox_done(h, mb, in, from, kind);
		symchan_group_sync(scope);
		if (r != 0)
			return r;
		got += n;
		if (got >= total)
			return (int)total;
	}
}

// symchan_mailbox_recv waits for the next message from PE from and copies
// up to cap bytes of it into buf; see symchan_mailbox_take for what it
// returns. One thread.
static __device__ int symchan_mailbox_recv(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_in *in, int from, void *buf,
                                           symchan_u64 cap) {
	if (!symchan_mailbox_wait_due(h, mb, in, from))
		return SYMCHAN_MBOX_ABORTED;
	return symchan_mailbox_take(h, mb, in, from, buf, cap, 0, 1, SYMCHAN_SCOPE_THREAD);
}

// symchan_mailbox_pick_sender: thread 0 of the group picks the next
// sender with a message due (fair across senders, see
// symchan_mailbox_next_sender; *start starts at 0), and every thread gets
// it, or what next_sender returned for none. *from is set to it (-1 for
// none).
static __device__ __forceinline__ int symchan_mailbox_pick_sender(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_in *in, int *from,
                                                                 int *start, int scope) {
	const int s = (int)symchan_group_pick(symchan_group_tid(scope) == 0 ? (symchan_u64)(long long)symchan_mailbox_next_sender(h, mb, in, start) : 0,
	                                      scope);
	*from = s < 0 ? -1 : s;
	return s;
}

// symchan_mailbox_recv_any (_warp, _block) waits for the next message
// from any sender (symchan_mailbox_pick_sender), sets *from to its sender
// and takes it as symchan_mailbox_recv does. The group forms take it with
// a whole (full) warp or block: every thread calls them with the same
// arguments (in, *from, *start and buf shared: the same pointers), thread
// 0 picks the sender, all copy, and every thread gets the result.
static __device__ __forceinline__ int symchan_mailbox_recv_any_group(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_in *in, int *from,
                                                                     int *start, void *buf, symchan_u64 cap, int scope) {
	const int s = symchan_mailbox_pick_sender(h, mb, in, from, start, scope);
	if (s < 0)
		return s;
	return symchan_mailbox_take(h, mb, in, s, buf, cap, symchan_group_tid(scope), symchan_group_size(scope), scope);
}
SYMCHAN_GROUP_FORMS(int, mailbox_recv_any,
                    (const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_in *in, int *from, int *start, void *buf, symchan_u64 cap), h,
                    mb, in, from, start, buf, cap)

// symchan_mailbox_probe: sender s's message seq0 + j (j ≥ 0) is ready and
// whole in its slot: the slot's word reached that sequence number (the
// sender reuses a slot only after this receiver credits it), the slot
// holds a single-slot message, and what was read agrees with its seal.
// It copies up to cap bytes of the message to dst and sets *n to its
// length. Any thread; j < k.
static __device__ __forceinline__ bool symchan_mailbox_probe(const symchan_heap *h, const symchan_mailbox *mb, int s, symchan_u64 seq0, unsigned j,
                                                             void *dst, symchan_u64 cap, unsigned *n) {
	const symchan_u64 seq = seq0 + j, slot = (symchan_u64)s * mb->k + symchan_mailbox_ring(seq, mb->k);
	const volatile symchan_u64 *w = (const volatile symchan_u64 *)symchan_sym(h, mb->words_off + slot * 8);
	const unsigned char *p = (const unsigned char *)symchan_sym(h, mb->slots_off + slot * mb->slot_size);
	if (symchan_load_acquire(w) < seq)
		return false;
	const symchan_slot_head hd = symchan_mailbox_head(p, mb->slot_size >= SYMCHAN_SLOT_HEADER + 16);
	*n = symchan_slot_payload(mb, hd);
	if (((unsigned)hd.w0 & 0xff) != SYMCHAN_MBOX_DATA || hd.v != hd.w0 >> 32)
		return false; // not a whole message in this slot (or torn: the next probe tells)
	const symchan_u64 part = symchan_mailbox_read_payload(dst, (unsigned)(*n < cap ? *n : cap), p, hd, *n, 0, 1);
	return symchan_mailbox_seal(seq, hd.w0, hd.v, part) == hd.seal;
}

// symchan_mailbox_retire_run retires sender s's next run slots, each a
// whole message already copied out, and credits them back as
// symchan_mailbox_done does. One thread.
static __device__ __forceinline__ void symchan_mailbox_retire_run(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_in *in, int s,
                                                                  unsigned run) {
	symchan_in_next(mb, in)[s] = (symchan_in_next(mb, in)[s] ? symchan_in_next(mb, in)[s] : 1) + run;
	symchan_in_unpaid(mb, in)[s] += run;
	if (2 * symchan_in_unpaid(mb, in)[s] >= mb->k) {
		symchan_signal_release(h, s, mb->credit_off + 8ull * h->pe, symchan_in_unpaid(mb, in)[s], SYMCHAN_SIGNAL_ADD);
		symchan_in_unpaid(mb, in)[s] = 0;
	}
}

// symchan_mailbox_recv_many (_warp, _block): the group takes the next
// ready messages of one sender at once, up to its size (32 for a warp,
// blockDim for a block) and k, the sender picked as
// symchan_mailbox_recv_any picks it: thread j checks the sender's slot j
// places ahead, and the ready run of single-slot messages is taken with
// the threads' loads in flight together, one message a thread, instead
// of one after another. Thread j gets message j's bytes at buf + j·cap (up
// to cap) and its length in *len (every thread passes its own len; buf,
// *from and *start shared). A message of several slots, or a close
// marker, at the head is taken alone, as symchan_mailbox_recv_any takes
// it, into thread 0's place. It returns the count, the same in every
// thread, or what symchan_mailbox_take returns for a head taken alone
// that is not a message (SYMCHAN_MBOX_CLOSED, …; *len then 0). With a
// mailbox of as many slots per sender as the block has threads, or more,
// one pass of the block form can take what a whole grid of sending warps
// sent (see BenchmarkGPUActorMessageRate). Its registers with a caller's
// exceed 64 a thread: a kernel that calls the block form with more than
// 512 threads a block needs __launch_bounds__ (or its launch fails for
// lack of registers).
static __device__ __forceinline__ int symchan_mailbox_recv_many_group(const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_in *in, int *from,
                                                                      int *start, void *buf, symchan_u64 cap, int *len, int scope) {
	const unsigned tid = symchan_group_tid(scope);
	const int s = symchan_mailbox_pick_sender(h, mb, in, from, start, scope);
	*len = 0;
	if (s < 0)
		return s;
	unsigned n = 0;
	const bool ok = tid < mb->k &&
	                symchan_mailbox_probe(h, mb, s, symchan_in_next(mb, in)[s] ? symchan_in_next(mb, in)[s] : 1, tid, (char *)buf + tid * cap, cap, &n);
	const unsigned run = symchan_group_run(ok, scope); // threads 0 … run-1 hold one
	if (run == 0) { // the head alone: several slots, or a marker
		const int r = symchan_mailbox_take(h, mb, in, s, buf, cap, tid, symchan_group_size(scope), scope);
		if (r < 0)
			return r;
		if (tid == 0)
			*len = r;
		return 1;
	}
	if (tid < run)
		*len = (int)n;
	symchan_group_sync(scope);
	if (tid == 0)
		symchan_mailbox_retire_run(h, mb, in, s, run);
	symchan_group_sync(scope);
	return (int)run;
}
SYMCHAN_GROUP_FORMS(int, mailbox_recv_many,
                    (const symchan_heap *h, const symchan_mailbox *mb, symchan_mbox_in *in, int *from, int *start, void *buf, symchan_u64 cap,
                     int *len),
                    h, mb, in, from, start, buf, cap, len)

// --- futures (the reply slots of package actors) -------------------------
//
// A System's reply slots, from actors.System.Device: per PE, futures slots
// of a uint64 word (generation << 2 | state: 0 over, replied to or
// abandoned, 1 writing) and slot_bytes bytes (the reply's length, then
// the reply). A slot whose word holds generation g - 1 over awaits the
// reply of generation g. A ReplyTo (actors.ReplyTo, plain data) names a PE, a slot and a
// generation.

struct symchan_replies {
	symchan_u64 words_off, data_off;
	unsigned futures, slot_bytes, reply_size, pad;
};

struct symchan_reply_to {
	int pe;
	unsigned slot;
	symchan_u64 gen;
};

#define SYMCHAN_REPLY_ABANDONED -1 // the future timed out or was abandoned: nothing was written
#define SYMCHAN_REPLY_TOO_LARGE -2 // n exceeds the System's ReplySize
#define SYMCHAN_REPLY_BAD -3       // a PE or slot outside the System

// symchan_reply sends n bytes (the encoding Go's Reply would make: a
// plain value's bytes) as the reply to the future at to, as actors.Reply
// does: it claims the slot with a compare-and-swap from armed (g - 1
// over) to writing, so a reply to an abandoned future (g over) writes
// nothing, then writes the length and the bytes and sets the word to g
// over (release). One thread; it does
// not wait. It returns 0 or a SYMCHAN_REPLY_ error.
static __device__ int symchan_reply(const symchan_heap *h, const symchan_replies *rs, symchan_reply_to to, const void *data, symchan_u64 n) {
	if (to.pe < 0 || to.pe >= h->npes || to.slot >= rs->futures)
		return SYMCHAN_REPLY_BAD;
	if (n > rs->reply_size)
		return SYMCHAN_REPLY_TOO_LARGE;
	if (to.gen == 0)
		return SYMCHAN_REPLY_ABANDONED; // no future has generation 0
	const symchan_u64 off = rs->words_off + 8ull * to.slot;
	const symchan_u64 armed = (to.gen - 1) << 2, writing = to.gen << 2 | 1, done = to.gen << 2;
	if (symchan_atomic_compare_swap(h, to.pe, off, armed, writing) != armed)
		return SYMCHAN_REPLY_ABANDONED;
	SYMCHAN_REMOTE(h, to.pe, symchan_u64 *d = (symchan_u64 *)symchan_sym(h, rs->data_off + (symchan_u64)to.slot * rs->slot_bytes);
	               nvshmem_uint64_p((uint64_t *)d, n, to.pe); nvshmem_putmem(d + 1, data, n, to.pe);
	               symchan_signal_release(h, to.pe, off, done, SYMCHAN_SIGNAL_SET); return 0)
	unsigned char *d = (unsigned char *)symchan_ptr(h, to.pe, rs->data_off + (symchan_u64)to.slot * rs->slot_bytes);
	*(symchan_u64 *)d = n;
	symchan_copy_part(d + 8, data, n, 0, 1);
	symchan_signal_release(h, to.pe, off, done, SYMCHAN_SIGNAL_SET);
	return 0;
}

// symchan_await_reply waits on this PE for the reply to the future at to
// (made in Go: actors.NewFuture, whose ReplyTo the kernel is given) and
// copies up to cap bytes of it into buf; it returns the reply's length,
// or SYMCHAN_REPLY_ABORTED when the world failed or ended first.
// The Go side then still calls the Future's Await (which returns the same
// reply) or Abandon, to give the slot back. One thread.
#define SYMCHAN_REPLY_ABORTED (~0ull)
static __device__ symchan_u64 symchan_await_reply(const symchan_heap *h, const symchan_replies *rs, symchan_reply_to to, void *buf,
                                                  symchan_u64 cap) {
	symchan_u64 w;
	if (!symchan_wait_until_h(h, (const volatile symchan_u64 *)symchan_sym(h, rs->words_off + 8ull * to.slot), SYMCHAN_CMP_EQ, to.gen << 2, &w))
		return SYMCHAN_REPLY_ABORTED;
	const unsigned char *d = (const unsigned char *)symchan_sym(h, rs->data_off + (symchan_u64)to.slot * rs->slot_bytes);
	const symchan_u64 n = *(const volatile symchan_u64 *)d;
	symchan_copy_part(buf, d + 8, n < cap ? n : cap, 0, 1);
	return n;
}

// --- kernel actors (actors.StartKernel) -----------------------------------
//
// A kernel started with actors.StartKernel is its PE's actor: it takes the
// PE's mailbox from every sender, Go or kernel, and sends, replies and
// fails through the struct symchan_actor the Go side hands it (its second
// argument, after the heap descriptor). The Go side's receive and send
// state moves into the struct at the start and back when the kernel
// returns, so Go and the kernel take turns on one mailbox. The kernel must
// not send to its own PE: the Go side stops it with a close marker from
// the PE to itself.

struct symchan_actor {
	symchan_mailbox mb;
	unsigned pad0[2];
	symchan_replies rs;
	symchan_u64 error;     // nonzero: the kernel failed with this code (symchan_actor_fail)
	int start, pad1;       // the receive's fairness cursor
	symchan_mbox_in *in;   // the receiving state (SYMCHAN_MBOX_IN_SIZE(npes) bytes)
	symchan_mbox_out *out; // npes: the sending state towards each PE
	symchan_u64 *closed;   // (npes+63)/64 words: bit s%64 of word s/64, sender s closed its side
	symchan_u64 pad2;
};

// The receiving and sending state of a kernel actor. Up to
// SYMCHAN_LOCAL_PES PEs the receiving state follows the struct (room for
// SYMCHAN_LOCAL_PES senders) and the sending state follows that, where
// the Go side allocates it and in symchan_actor_local's copy alike.
static __device__ __forceinline__ symchan_mbox_in *symchan_actor_in(const symchan_actor *a) {
	return a->mb.npes <= SYMCHAN_LOCAL_PES ? (symchan_mbox_in *)(a + 1) : a->in;
}
static __device__ __forceinline__ symchan_mbox_out *symchan_actor_out(const symchan_actor *a) {
	return a->mb.npes <= SYMCHAN_LOCAL_PES ? (symchan_mbox_out *)((symchan_u64 *)(a + 1) + 2 * SYMCHAN_LOCAL_PES) : a->out;
}

#define SYMCHAN_ACTOR_STOP -5 // the Go side asked the actor to stop: return

// symchan_actor_note sees what a receive returned: a close marker from the
// PE itself is the stop request; another sender's is recorded for Go.
static __device__ __forceinline__ int symchan_actor_note(const symchan_heap *h, symchan_actor *a, int from, int r, bool leader) {
	if (r != SYMCHAN_MBOX_CLOSED)
		return r;
	if (from == h->pe)
		return SYMCHAN_ACTOR_STOP;
	if (leader)
		a->closed[from / 64] |= 1ull << (from % 64);
	return r;
}

// symchan_actor_recv (_warp, _block) takes the next message from any
// sender into buf (cap bytes), setting *from: it returns the message's
// length, SYMCHAN_MBOX_CLOSED when a sender closed its side,
// SYMCHAN_ACTOR_STOP when the actor must return, or a SYMCHAN_MBOX_
// error. The group forms take it with the whole group (every thread calls
// them with the same arguments; *from and buf shared).
static __device__ __forceinline__ int symchan_actor_recv_group(const symchan_heap *h, symchan_actor *a, int *from, void *buf, symchan_u64 cap,
                                                               int scope) {
	const int r = symchan_mailbox_recv_any_group(h, &a->mb, symchan_actor_in(a), from, &a->start, buf, cap, scope);
	const int s = *from;
	symchan_group_sync(scope);
	return symchan_actor_note(h, a, s, r, symchan_group_tid(scope) == 0);
}
SYMCHAN_GROUP_FORMS(int, actor_recv, (const symchan_heap *h, symchan_actor *a, int *from, void *buf, symchan_u64 cap), h, a, from, buf, cap)

// symchan_actor_recv_many (_warp, _block) takes the next ready messages
// of one sender at once, up to the group's size, as
// symchan_mailbox_recv_many does (thread j's message at buf + j·cap, its
// length in *len): it returns the count, SYMCHAN_MBOX_CLOSED when a
// sender closed its side, SYMCHAN_ACTOR_STOP when the actor must return,
// or a SYMCHAN_MBOX_ error.
static __device__ __forceinline__ int symchan_actor_recv_many_group(const symchan_heap *h, symchan_actor *a, int *from, void *buf, symchan_u64 cap,
                                                                    int *len, int scope) {
	const int r = symchan_mailbox_recv_many_group(h, &a->mb, symchan_actor_in(a), from, &a->start, buf, cap, len, scope);
	const int s = *from;
	symchan_group_sync(scope);
	return symchan_actor_note(h, a, s, r, symchan_group_tid(scope) == 0);
}
SYMCHAN_GROUP_FORMS(int, actor_recv_many, (const symchan_heap *h, symchan_actor *a, int *from, void *buf, symchan_u64 cap, int *len), h, a, from,
                    buf, cap, len)

// symchan_actor_send (_warp, _block) sends n bytes to PE to (not the
// actor's own PE), in the Go wire format; the group forms send with the
// whole warp or block.
static __device__ __forceinline__ void symchan_actor_send_group(const symchan_heap *h, symchan_actor *a, int to, const void *data, symchan_u64 n,
                                                                int scope) {
	symchan_mailbox_send_group(h, &a->mb, &symchan_actor_out(a)[to], to, data, n, scope);
}
SYMCHAN_GROUP_FORMS(void, actor_send, (const symchan_heap *h, symchan_actor *a, int to, const void *data, symchan_u64 n), h, a, to, data, n)

// symchan_actor_send_mp (_warp, _block) sends as symchan_mailbox_send_mp
// does: any number of the actor's threads (or groups) send to PE to at
// once. The actor's state must then be in global memory, or all the
// senders in one block (see symchan_actor_enter).
static __device__ __forceinline__ void symchan_actor_send_mp_group(const symchan_heap *h, symchan_actor *a, int to, const void *data, symchan_u64 n,
                                                                  int scope) {
	symchan_mailbox_send_mp_group(h, &a->mb, &symchan_actor_out(a)[to], to, data, n, scope);
}
SYMCHAN_GROUP_FORMS(void, actor_send_mp, (const symchan_heap *h, symchan_actor *a, int to, const void *data, symchan_u64 n), h, a, to, data, n)

// symchan_actor_reply replies to a future (see symchan_reply).
static __device__ int symchan_actor_reply(const symchan_heap *h, symchan_actor *a, symchan_reply_to to, const void *data, symchan_u64 n) {
	return symchan_reply(h, &a->rs, to, data, n);
}

// A kernel actor may work on copies of its state and of the heap
// descriptor in the block's shared memory: an acquire at system scope
// (every wait for a message does several) leaves the L1 cache without
// them, and each routine then reads them again from L2, several times a
// message. symchan_actor_enter makes the copies, the routines take
// &l->h and &l->a in place of the originals, and symchan_actor_leave,
// which the kernel must call before it returns, copies the state back for
// the Go side. Every thread of the block calls both; one block per actor.
// The per-PE arrays (partition addresses, receiving and sending state)
// are copied for worlds of up to SYMCHAN_LOCAL_PES PEs, each right after
// the struct it belongs to (symchan_bases, symchan_actor_in); in larger
// worlds they stay in global memory, and the copies hold the rest.
struct symchan_actor_local {
	symchan_heap h;
	symchan_u64 base[SYMCHAN_LOCAL_PES];
	symchan_actor a;
	symchan_u64 in[2 * SYMCHAN_LOCAL_PES];
	symchan_mbox_out out[SYMCHAN_LOCAL_PES];
};

static __device__ void symchan_actor_enter(symchan_actor_local *l, const symchan_heap *h, const symchan_actor *a) {
	const unsigned tid = symchan_block_tid(), nth = symchan_block_size();
	const int n = h->npes;
	symchan_copy_part(&l->h, h, sizeof *h, tid, nth);
	symchan_copy_part(&l->a, a, sizeof *a, tid, nth);
	if (n <= SYMCHAN_LOCAL_PES) {
		symchan_copy_part(l->base, symchan_bases(h), 8ull * n, tid, nth);
		symchan_copy_part(l->in, symchan_actor_in(a), sizeof l->in, tid, nth);
		symchan_copy_part(l->out, symchan_actor_out(a), sizeof(symchan_mbox_out) * n, tid, nth);
	}
	__syncthreads();
	if (tid == 0 && n <= SYMCHAN_LOCAL_PES) {
		l->h.base = l->base;
		l->a.in = (symchan_mbox_in *)l->in;
		l->a.out = l->out;
	}
	__syncthreads();
}

static __device__ void symchan_actor_leave(symchan_actor_local *l, symchan_actor *a) {
	__syncthreads();
	const unsigned tid = symchan_block_tid(), nth = symchan_block_size();
	if (l->h.npes <= SYMCHAN_LOCAL_PES) {
		symchan_copy_part(symchan_actor_in(a), l->in, sizeof l->in, tid, nth);
		symchan_copy_part(symchan_actor_out(a), l->out, sizeof(symchan_mbox_out) * l->h.npes, tid, nth);
	}
	if (tid == 0) { // the scalars; a's pointers stay its own
		a->error = l->a.error;
		a->start = l->a.start;
	}
	__threadfence_system();
	__syncthreads();
}

// symchan_actor_fail records that the actor failed with code (nonzero);
// the kernel should then return. The Go side fails the PE with an
// *actors.KernelError carrying code, so every other PE's blocking calls
// end with an error naming the PE. One thread.
static __device__ void symchan_actor_fail(symchan_actor *a, symchan_u64 code) {
	a->error = code ? code : 1;
	__threadfence_system();
}

#endif
