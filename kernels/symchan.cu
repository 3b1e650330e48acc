// symchan.cu: the runtime's kernels, which the GPU backends load
// (atomics, host-side waits on GPU-resident words, the agent, copies, and
// on the nvshmem backend the remote atomic). The kernels of the tests,
// the benchmarks and the examples live beside them (conformance/,
// bench/, examples/*), each compiled when it runs (kernels.Compile). Every
// parameter is 8 bytes wide (pointers and 64-bit integers), as
// device.Launch passes them. PTX: see symchan.ptx's first line for the
// exact nvcc command (scripts/gpu-ptx.sh runs it).
#include "symchan.cuh"

typedef unsigned long long u64;

// Word kinds, atomic operations and wait modes: the values of pgas.Kind,
// pgas.AtomicOp and pgas.WaitMode.
#define KIND_INT32 1
#define KIND_UINT32 2
#define KIND_INT64 3
#define KIND_UINT64 4
#define OP_FETCH 1
#define OP_SET 2
#define OP_SWAP 3
#define OP_CSWAP 4
#define OP_FADD 5
#define OP_FAND 6
#define OP_FOR 7
#define OP_FXOR 8
#define WAIT_ALL 1
#define WAIT_ANY 2
#define WAIT_SOME 3

// ord maps a word of kind k to a u64 whose unsigned order is the word's order.
static __device__ __forceinline__ u64 ord(int kind, u64 v) {
	switch (kind) {
	case KIND_INT32: return (u64)(long long)(int)(unsigned)v ^ 0x8000000000000000ull;
	case KIND_UINT32: return v & 0xffffffffull;
	case KIND_INT64: return v ^ 0x8000000000000000ull;
	}
	return v;
}


// atomic_op performs one atomic operation on the word at ptr (in any GPU's
// memory: peer access is enabled) and returns the old value.
static __device__ u64 atomic_op(u64 ptr, int kind, int op, u64 operand, u64 cond) {
	u64 old = 0;
	if (kind == KIND_INT64 || kind == KIND_UINT64) {
		u64 *p = (u64 *)ptr;
		switch (op) {
		case OP_FETCH: old = *(volatile u64 *)p; break;
		case OP_SET:
		case OP_SWAP: old = atomicExch_system(p, operand); break;
		case OP_CSWAP: old = atomicCAS_system(p, cond, operand); break;
		case OP_FADD: old = atomicAdd_system(p, operand); break;
		case OP_FAND: old = atomicAnd_system(p, operand); break;
		case OP_FOR: old = atomicOr_system(p, operand); break;
		case OP_FXOR: old = atomicXor_system(p, operand); break;
		}
	} else {
		unsigned *p = (unsigned *)ptr, v = (unsigned)operand, c = (unsigned)cond;
		switch (op) {
		case OP_FETCH: old = *(volatile unsigned *)p; break;
		case OP_SET:
		case OP_SWAP: old = atomicExch_system(p, v); break;
		case OP_CSWAP: old = atomicCAS_system(p, c, v); break;
		case OP_FADD: old = atomicAdd_system(p, v); break;
		case OP_FAND: old = atomicAnd_system(p, v); break;
		case OP_FOR: old = atomicOr_system(p, v); break;
		case OP_FXOR: old = atomicXor_system(p, v); break;
		}
	}
	return old;
}

// symchan_atomic runs atomic_op (kindop = kind | op<<8) and stores the old
// value to result (mapped pinned host memory) unless result is 0.
extern "C" __global__ void symchan_atomic(u64 ptr, u64 kindop, u64 operand, u64 cond, u64 result) {
	const u64 old = atomic_op(ptr, kindop & 0xff, (kindop >> 8) & 0xff, operand, cond);
	__threadfence_system();
	if (result)
		*(volatile u64 *)result = old;
}

#ifdef SYMCHAN_NVSHMEM
// NVSHMEM's atomic of kind and op (as atomic_op's) on a word of type T:
// the signed kinds' results are those of the unsigned routines of their
// size (two's complement).
#define SYMCHAN_NV_AMO(T, name)                                                                \
	static __device__ T nv_amo_##name(T *p, int op, T v, T c, int pe) {                        \
		switch (op) {                                                                         \
		case OP_FETCH: return nvshmem_##name##_atomic_fetch(p, pe);                           \
		case OP_SET:                                                                          \
		case OP_SWAP: return nvshmem_##name##_atomic_swap(p, v, pe);                          \
		case OP_CSWAP: return nvshmem_##name##_atomic_compare_swap(p, c, v, pe);              \
		case OP_FADD: return nvshmem_##name##_atomic_fetch_add(p, v, pe);                     \
		case OP_FAND: return nvshmem_##name##_atomic_fetch_and(p, v, pe);                     \
		case OP_FOR: return nvshmem_##name##_atomic_fetch_or(p, v, pe);                       \
		case OP_FXOR: return nvshmem_##name##_atomic_fetch_xor(p, v, pe);                     \
		}                                                                                     \
		return 0;                                                                             \
	}
SYMCHAN_NV_AMO(uint32_t, uint32)
SYMCHAN_NV_AMO(uint64_t, uint64)

// symchan_remote_atomic runs atomic_op's kind and op on the word at the
// symmetric address addr on PE pe through NVSHMEM (a PE this GPU cannot
// map; the nvshmem backend's Atomic) and stores the old value to result
// (mapped pinned host memory). One thread.
extern "C" __global__ void symchan_remote_atomic(u64 addr, u64 kind, u64 op, u64 operand, u64 cond, u64 pe, u64 result) {
	u64 old;
	if (kind == KIND_INT64 || kind == KIND_UINT64)
		old = nv_amo_uint64((uint64_t *)addr, (int)op, operand, cond, (int)pe);
	else
		old = nv_amo_uint32((uint32_t *)addr, (int)op, (uint32_t)operand, (uint32_t)cond, (int)pe);
	__threadfence_system();
	*(volatile u64 *)result = old;
}
#endif

