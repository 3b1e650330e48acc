// symchan's routines on PEs this GPU cannot map (nvshmem_ptr is null: a PE
// on another host, or every other PE in the nvshmem backend's forced-remote
// mode), through NVSHMEM's device library. Compiled as relocatable device
// code (scripts/gpu-ptx.sh) and linked at run time with the
// libnvshmem_device.a that sits beside NVSHMEM's host library; the module
// is then initialised with nvshmemx_cumodule_init.

#include <nvshmem.h>
#include <stdint.h>

// pgas/driver's Kind and AtomicOp values.
enum { KIND_INT32 = 1, KIND_UINT32, KIND_INT64, KIND_UINT64 };
enum { OP_FETCH = 1, OP_SET, OP_SWAP, OP_COMPARE_SWAP, OP_FETCH_ADD, OP_FETCH_AND, OP_FETCH_OR, OP_FETCH_XOR };

// Two's complement makes the signed kinds' results those of the unsigned
// routines of their size.
#define SYMCHAN_AMO(T, name)                                                                     \
	__device__ static T amo_##name(T *p, uint64_t op, T v, T cond, int pe) {                     \
		switch (op) {                                                                           \
		case OP_FETCH: return nvshmem_##name##_atomic_fetch(p, pe);                             \
		case OP_SET:                                                                            \
		case OP_SWAP: return nvshmem_##name##_atomic_swap(p, v, pe);                            \
		case OP_COMPARE_SWAP: return nvshmem_##name##_atomic_compare_swap(p, cond, v, pe);      \
		case OP_FETCH_ADD: return nvshmem_##name##_atomic_fetch_add(p, v, pe);                  \
		case OP_FETCH_AND: return nvshmem_##name##_atomic_fetch_and(p, v, pe);                  \
		case OP_FETCH_OR: return nvshmem_##name##_atomic_fetch_or(p, v, pe);                    \
		case OP_FETCH_XOR: return nvshmem_##name##_atomic_fetch_xor(p, v, pe);                  \
		}                                                                                       \
		return 0;                                                                               \
	}
SYMCHAN_AMO(uint32_t, uint32)
SYMCHAN_AMO(uint64_t, uint64)

// symchan_remote_atomic runs one atomic of pgas/driver's kind and op on
// the word at addr (a symmetric address) on PE pe and stores the previous
// value at *result; one thread. Every argument is a 64-bit word.
extern "C" __global__ void symchan_remote_atomic(uint64_t addr, uint64_t kind, uint64_t op, uint64_t operand, uint64_t cond,
                                                 uint64_t pe, uint64_t *result) {
	if (kind == KIND_INT32 || kind == KIND_UINT32)
		*result = amo_uint32((uint32_t *)addr, op, (uint32_t)operand, (uint32_t)cond, (int)pe);
	else
		*result = amo_uint64((uint64_t *)addr, op, operand, cond, (int)pe);
}
