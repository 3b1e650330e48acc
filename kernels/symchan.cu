// symchan.cu: the kernels of symchan's cuda backend (atomics, host-side
// waits on GPU-resident words), of examples/jacobi and examples/service,
// and of the GPU benchmarks. Every parameter is 8 bytes wide (pointers and
// 64-bit integers), as device.Launch passes them. PTX: see symchan.ptx's first
// line for the exact nvcc command (scripts/gpu-ptx.sh runs it).
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

// now_ns reads the GPU's global nanosecond timer.
static __device__ __forceinline__ u64 now_ns() {
	u64 t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

// A timing log of n repetitions (kernels.Timings decodes it): the global
// timer and clock64 at the first one's start and the last one's end, then
// each one's clock64 cycles. One thread, on one SM throughout.
static __device__ __forceinline__ u64 timing_start(volatile u64 *log, u64 i) {
	const u64 t0 = clock64();
	if (i == 0) {
		log[0] = now_ns();
		log[2] = t0;
	}
	return t0;
}
static __device__ __forceinline__ void timing_end(volatile u64 *log, u64 i, u64 n, u64 t0) {
	const u64 t1 = clock64();
	log[4 + i] = t1 - t0;
	if (i == n - 1) {
		log[1] = now_ns();
		log[3] = t1;
	}
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
	const u64 deadline = now_ns() + lifetime;
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
				s_stop = *(volatile unsigned *)abort_ ? 2 : now_ns() > deadline ? 3 : 0;
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
//         kind<<16 (a put: AGENT_CLAIM) | atomic op<<24 | bytes<<32, [2]
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
#define AGENT_SLOT_BYTES (AGENT_FETCH_AT + AGENT_WORDS * 64)
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

// agent_mix is splitmix64's finaliser. A request's hash is the XOR over
// its words i ≠ 7 of agent_mix(word ^ i·φ), which the host stores in word
// 7 before the sequence (entryHash in pgas/internal/gpuop/seal.go).
static __device__ __forceinline__ u64 agent_mix(u64 x) {
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

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
static __device__ __forceinline__ u64 warp_now() { return __shfl_sync(FULL, now_ns(), 0); }

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
				if (n > 0)
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
	const agent_ctl c = {ctl, ctl + 1, (unsigned)(nlanes + nslots), now_ns() + lifetime, idle};
	if (blockIdx.x < nlanes)
		agent_lane((u64 *)(mem + blockIdx.x * (u64)AGENT_LANE_BYTES), epoch, c);
	else if (blockIdx.x < nlanes + nslots) {
		const u64 k = blockIdx.x - nlanes;
		agent_waiter((char *)(mem + nlanes * AGENT_LANE_BYTES + k * AGENT_SLOT_BYTES), (u64 *)(scratch + k * AGENT_SCRATCH), epoch, c);
	}
}

// --- examples/jacobi ------------------------------------------------------

// jacobi_init zeroes rows [0, rows) of a grid of nx columns whose row 0 is
// global row iy0, and sets columns 0 and nx-1 to sin(2π·iy/(ny-1)).
extern "C" __global__ void jacobi_init(u64 a_, u64 nx_, u64 rows_, u64 iy0_, u64 ny_) {
	float *a = (float *)a_;
	const long long nx = nx_, rows = rows_, iy0 = iy0_, ny = ny_;
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nx * rows; i += (long long)gridDim.x * blockDim.x) {
		long long iy = i / nx, ix = i % nx;
		float v = 0.0f;
		if (ix == 0 || ix == nx - 1)
			v = (float)sin(2.0 * 3.14159265358979323846 * (double)(iy0 + iy) / (double)(ny - 1));
		a[i] = v;
	}
}

// The Jacobi sweep kernels do one sweep of this PE's rows 1..chunk (rows 0
// and chunk+1 are halos) from grid a to grid an (this PE's copies, as
// restrict kernel parameters: the compiler may then move the next rows'
// loads above this row's stores; an_off is an's symmetric offset, for the
// neighbours' halos), with the halo exchange on the GPU: the blocks holding row 1 and
// row chunk first wait until the neighbours' halos of the previous sweep
// have arrived (signal words sig_off, +8 ≥ iter-1), and store their new
// rows straight into the neighbours' an halos; the last block of each
// boundary then signals the neighbour with the iteration number. Threads
// own columns and walk a strip of rows (gridDim.y strips), so a cell costs
// about one 4-byte DRAM read and one write. norm, when not 0, accumulates
// Σ(new-old)² (double). nbrs = top PE | bottom PE << 32; cnt: two u32
// arrival counters, zero before the first sweep.

struct jacobi_args {
	const symchan_heap *h;
	int nx, chunk, top_chunk, top, bot;
	unsigned long long iter, sig_off;
	bool first, last;
	int y0, y1;
};

static __device__ __forceinline__ jacobi_args jacobi_begin(u64 heap_, u64 nx_, u64 chunk_, u64 top_chunk_, u64 iter, u64 nbrs, u64 sig_off) {
	jacobi_args j;
	j.h = (const symchan_heap *)heap_;
	j.nx = (int)nx_;
	j.chunk = (int)chunk_;
	j.top_chunk = (int)top_chunk_;
	j.top = (int)(nbrs & 0xffffffff);
	j.bot = (int)(nbrs >> 32);
	j.iter = iter;
	j.sig_off = sig_off;
	const int rps = (j.chunk + gridDim.y - 1) / gridDim.y;
	j.first = blockIdx.y == 0;
	j.last = blockIdx.y == (unsigned)((j.chunk - 1) / rps);
	j.y0 = 1 + blockIdx.y * rps;
	j.y1 = min(j.chunk + 1, j.y0 + rps);
	if (j.first || j.last) {
		volatile u64 *sig = (volatile u64 *)symchan_sym(j.h, sig_off);
		if (threadIdx.x == 0 && iter > 1) {
			if (j.first)
				symchan_wait_until(&sig[0], SYMCHAN_CMP_GE, iter - 1);
			if (j.last)
				symchan_wait_until(&sig[1], SYMCHAN_CMP_GE, iter - 1);
		}
		__syncthreads();
	}
	return j;
}

static __device__ __forceinline__ void jacobi_end(const jacobi_args &j, float d2, u64 cnt_, u64 norm_) {
	if (norm_) {
		for (int o = 16; o > 0; o /= 2)
			d2 += __shfl_down_sync(0xffffffffu, d2, o);
		__shared__ float warp_sums[32];
		if ((threadIdx.x & 31) == 0)
			warp_sums[threadIdx.x / 32] = d2;
		__syncthreads();
		if (threadIdx.x == 0) {
			double s = 0;
			for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++)
				s += warp_sums[w];
			atomicAdd((double *)norm_, s);
		}
	}
	if (j.first || j.last) {
		__threadfence_system();
		__syncthreads();
		if (threadIdx.x == 0) {
			unsigned *cnt = (unsigned *)cnt_;
			if (j.first && atomicAdd(&cnt[0], 1u) + 1 == (unsigned)j.iter * gridDim.x) {
				__threadfence_system();
				symchan_signal_op(j.h, j.top, j.sig_off + 8, j.iter, SYMCHAN_SIGNAL_SET);
			}
			if (j.last && atomicAdd(&cnt[1], 1u) + 1 == (unsigned)j.iter * gridDim.x) {
				__threadfence_system();
				symchan_signal_op(j.h, j.bot, j.sig_off, j.iter, SYMCHAN_SIGNAL_SET);
			}
		}
	}
}