// symchan_wait evaluates a wait set of n words of one kind at words (local
// GPU memory) until it holds (or once, with the test bit), then reports into
// out (mapped pinned host memory: out[1] the result, out[2] the word, int32
// indices from out+3) and sets out[0] = 1 last. The host sets *abort to end
// the wait early; the kernel then sets out[0] = 2. After lifetime ns it
// gives up with out[0] = 3 and the host launches it again: a kernel that
// never ends could hold a hardware queue that the awaited write sits
// behind.
//
// spec = kind | cmp<<8 | mode<<16 | test<<24. values (u64 per word) and
// status (a byte per word, nonzero excludes) are 0 or host memory; they are
// staged in shared memory (nshared words, 0 when they do not fit).
extern "C" __global__ void symchan_wait(u64 words, u64 n_, u64 spec, u64 value, u64 values_, u64 status_, u64 start_, u64 out_,
                                        u64 abort_, u64 lifetime) {
	const u64 deadline = symchan_now_ns() + lifetime;
	extern __shared__ u64 staged[];
	__shared__ int s_count, s_best, s_stop;
	__shared__ u64 s_word;
	const int n = (int)n_, kind = spec & 0xff, cmp = (spec >> 8) & 0xff, mode = (spec >> 16) & 0xff, test = (spec >> 24) & 0xff;
	const int start = (int)start_;
	const bool wide = kind == KIND_INT64 || kind == KIND_UINT64;
	volatile u64 *out = (volatile u64 *)out_;
	int *indices = (int *)(out_ + 24);
	const u64 *values = (const u64 *)values_;
	const unsigned char *status = (const unsigned char *)status_;
	const u64 nv = ord(kind, value);

	// Stage the comparands and mask in shared memory when the host asked
	// for it (dynamic shared size > 0): they are polled on every pass.
	unsigned dyn;
	asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
	if (dyn > 0) {
		u64 *sv = staged;
		unsigned char *ss = (unsigned char *)(staged + (values ? n : 0));
		for (int i = threadIdx.x; i < n; i += blockDim.x) {
			if (values)
				sv[i] = ord(kind, values[i]);
			if (status)
				ss[i] = status[i];
		}
		if (values)
			values = sv;
		if (status)
			status = ss;
	}
	const bool staged_values = dyn > 0;
	__syncthreads();

	for (unsigned pass = 0;; pass++) {
		if (threadIdx.x == 0) {
			s_count = 0;
			s_best = 0x7fffffff;
		}
		__syncthreads();
		bool all_ok = true;
		int my_best = 0x7fffffff;
		u64 my_word = 0;
		for (int i = threadIdx.x; i < n; i += blockDim.x) {
			if (status && status[i])
				continue;
			u64 w = wide ? ((const volatile u64 *)words)[i] : (u64)((const volatile unsigned *)words)[i];
			u64 v = values ? (staged_values ? values[i] : ord(kind, values[i])) : nv;
			bool ok = symchan_compare(ord(kind, w), cmp, v);
			if (mode == WAIT_ALL) {
				all_ok &= ok;
				if (n == 1)
					s_word = w;
			} else if (ok) {
				if (mode == WAIT_ANY) {
					int d = (i - start + n) % n;
					if (d < my_best) {
						my_best = d;
						my_word = w;
					}
				} else {
					indices[atomicAdd(&s_count, 1)] = i;
				}
			}
		}
		if (mode == WAIT_ANY && my_best != 0x7fffffff)
			atomicMin(&s_best, my_best);
		int done = __syncthreads_and(all_ok);
		if (mode == WAIT_ANY) {
			if (my_best != 0x7fffffff && my_best == s_best)
				s_word = my_word;
			done = s_best != 0x7fffffff;
		} else if (mode == WAIT_SOME) {
			done = s_count > 0;
		}
		__syncthreads();
		if (done || test) {
			if (threadIdx.x == 0) {
				__threadfence_system();
				u64 r = mode == WAIT_ALL ? (u64)done : mode == WAIT_SOME ? (u64)s_count : done ? (u64)((start + s_best) % n) : ~0ull;
				out[1] = r;
				out[2] = s_word;
				__threadfence_system();
				out[0] = 1;
			}
			return;
		}
		if ((pass & 15) == 15) {
			if (threadIdx.x == 0)
				s_stop = *(volatile unsigned *)abort_ ? 2 : symchan_now_ns() > deadline ? 3 : 0;
			__syncthreads();
			if (s_stop) {
				if (threadIdx.x == 0)
					out[0] = s_stop;
				return;
			}
		}
	}
}

// symchan_copy copies n bytes from src to dst (any memory this GPU
// addresses, peers' through peer access), each block its share: the cuda
// backend's copy kernel, for the sizes where it beats the copy engines.
extern "C" __global__ void symchan_copy(u64 dst, u64 src, u64 n) {
	const u64 share = ((n + gridDim.x - 1) / gridDim.x + 15) & ~15ull; // ≥ n / gridDim.x
	const u64 lo = share * blockIdx.x;
	if (lo < n)
		symchan_copy_part((void *)(dst + lo), (const void *)(src + lo), min(share, n - lo), threadIdx.x, blockDim.x);
}

// symchan_put_signal_on_stream copies n bytes from src to dst (any memory
// this GPU addresses) with its one block, then, after a system fence,
// updates the uint64 signal word at sig by op (SYMCHAN_SIGNAL_SET or _ADD)
// with value: a small put-with-signal on a stream in one launch, where the
// copy engines and a stream write are two.
extern "C" __global__ void symchan_put_signal_on_stream(u64 dst, u64 src, u64 n, u64 sig, u64 value, u64 op) {
	symchan_copy_part((void *)dst, (const void *)src, n, threadIdx.x, blockDim.x);
	__syncthreads(); // the block's copies, then thread 0's release at system scope
	if (threadIdx.x == 0) {
		__threadfence_system();
		if (op == SYMCHAN_SIGNAL_ADD)
			asm volatile("red.release.sys.global.add.u64 [%0], %1;" ::"l"(sig), "l"(value) : "memory");
		else
			asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(sig), "l"(value) : "memory");
	}
}

