// jacobi.cu: examples/jacobi's GPU engine, compiled when the example runs
// (kernels.Compile). examples/service compiles it with its own kernels for
// jacobi_init.
#include "symchan.cuh"

typedef symchan_u64 u64;

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