// jacobi_remote_halos: where a neighbour's partition is not mapped here
// (the nvshmem backend's PEs on another host), the sweep left the block's
// share of its boundary rows in this PE's an only; the block puts them into
// the neighbour's halo rows through NVSHMEM (row 1 to top's row
// top_chunk+1, row chunk to bottom's row 0) and completes the puts before
// jacobi_end counts the block in. Columns [col0, col0+ncols).
static __device__ __forceinline__ void jacobi_remote_halos(const jacobi_args &j, const float *an, u64 an_off, int col0, int ncols) {
#ifdef SYMCHAN_NVSHMEM
	const bool top = j.first && j.h->base[j.top] == 0, bot = j.last && j.h->base[j.bot] == 0;
	if (!(top || bot) || ncols <= 0)
		return;
	__syncthreads();
	if (top)
		nvshmemx_putmem_block(symchan_sym(j.h, an_off + ((u64)(j.top_chunk + 1) * j.nx + col0) * 4), an + (u64)j.nx + col0, (u64)ncols * 4, j.top);
	if (bot)
		nvshmemx_putmem_block(symchan_sym(j.h, an_off + (u64)col0 * 4), an + (u64)j.chunk * j.nx + col0, (u64)ncols * 4, j.bot);
	if (threadIdx.x == 0)
		nvshmem_quiet();
#endif
}