// symchan_wait_on_stream holds its stream until the uint64 word at sig
// compares as cmp says to value (the stream form of a signal wait), or
// until the world's abort word (mapped host memory; 0: none) is set, so
// that a stream waiting for a PE that failed drains. One thread.
extern "C" __global__ void symchan_wait_on_stream(u64 sig, u64 cmp, u64 value, u64 abort) {
	symchan_heap h = {};
	h.abort = (const volatile unsigned long long *)abort;
	symchan_u64 got;
	symchan_wait_until_h(&h, (const volatile symchan_u64 *)sig, (int)cmp, value, &got);
}

// --- team collectives on a stream (pgas.BarrierOnStream, …) -------------
//
// symchan_team_step runs a part of a collective of kind (SYMCHAN_COLL_*)
// on team t (this PE's struct symchan_team) for a host-side *OnStream
// routine. One block runs a whole collective (PART_WHOLE: open, data,
// close); for large data the host launches its opening phase on one
// block, the data step on a grid (every block its share; skipped when the
// opening found the members' arguments differ) and its closing phase, and
// the stream orders the three kernels.
#define PART_WHOLE 1
#define PART_OPEN 2
#define PART_DATA 3
#define PART_CLOSE 4
#define PART_AGREE 5 // open with kind and arguments n, dest, source, arg (count, root, op, elem), then close: no data

// with_elem calls f with a null pointer of the C type of a reduction's
// element code (SYMCHAN_ELEM_*; Go's int, uint and uintptr come as the
// sized codes): the one table of them here.
template <typename F> static __device__ __forceinline__ void with_elem(int elem, F f) {
	switch (elem) {
	case SYMCHAN_ELEM_I8: f((signed char *)0); break;
	case SYMCHAN_ELEM_U8: f((unsigned char *)0); break;
	case SYMCHAN_ELEM_I16: f((short *)0); break;
	case SYMCHAN_ELEM_U16: f((unsigned short *)0); break;
	case SYMCHAN_ELEM_I32: f((int *)0); break;
	case SYMCHAN_ELEM_U32: f((unsigned *)0); break;
	case SYMCHAN_ELEM_I64: f((long long *)0); break;
	case SYMCHAN_ELEM_U64: f((unsigned long long *)0); break;
	case SYMCHAN_ELEM_F32: f((float *)0); break;
	case SYMCHAN_ELEM_F64: f((double *)0); break;
	}
}

// elem_bytes is the size of an element of a reduction's type.
static __device__ __forceinline__ u64 elem_bytes(int elem) {
	u64 b = 8;
	with_elem(elem, [&](auto *z) { b = sizeof *z; });
	return b;
}

// small_step runs a small collective on a stream by the block
// (symchan.cuh's symchan_small_run): n bytes, or a reduction's elements.
static __device__ void small_step(const symchan_heap *h, symchan_team *t, u64 kind, int op, int elem, u64 dest, u64 source, u64 n, int root) {
	const u64 nb = kind == SYMCHAN_COLL_REDUCE ? n * elem_bytes(elem) : n;
	symchan_small_run(h, t, SYMCHAN_SCOPE_BLOCK, kind, (const void *)source, nb, n, root, (u64)op, (u64)elem, [&](u64 buf, unsigned tid, unsigned nth) {
		if (kind == SYMCHAN_COLL_REDUCE)
			with_elem(elem, [&](auto *z) { symchan_small_fold(h, t, buf, op, (decltype(z))dest, n, tid, nth); });
		else
			symchan_small_take(h, t, buf, kind, (void *)dest, n, tid, nth);
	});
}

// team_close closes the collective unless seq (a blocking collective's
// number, 0 for an *OnStream one) was abandoned by the host first
// (pgas: Team.decideCancel): then the abandoning host ends the team's
// waits.
static __device__ void team_close(const symchan_heap *h, symchan_team *t, u64 seq) {
	if (seq != 0) {
		__shared__ int cancelled;
		if (symchan_block_tid() == 0)
			cancelled = symchan_team_decide(t, seq, SYMCHAN_CTL_CLOSING) == SYMCHAN_CTL_CANCELLED;
		__syncthreads();
		if (cancelled)
			return;
	}
	symchan_team_close(h, t, SYMCHAN_SCOPE_BLOCK, true);
}

// symchan_team_step: n is bytes (broadcast, fcollect, alltoall) or
// elements (reduce); arg is the root of a broadcast, op | elem<<8 of a
// reduction (Go's int, uint and uintptr given as the C types that carry
// them, so that a kernel's reduction over the same bits agrees). part's
// high 32 bits are seq, the number of a blocking collective of the team
// called from the host (0 for an *OnStream one).
extern "C" __global__ void symchan_team_step(u64 heap_, u64 team_, u64 kind, u64 dest, u64 source, u64 n, u64 arg, u64 part_) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	symchan_team *t = (symchan_team *)team_;
	const int op = kind == SYMCHAN_COLL_REDUCE ? (int)(arg & 0xff) : 0, elem = kind == SYMCHAN_COLL_REDUCE ? (int)(arg >> 8) : 0;
	const u64 part = part_ & 0xffffffffu, seq = part_ >> 32;
	unsigned tid = symchan_block_tid(), nth = symchan_block_size();
	switch (part) {
	case PART_CLOSE: team_close(h, t, seq); return;
	case PART_AGREE:
		symchan_team_open(h, t, SYMCHAN_SCOPE_BLOCK, true, kind, n, dest, source, arg);
		team_close(h, t, seq);
		return;
	case PART_DATA:
		if (t->differed == t->phases) // the opening phase found a mismatch
			return;
		tid += blockIdx.x * nth, nth *= gridDim.x;
		break;
	default:
		// A barrier, a sync and a small collective on a stream take one
		// phase (symchan.cuh: the small-message path), as in users'
		// kernels. A blocking one (seq != 0) keeps two: its host may
		// abandon it until the kernel decides, on its way to the second
		// (pgas: Team.decideCancel), and completing needs every member's
		// second phase, so every member still fails alike. A kernel that
		// decided before its only phase would wait there, beyond its
		// host's reach, for a member that may never come. Its kind says
		// so (SYMCHAN_COLL_BLOCKING), so that members that mix the forms
		// fail alike.
		const bool alone = kind == SYMCHAN_COLL_BARRIER || kind == SYMCHAN_COLL_SYNC;
		const bool one = alone || symchan_small_fits(t, kind, kind == SYMCHAN_COLL_REDUCE ? n * elem_bytes(elem) : n);
		if (seq == 0 && alone) {
			symchan_team_alone(h, t, SYMCHAN_SCOPE_BLOCK, true, kind);
			return;
		}
		if (seq == 0 && one && part == PART_WHOLE) {
			small_step(h, t, kind, op, elem, dest, source, n, (int)arg);
			return;
		}
		const u64 sig_kind = seq != 0 && one ? kind | SYMCHAN_COLL_BLOCKING : kind;
		if (symchan_team_open(h, t, SYMCHAN_SCOPE_BLOCK, true, sig_kind, n, kind == SYMCHAN_COLL_BROADCAST ? arg : 0, (u64)op, (u64)elem)) {
			if (part == PART_WHOLE)
				team_close(h, t, seq);
			return;
		}
		if (part == PART_OPEN)
			return;
	}
	switch (kind) {
	case SYMCHAN_COLL_BROADCAST: symchan_team_pull(h, t, (void *)dest, (const void *)source, n, (int)arg, tid, nth); break;
	case SYMCHAN_COLL_FCOLLECT: symchan_fcollect_part(h, t, (void *)dest, (const void *)source, n, tid, nth); break;
	case SYMCHAN_COLL_ALLTOALL: symchan_alltoall_part(h, t, (void *)dest, (const void *)source, n, tid, nth); break;
	case SYMCHAN_COLL_REDUCE:
		with_elem(elem, [&](auto *z) { symchan_reduce_part(h, t, op, (decltype(z))dest, (decltype(z))source, n, tid, nth); });
		break;
	}
	if (part == PART_WHOLE)
		team_close(h, t, seq);
}

// symchan_alltoallv_step runs a part of an AllToAllV (symchan.cuh's
// symchan_alltoallvmem) on team t for pgas, as symchan_team_step runs the
// other collectives: PART_WHOLE on one block, or PART_OPEN (the opening
// and verdict phases), PART_DATA on a grid and PART_CLOSE. sc, so, rc
// and ro are this PE's copies of the layout arrays, eb the element size,
// dn and sn dest's and source's elements; part's high 32 bits are seq, as
// symchan_team_step's.
extern "C" __global__ void symchan_alltoallv_step(u64 heap_, u64 team_, u64 dest, u64 source, u64 sc, u64 so, u64 rc, u64 ro, u64 eb, u64 dn,
                                                  u64 sn, u64 part_) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	symchan_team *t = (symchan_team *)team_;
	const u64 part = part_ & 0xffffffffu, seq = part_ >> 32;
	unsigned tid = symchan_block_tid(), nth = symchan_block_size();
	switch (part) {
	case PART_CLOSE: team_close(h, t, seq); return;
	case PART_DATA:
		if (t->differed == t->phases) // the opening or the verdict phase found a mismatch
			return;
		tid += blockIdx.x * nth, nth *= gridDim.x;
		break;
	default: {
		int err = symchan_team_open(h, t, SYMCHAN_SCOPE_BLOCK, true, SYMCHAN_COLL_ALLTOALLV, eb, 0, 0, 0);
		if (!err)
			err = symchan_alltoallv_agree(h, t, (const long long *)sc, (const long long *)so, (const long long *)rc, (const long long *)ro, eb, dn, sn,
			                              SYMCHAN_SCOPE_BLOCK);
		if (err || part == PART_OPEN) {
			if (err && part == PART_WHOLE)
				team_close(h, t, seq);
			return;
		}
	}
	}
	symchan_alltoallv_part(h, t, (void *)dest, (const void *)source, (const long long *)rc, (const long long *)so, (const long long *)ro, eb, tid,
	                       nth, SYMCHAN_SCOPE_BLOCK);
	if (part == PART_WHOLE)
		team_close(h, t, seq);
}

// --- the agent: host routines without a kernel launch each ----------------
//
// symchan_agent is one resident kernel per GPU context, of bounded life,
// that the host hands small routines to through mapped pinned memory: a
// warp per lane (one lane per PE on this GPU) runs that PE's puts, gets,
// atomics and signals in order from a ring, and a warp per wait slot
// evaluates one wait at a time. A routine then costs a few PCIe round trips
// instead of a launch and a synchronisation. pgas/internal/gpuop/agent.go
// has the host side and the same layout:
//
//   lane  (AGENT_LANE_BYTES): AGENT_RING entries of 32 words, then a status
//         line: [0] last sequence done, [1] epoch of the launch whose
//         warp left, [2] reads done again (agent_fetch).
//   entry: [0] sequence (written last by the host), [1] op | sigop<<8 |
//         kind<<16 (a put: AGENT_CLAIM or AGENT_UNORDERED) | atomic op<<24 | bytes<<32, [2]
//         address, [3] signal address (a copy's source), [4] signal
//         value or operand, [5] comparand, [6] a claim's new value, [7]
//         hash of the other words (agent_fetch), [8..31] the payload (put
//         data, get data, an atomic's or a claim's old value).
//   slot  (AGENT_SLOT_BYTES): request [0] sequence, [1] words, [2] n,
//         [3] spec (as symchan_wait's), [4] value, [5] 1: values, 2: status,
//         [6] start, [7] hash of words 0-6; [8] the sequence to abort;
//         [9] fetch address, [10] its stride, [11] bytes per index (with
//         4 in [5]); out [16] sequence done, [17] state (1 done, 2
//         aborted, 3 expired), [18] result, [19] word, [20] epoch of the
//         launch whose warp left, [21] reads done again, [22] the
//         answer's hash (agent_seal); int32 indices from byte 192,
//         values from 4352, status bytes from 12544, the fetched bytes
//         from 16384 (bytes per index, in report order).
//
// A warp leaves when its launch's lifetime ends: it writes its epoch,
// fences, and looks once more for a request (the host writes the request,
// then reads the epoch, and launches again if it finds it): so no request
// is stranded, and launches on the one stream never overlap.