// jacobi_sweep: one thread per column (any nx).
extern "C" __global__ void jacobi_sweep(u64 heap_, const float *__restrict__ a, float *__restrict__ an, u64 an_off, u64 nx_, u64 chunk_,
                                        u64 top_chunk_, u64 iter, u64 nbrs, u64 sig_off, u64 cnt_, u64 norm_) {
	const jacobi_args j = jacobi_begin(heap_, nx_, chunk_, top_chunk_, iter, nbrs, sig_off);
	const int nx = j.nx;
	const int ix = blockIdx.x * blockDim.x + threadIdx.x + 1;
	float d2 = 0.0f;
	// A neighbour not mapped here gets its halo by jacobi_remote_halos.
	const bool top_mapped = j.h->base[j.top] != 0, bot_mapped = j.h->base[j.bot] != 0;
	if (ix < nx - 1 && j.y0 < j.y1) {
		float *top_halo = (float *)symchan_ptr(j.h, j.top, an_off) + (size_t)(j.top_chunk + 1) * nx;
		float *bot_halo = (float *)symchan_ptr(j.h, j.bot, an_off);
		float up = a[(size_t)(j.y0 - 1) * nx + ix], c = a[(size_t)j.y0 * nx + ix];
#pragma unroll 4
		for (int iy = j.y0; iy < j.y1; iy++) {
			const size_t row = (size_t)iy * nx;
			// __ldg: the read-only path caches the left and right loads.
			const float dn = __ldg(&a[row + nx + ix]);
			const float v = 0.25f * (__ldg(&a[row + ix + 1]) + __ldg(&a[row + ix - 1]) + dn + up);
			an[row + ix] = v;
			const float d = v - c;
			d2 += d * d;
			if (iy == 1 && top_mapped)
				top_halo[ix] = v;
			if (iy == j.chunk && bot_mapped)
				bot_halo[ix] = v;
			up = c;
			c = dn;
		}
	}
	const int col0 = blockIdx.x * blockDim.x + 1;
	jacobi_remote_halos(j, an, an_off, col0, min((int)blockDim.x, nx - 1 - col0));
	jacobi_end(j, d2, cnt_, norm_);
}

// jacobi_sweep4: four columns per thread in 16-byte loads and stores (nx a
// multiple of 4, grids 16-byte aligned); the left and right neighbours come
// from the adjacent lanes, only a warp's edge lanes load theirs. Columns 0
// and nx-1 are stored back unchanged.
extern "C" __global__ void jacobi_sweep4(u64 heap_, const float *__restrict__ a, float *__restrict__ an, u64 an_off, u64 nx_, u64 chunk_,
                                         u64 top_chunk_, u64 iter, u64 nbrs, u64 sig_off, u64 cnt_, u64 norm_) {
	const jacobi_args j = jacobi_begin(heap_, nx_, chunk_, top_chunk_, iter, nbrs, sig_off);
	const int nx = j.nx, nq = nx / 4;
	const int q = blockIdx.x * blockDim.x + threadIdx.x;
	const int qc = min(q, nq - 1); // lanes past the row still shuffle
	const int lane = threadIdx.x & 31;
	const bool store = q < nq;
	float d2 = 0.0f;
	const bool top_mapped = j.h->base[j.top] != 0, bot_mapped = j.h->base[j.bot] != 0;
	if (j.y0 < j.y1) { // the same for the whole block: shuffles stay converged
		float4 *top_halo = (float4 *)((float *)symchan_ptr(j.h, j.top, an_off) + (size_t)(j.top_chunk + 1) * nx);
		float4 *bot_halo = (float4 *)symchan_ptr(j.h, j.bot, an_off);
		const float4 *a4 = (const float4 *)a;
		float4 *an4 = (float4 *)an;
		float4 up = a4[(size_t)(j.y0 - 1) * nq + qc], c = a4[(size_t)j.y0 * nq + qc];
#pragma unroll 2
		for (int iy = j.y0; iy < j.y1; iy++) {
			const size_t row = (size_t)iy * nx, row4 = (size_t)iy * nq;
			const float4 dn = a4[row4 + nq + qc];
			float left = __shfl_up_sync(0xffffffffu, c.w, 1), right = __shfl_down_sync(0xffffffffu, c.x, 1);
			if (lane == 0 && qc > 0)
				left = a[row + 4 * qc - 1];
			if (lane == 31 && qc < nq - 1)
				right = a[row + 4 * qc + 4];
			float4 v;
			v.x = qc == 0 ? c.x : 0.25f * (c.y + left + dn.x + up.x);
			v.y = 0.25f * (c.z + c.x + dn.y + up.y);
			v.z = 0.25f * (c.w + c.y + dn.z + up.z);
			v.w = qc == nq - 1 ? c.w : 0.25f * (right + c.z + dn.w + up.w);
			if (store) {
				an4[row4 + qc] = v;
				const float dx = v.x - c.x, dy = v.y - c.y, dz = v.z - c.z, dw = v.w - c.w;
				d2 += (dx * dx + dy * dy) + (dz * dz + dw * dw);
				if (iy == 1 && top_mapped)
					top_halo[qc] = v;
				if (iy == j.chunk && bot_mapped)
					bot_halo[qc] = v;
			}
			up = c;
			c = dn;
		}
	}
	const int q0 = blockIdx.x * blockDim.x;
	jacobi_remote_halos(j, an, an_off, 4 * q0, 4 * min((int)blockDim.x, nq - q0));
	jacobi_end(j, d2, cnt_, norm_);
}