#define AGENT_RING 32
#define AGENT_LANE_BYTES (AGENT_RING * 256 + 64)
#define AGENT_WORDS 1024
#define AGENT_FETCH_AT 16384
#define AGENT_SLOT_BYTES (AGENT_FETCH_AT + AGENT_WORDS * 72) // 72: driver.MaxFetchBytes
#define AGENT_SCRATCH (AGENT_WORDS * 9)
#define AGENT_PUT 1
#define AGENT_GET 2
#define AGENT_ATOMIC 3
#define AGENT_COPY 4
#define AGENT_SIG_SET 1
#define AGENT_SIG_ADD 2
// AGENT_CLAIM (in a put's kind byte): first compare-and-swap the signal
// word from [5] to [6]; put and signal only if it held [5]; report its old
// value in [8] (pgas.PutSignalIf: a Future's reply, without a round trip
// to the host between its claim and its data).
#define AGENT_CLAIM 1
// AGENT_UNORDERED (in a put's kind byte): no fence between the data and
// the signal (pgas.PutSignalUnordered: sealed mailbox slots, whose
// receiver checks what it read).
#define AGENT_UNORDERED 2
#define AGENT_SEALED_BYTES 1024
#define PHI 0x9e3779b97f4a7c15ull
#define FULL 0xffffffffu

// fence_acq_rel_sys orders this thread's earlier accesses before its
// later ones for every observer: what a release needs, without the
// sequentially consistent fence's extra cost (__threadfence_system).
static __device__ __forceinline__ void fence_acq_rel_sys() { asm volatile("fence.acq_rel.sys;" ::: "memory"); }

static __device__ __forceinline__ u64 ld_relaxed(const volatile u64 *p) {
	u64 v;
	asm volatile("ld.relaxed.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
	return v;
}

// agent_copy: the warp copies n bytes from src to dst, any memory of the
// GPUs it reaches (a lane's device-to-device copy, AGENT_COPY), with
// relaxed system-scope loads (as AGENT_GET's: not from a stale L1 line)
// and four 16-byte loads a lane in flight, so 2 KiB per memory round
// trip.
static __device__ void agent_copy(char *dst, const char *src, u64 n, int l) {
	if ((((u64)dst | (u64)src | n) & 15) != 0) {
		for (u64 k = l; k < n; k += 32)
			dst[k] = ((const volatile char *)src)[k];
		return;
	}
	const u64 nv = n / 16;
	for (u64 base = 0; base < nv; base += 4 * 32) {
		u64 a[4][2];
#pragma unroll
		for (int j = 0; j < 4; j++) {
			const u64 i = base + j * 32 + l;
			if (i < nv)
				asm volatile("ld.relaxed.sys.global.v2.u64 {%0, %1}, [%2];" : "=l"(a[j][0]), "=l"(a[j][1]) : "l"(src + 16 * i) : "memory");
		}
#pragma unroll
		for (int j = 0; j < 4; j++) {
			const u64 i = base + j * 32 + l;
			if (i < nv) {
				((u64 *)(dst + 16 * i))[0] = a[j][0];
				((u64 *)(dst + 16 * i))[1] = a[j][1];
			}
		}
	}
}

// agent_leave: the first call announces that this warp is leaving and
// returns false (look for a request once more); the next call returns true.
static __device__ __forceinline__ bool agent_leave(volatile u64 *gone, u64 epoch, bool &leaving) {
	if (leaving)
		return true;
	if (threadIdx.x == 0)
		*gone = epoch;
	__threadfence_system();
	leaving = true;
	return false;
}

// agent_mix is splitmix64's finaliser (symchan_seal_mix at index 0). A
// request's hash is the XOR over its words i ≠ 7 of agent_mix(word ^ i·φ),
// which the host stores in word 7 before the sequence (entryHash in
// pgas/internal/gpuop/seal.go).
static __device__ __forceinline__ u64 agent_mix(u64 x) { return symchan_seal_mix(x, 0); }

// agent_fetch reads words [0, n) of an entry (lane l gets word l in w) and
// reports whether it holds request seq. One read does it when the words
// read agree with their hash; a read that caught the host writing (words
// of an older request beside the new sequence) is done again after an
// acquire of the sequence, which orders it after the host's writes.
// *slow counts the reads done again (tests check that one read is the rule).
// A lane's entry (n > 8) hashes its header and, for a put, the payload's
// words; a wait slot's request (n = 8) its 8 words.
static __device__ __forceinline__ bool agent_fetch(volatile u64 *e, int n, u64 seq, u64 &w, volatile u64 *slow) {
	const int l = threadIdx.x;
	w = l < n ? ld_relaxed(&e[l]) : 0;
	if (__shfl_sync(FULL, w, 0) != seq)
		return false;
	const u64 code = __shfl_sync(FULL, w, 1);
	const int hn = n <= 8 ? n : (code & 0xff) == AGENT_PUT ? min(n, 8 + ((int)(code >> 32) + 7) / 8) : 8;
	u64 h = l < hn && l != 7 ? agent_mix(w ^ (u64)l * PHI) : 0;
	for (int o = 16; o > 0; o /= 2)
		h ^= __shfl_xor_sync(FULL, h, o);
	if (h == __shfl_sync(FULL, w, 7))
		return true;
	symchan_load_acquire(e);
	w = l < n ? ld_relaxed(&e[l]) : 0;
	if (l == 0)
		*slow += 1;
	return true;
}

// A launch ends at its deadline, or once every warp has been idle for
// idle_ns: each warp counts itself into *idle then (and out when work
// comes), and the first to see them all sets *ending, which ends the
// others' waits too. ctl: [0] idle, [1] ending, zeroed by the host before
// each launch.
struct agent_ctl {
	unsigned *idle;
	volatile unsigned *ending;
	unsigned total;
	u64 deadline, idle_ns;
};

// warp_now: one clock reading for the whole warp, so that its lanes agree.
static __device__ __forceinline__ u64 warp_now() { return __shfl_sync(FULL, symchan_now_ns(), 0); }

// agent_idle is called by a warp without work (idle since since): it
// reports whether the launch is ending.
static __device__ bool agent_idle(const agent_ctl &c, u64 since, bool &counted) {
	const u64 t = warp_now();
	if (!counted && t - since > c.idle_ns) {
		if (threadIdx.x == 0)
			atomicAdd(c.idle, 1u);
		counted = true;
	}
	unsigned all = 0, end = 0;
	if (threadIdx.x == 0) {
		all = *(volatile unsigned *)c.idle;
		end = *c.ending;
	}
	all = __shfl_sync(FULL, all, 0);
	end = __shfl_sync(FULL, end, 0);
	if (t > c.deadline || end)
		return true;
	if (counted && all >= c.total) {
		if (threadIdx.x == 0)
			*c.ending = 1;
		return true;
	}
	return false;
}

// agent_busy counts a warp that found work out of the idle ones.
static __device__ __forceinline__ void agent_busy(const agent_ctl &c, bool &counted) {
	if (counted && threadIdx.x == 0)
		atomicSub(c.idle, 1u);
	counted = false;
}

// agent_ending reports whether a busy warp should give its wait back: the
// launch is past its deadline or ending, or this warp is leaving.
static __device__ __forceinline__ bool agent_ending(const agent_ctl &c, bool leaving) {
	return leaving || warp_now() > c.deadline || __shfl_sync(FULL, *c.ending, 0);
}

static __device__ void agent_lane(u64 *lane, u64 epoch, const agent_ctl &c) {
	const int l = threadIdx.x;
	volatile u64 *status = (volatile u64 *)((char *)lane + AGENT_RING * 256);
	u64 next = status[0] + 1;
	bool leaving = false, counted = false;
	u64 since = warp_now();
	for (;;) {
		volatile u64 *e = (volatile u64 *)(lane + (next % AGENT_RING) * 32);
		u64 w;
		if (!agent_fetch(e, 32, next, w, &status[2])) {
			if ((leaving || agent_idle(c, since, counted)) && agent_leave(&status[1], epoch, leaving))
				return;
			continue;
		}
		agent_busy(c, counted);
		const u64 code = __shfl_sync(FULL, w, 1), addr = __shfl_sync(FULL, w, 2), sig = __shfl_sync(FULL, w, 3),
		          operand = __shfl_sync(FULL, w, 4), cond = __shfl_sync(FULL, w, 5);
		const int op = code & 0xff, sigop = (code >> 8) & 0xff;
		const int n = (int)(code >> 32);
		const bool aligned = ((addr | (u64)n) & 7) == 0;
		bool put = op == AGENT_PUT;
		if (put && ((code >> 16) & 0xff) == AGENT_CLAIM) {
			const u64 swap = __shfl_sync(FULL, w, 6);
			u64 old = 0;
			if (l == 0)
				old = atomicCAS_system((unsigned long long *)sig, cond, swap);
			old = __shfl_sync(FULL, old, 0);
			put = old == cond;
			if (l == 0)
				e[8] = old; // the payload is in registers (w) already
		}
		if (put) {
			if (aligned) {
				if (l >= 8 && (l - 8) * 8 < n)
					((u64 *)addr)[l - 8] = w;
			} else {
				for (int base = 0; base < n; base += 32) {
					const int k = base + l;
					const u64 src = __shfl_sync(FULL, w, 8 + min(k, n - 1) / 8);
					if (k < n)
						((unsigned char *)addr)[k] = (unsigned char)(src >> (8 * (k & 7)));
				}
			}
			if (sigop) {
				// The data before the signal. A signal alone needs no
				// fence: the routines before it on this lane were fenced
				// before their completion.
				if (n > 0 && ((code >> 16) & 0xff) != AGENT_UNORDERED)
					fence_acq_rel_sys();
				__syncwarp();
				// A store or a reduction: an atomic that returns the old
				// value would hold the completion fence below for its
				// answer from the peer.
				if (l == 0) {
					if (sigop == AGENT_SIG_SET)
						asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(sig), "l"(operand) : "memory");
					else
						asm volatile("red.relaxed.sys.global.add.u64 [%0], %1;" ::"l"(sig), "l"(operand) : "memory");
				}
			}
		} else if (op == AGENT_GET) {
			if (aligned) {
				if (l >= 8 && (l - 8) * 8 < n)
					e[l] = ld_relaxed((const volatile u64 *)addr + (l - 8));
			} else {
				for (int k = l; k < n; k += 32)
					((volatile unsigned char *)(e + 8))[k] = ((const volatile unsigned char *)addr)[k];
			}
		} else if (op == AGENT_ATOMIC) {
			if (l == 0)
				e[8] = atomic_op(addr, (code >> 16) & 0xff, (code >> 24) & 0xff, operand, cond);
		} else if (op == AGENT_COPY)
			agent_copy((char *)addr, (const char *)sig, (u64)n, l);
		fence_acq_rel_sys(); // the routine, then its completion
		__syncwarp();
		if (l == 0)
			status[0] = next;
		next++;
		since = warp_now();
	}
}