// --- examples/ring -------------------------------------------------------

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
				t0 = timing_start(log, lap);
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
				timing_end(log, lap, laps, t0);
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

// --- examples/service ----------------------------------------------------

// service_jacobi_sweep does one Jacobi sweep of an n×n grid held by one GPU
// (rows and columns 0 and n-1 fixed) from a to an: a thread per interior
// cell, a 2-D grid of blocks. norm, when not 0, accumulates Σ(new-old)²
// (double), one atomic per warp. The grids start as jacobi_init leaves
// them (nx = rows = ny = n, iy0 = 0).
extern "C" __global__ void service_jacobi_sweep(const float *__restrict__ a, float *__restrict__ an, u64 n_, u64 norm_) {
	const long long n = n_;
	const long long ix = blockIdx.x * (long long)blockDim.x + threadIdx.x + 1;
	const long long iy = blockIdx.y * (long long)blockDim.y + threadIdx.y + 1;
	float d2 = 0.0f;
	if (ix < n - 1 && iy < n - 1) {
		const long long i = iy * n + ix;
		const float v = 0.25f * (a[i - 1] + a[i + 1] + a[i - n] + a[i + n]);
		an[i] = v;
		const float d = v - a[i];
		d2 = d * d;
	}
	if (norm_) {
		for (int o = 16; o > 0; o /= 2)
			d2 += __shfl_down_sync(0xffffffffu, d2, o);
		if (((threadIdx.y * blockDim.x + threadIdx.x) & 31) == 0 && d2 != 0.0f)
			atomicAdd((double *)norm_, (double)d2);
	}
}

// --- benchmarks -----------------------------------------------------------

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
			const u64 t0 = timing_start(log, i);
			v = i + 1;
			symchan_actor_send(h, a, 1, &v, 8);
			const int n = symchan_actor_recv(h, a, &from, &v, 8);
			if (n == SYMCHAN_ACTOR_STOP)
				return;
			if (n != 8 || v != i + 2) {
				symchan_actor_fail(a, n != 8 ? 2000 + n : 1000 + i);
				return;
			}
			timing_end(log, i, iters, t0);
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
			t0 = now_ns();
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
		log[1] = now_ns();
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

// --- tests ----------------------------------------------------------------

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
// fcollect_block of every PE's src[0..4); [128, 128+2·npes)
// alltoall_warp of the 2-element blocks; [192] the collectives' sync word;
// [193] on PE 0 a counter every PE fetch-adds 1 to; [194] a double swapped
// to 2.5; [195] a compare-swap word; [200, 210) iget of the right
// neighbour's src at stride 3, [230, 240) iget_block of it at stride 2;
// [220..224) results: the fetch-add's old
// value, the two compare-swaps' old values, the pe_ptr checks (1 = ok).
extern "C" __global__ void test_routines(u64 heap_, u64 off) {
	const symchan_heap *h = (const symchan_heap *)heap_;
	const int me = h->pe, n = h->npes, right = (me + 1) % n;
	symchan_u64 *w = (symchan_u64 *)symchan_ptr(h, me, off);
	symchan_iput_block(h, right, off + 32 * 8, w, 3, 2, 8, 10);
	symchan_fcollect_block(h, off + 64 * 8, w, 4 * 8, off + 192 * 8, 1);
	if (threadIdx.x < 32)
		symchan_alltoall_warp(h, off + 128 * 8, w, 2 * 8, off + 192 * 8, 2);
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