// AGENT_AHEAD is how many of its words a lane of agent_eval reads before
// it looks at the first: the reads are in flight together, so a pass over
// 1024 words waits for 4 memory round trips rather than 32.
#define AGENT_AHEAD 8

// agent_eval is one pass of a wait over n words by one warp; it returns
// whether the wait holds and sets *res and *word as symchan_wait reports
// them (WAIT_SOME writes the indices as it finds them to sidx, in shared
// memory: the host's copy is written once, with the answer).
static __device__ bool agent_eval(const u64 *words, int n, int kind, int cmp, int mode, u64 nv, const u64 *values,
                                  const unsigned char *status, int start, int *sidx, u64 *res, u64 *word) {
	const int l = threadIdx.x;
	const bool wide = kind == KIND_INT64 || kind == KIND_UINT64;
	bool all_ok = true;
	unsigned best = 0xffffffffu;
	u64 best_word = 0, w0 = 0;
	int count = 0;
	for (int first = 0; first < n; first += 32 * AGENT_AHEAD) {
		u64 ahead[AGENT_AHEAD]; // unrolled below: registers
#pragma unroll
		for (int k = 0; k < AGENT_AHEAD; k++) {
			const int i = first + 32 * k + l;
			ahead[k] = i >= n ? 0 : wide ? ((const volatile u64 *)words)[i] : (u64)((const volatile unsigned *)words)[i];
		}
#pragma unroll
		for (int k = 0; k < AGENT_AHEAD; k++) {
			const int base = first + 32 * k;
			if (base >= n)
				break;
			const int i = base + l;
			bool ok = false;
			if (i < n && !(status && status[i])) {
				const u64 w = ahead[k];
				ok = symchan_compare(ord(kind, w), cmp, values ? values[i] : nv);
				all_ok &= ok;
				if (i == 0)
					w0 = w;
				if (ok && mode == WAIT_ANY) {
					const unsigned d = (unsigned)((i - start + n) % n);
					if (d < best) {
						best = d;
						best_word = w;
					}
				}
			}
			if (mode == WAIT_SOME) {
				const unsigned b = __ballot_sync(FULL, ok);
				if (ok)
					sidx[count + __popc(b & ((1u << l) - 1))] = i;
				count += __popc(b);
			}
		}
	}
	if (mode == WAIT_ALL) {
		const bool done = __all_sync(FULL, all_ok);
		*res = done;
		*word = __shfl_sync(FULL, w0, 0);
		return done;
	}
	if (mode == WAIT_SOME) {
		*res = count;
		*word = 0;
		return count > 0;
	}
	const unsigned m = __reduce_min_sync(FULL, best);
	const unsigned owner = __ballot_sync(FULL, best == m && m != 0xffffffffu);
	*word = __shfl_sync(FULL, best_word, owner ? __ffs(owner) - 1 : 0);
	*res = m == 0xffffffffu ? ~0ull : (u64)((start + (int)m) % n);
	return m != 0xffffffffu;
}

// agent_acquire reads word i of a wait's set (wide: 8 bytes a word) with
// acquire semantics, so that this thread's later reads see what was
// written before the update it saw: an acquire load, not a fence (a
// sys-scope fence waits about a PCIe round trip). Callers want the
// ordering, not the value.
static __device__ __forceinline__ u64 agent_acquire(const u64 *words, bool wide, int i) {
	if (wide) {
		u64 v;
		asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(words + i) : "memory");
		return v;
	}
	unsigned v;
	asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"((const unsigned *)words + i) : "memory");
	return v;
}

// agent_fetch_data copies, for the k-th of the cnt indices i a wait
// reports (sidx[k], or the any-wait's index i0), bytes bytes at
// addr + i·stride into out + k·bytes: word by word where all is aligned,
// else byte by byte (never past what was asked for). Each thread reads
// word i again with acquire semantics before index i's bytes: the word
// was seen to satisfy the wait, so a put-with-signal's data is seen
// whole. It returns this thread's part of the copy's hash (agent_seal):
// the XOR over the words t it wrote of agent_mix(word ^ (64 + t)·φ), 0
// where it copied bytes.
static __device__ u64 agent_fetch_data(char *out, const u64 *words, bool wide, u64 addr, u64 stride, int bytes, const int *sidx, int i0, int cnt) {
	u64 h = 0;
	if (((addr | stride | (u64)bytes) & 7) == 0) {
		const int wpi = bytes / 8;
		for (int t = threadIdx.x, last = -1; t < cnt * wpi; t += 32) {
			const int k = t / wpi, i = sidx ? sidx[k] : i0;
			if (i != last)
				agent_acquire(words, wide, last = i);
			const u64 v = ((const volatile u64 *)(addr + i * stride))[t % wpi];
			((volatile u64 *)out)[t] = v;
			h ^= agent_mix(v ^ (u64)(64 + t) * PHI);
		}
		return h;
	}
	for (int t = threadIdx.x, last = -1; t < cnt * bytes; t += 32) {
		const int k = t / bytes, i = sidx ? sidx[k] : i0;
		if (i != last)
			agent_acquire(words, wide, last = i);
		((volatile unsigned char *)out)[t] = ((const volatile unsigned char *)(addr + i * stride))[t % bytes];
	}
	return 0;
}

// agent_seal tells whether an answer goes to the host without a fence
// before its sequence (answerSealed in pgas/internal/gpuop/seal.go has
// the same rule): a satisfied wait reporting at most 32 indices and
// fetching at most AGENT_SEALED_BYTES, word by word. Its words then reach
// host memory in any order, and the host takes the answer once what it
// reads agrees with the hash in out[6]: the XOR of agent_mix(w ^ i·φ) over
// out[i], i = 0 (the sequence) … 3, over the int32 indices k at
// agent_mix(index ^ (8 + k)·φ) and over the fetched words (as
// agent_fetch_data) — a membar.sys, about a PCIe round trip, less per
// answer. Other answers hash out[0..3] alone and fence.
static __device__ __forceinline__ bool agent_seal(u64 state, int nidx, int cnt, int fbytes, u64 faddr, u64 fstride) {
	return state == 1 && nidx <= 32 && cnt * fbytes <= AGENT_SEALED_BYTES && ((faddr | fstride | (u64)fbytes) & 7) == 0;
}

static __device__ void agent_waiter(char *slot, u64 *scratch, u64 epoch, const agent_ctl &c) {
	const int l = threadIdx.x;
	volatile u64 *rq = (volatile u64 *)slot, *out = rq + 16;
	int *indices = (int *)(slot + 192);
	__shared__ int sidx[AGENT_WORDS];
	u64 last = out[0];
	bool leaving = false, counted = false;
	u64 since = warp_now();
	for (;;) {
		// The host posts sequence last + 1 (it waits for each answer).
		const u64 s0 = last + 1;
		u64 w;
		if (!agent_fetch(rq, 8, s0, w, &out[5])) {
			if ((leaving || agent_idle(c, since, counted)) && agent_leave(&out[4], epoch, leaving))
				return;
			__nanosleep(200);
			continue;
		}
		agent_busy(c, counted);
		const u64 words = __shfl_sync(FULL, w, 1), spec = __shfl_sync(FULL, w, 3), value = __shfl_sync(FULL, w, 4),
		          flags = __shfl_sync(FULL, w, 5);
		const int n = (int)__shfl_sync(FULL, w, 2), start = (int)__shfl_sync(FULL, w, 6);
		if (flags)
			symchan_load_acquire(rq); // the comparands and mask below are newer than the sequence
		const int kind = spec & 0xff, cmp = (spec >> 8) & 0xff, mode = (spec >> 16) & 0xff, test = (spec >> 24) & 0xff;
		u64 *values = 0;
		unsigned char *status = 0;
		if (flags & 1) {
			values = scratch;
			for (int i = l; i < n; i += 32)
				values[i] = ord(kind, ((const volatile u64 *)(slot + 4352))[i]);
		}
		if (flags & 2) {
			status = (unsigned char *)(scratch + AGENT_WORDS);
			for (int i = l; i < n; i += 32)
				status[i] = ((const volatile unsigned char *)(slot + 12544))[i];
		}
		u64 faddr = 0, fstride = 0;
		int fbytes = 0;
		if (flags & 4) {
			faddr = ld_relaxed(&rq[9]);
			fstride = ld_relaxed(&rq[10]);
			fbytes = (int)ld_relaxed(&rq[11]);
		}
		__syncwarp();
		u64 state = 0, res = 0, word = 0;
		for (unsigned pass = 0; !state; pass++) {
			if (agent_eval((const u64 *)words, n, kind, cmp, mode, ord(kind, value), values, status, start, sidx, &res, &word) || test)
				state = 1;
			else if ((pass & 255) == 255) { // the abort word is a PCIe read: rarely
				if (__shfl_sync(FULL, ld_relaxed(&rq[8]), 0) == s0)
					state = 2;
				else if (agent_ending(c, leaving))
					state = 3;
			}
		}
		__syncwarp(); // sidx
		const int nidx = state == 1 && mode == WAIT_SOME ? (int)res : 0;
		const int cnt = state != 1 || !fbytes ? 0 : mode == WAIT_SOME ? (int)res : mode == WAIT_ANY && res != ~0ull ? 1 : 0;
		u64 h = 0;
		for (int k = l; k < nidx; k += 32) {
			indices[k] = sidx[k];
			h ^= agent_mix((u64)(unsigned)sidx[k] ^ (u64)(8 + k) * PHI);
		}
		if (cnt)
			h ^= agent_fetch_data(slot + AGENT_FETCH_AT, (const u64 *)words, kind == KIND_INT64 || kind == KIND_UINT64, faddr, fstride, fbytes,
			                      mode == WAIT_SOME ? sidx : 0, (int)res, cnt);
		for (int o = 16; o > 0; o /= 2)
			h ^= __shfl_xor_sync(FULL, h, o);
		const bool sealed = agent_seal(state, nidx, cnt, fbytes, faddr, fstride);
		if (l == 0) {
			out[1] = state;
			out[2] = res;
			out[3] = word;
			if (state == 3)
				out[4] = epoch; // leaving: the host launches again
			out[6] = (sealed ? h : 0) ^ agent_mix(s0) ^ agent_mix(state ^ PHI) ^ agent_mix(res ^ 2 * PHI) ^ agent_mix(word ^ 3 * PHI);
		}
		if (!sealed)
			__threadfence_system();
		__syncwarp();
		if (l == 0)
			out[0] = s0;
		if (state == 3)
			return;
		last = s0;
		since = warp_now();
	}
}

// symchan_agent: grid = nlanes + nslots blocks of 32 threads; scratch is
// device memory, AGENT_SCRATCH bytes per slot for a wait's comparands and
// mask, then the launch's control words (agent_ctl); lifetime and idle in
// ns.
extern "C" __global__ void symchan_agent(u64 mem, u64 nlanes, u64 nslots, u64 scratch, u64 epoch, u64 lifetime, u64 idle) {
	unsigned *ctl = (unsigned *)(scratch + nslots * AGENT_SCRATCH);
	const agent_ctl c = {ctl, ctl + 1, (unsigned)(nlanes + nslots), symchan_now_ns() + lifetime, idle};
	if (blockIdx.x < nlanes)
		agent_lane((u64 *)(mem + blockIdx.x * (u64)AGENT_LANE_BYTES), epoch, c);
	else if (blockIdx.x < nlanes + nslots) {
		const u64 k = blockIdx.x - nlanes;
		agent_waiter((char *)(mem + nlanes * AGENT_LANE_BYTES + k * AGENT_SLOT_BYTES), (u64 *)(scratch + k * AGENT_SCRATCH), epoch, c);
	}
}
