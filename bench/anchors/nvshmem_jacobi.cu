// nvshmem_jacobi: the Jacobi solver of examples/jacobi written directly on
// NVSHMEM, the anchor for its GPU timings. Same problem, decomposition and
// kernel structure: each thread owns a column and walks a strip of rows;
// boundary rows go to the neighbours' halos by device-initiated stores
// through nvshmem_ptr (NVLink), then a signal (nvshmemx_signal_op, the
// iteration number); the boundary
// blocks of the next sweep wait for both halos with signal_wait_until. The
// norm of every sweep accumulates on the GPU and is gathered at each printed
// line. Also prints the device-to-device copy bandwidth for the memory floor.
//
//   mpirun -np P ./nvshmem_jacobi [nx ny niter [scalar|vec4]]
#include "common.cuh"
#include <cmath>
#include <cstring>

__global__ void init(float *a, long long nx, long long rows, long long iy0, long long ny) {
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nx * rows; i += (long long)gridDim.x * blockDim.x) {
		long long iy = i / nx, ix = i % nx;
		float v = 0.0f;
		if (ix == 0 || ix == nx - 1)
			v = (float)sin(2.0 * 3.14159265358979323846 * (double)(iy0 + iy) / (double)(ny - 1));
		a[i] = v;
	}
}

// The sweep kernels are examples/jacobi's (kernels/symchan.cu) on NVSHMEM's
// API: peer pointers from nvshmem_ptr, nvshmem_signal_wait_until,
// nvshmemx_signal_op.
struct jargs {
	int nx, chunk, top_chunk, top, bot;
	uint64_t iter;
	uint64_t *sig;
	bool first, last;
	int y0, y1;
};

__device__ __forceinline__ jargs begin(int nx, int chunk, int top_chunk, uint64_t iter, int top, int bot, uint64_t *sig) {
	jargs j{nx, chunk, top_chunk, top, bot, iter, sig};
	const int rps = (chunk + gridDim.y - 1) / gridDim.y;
	j.first = blockIdx.y == 0;
	j.last = blockIdx.y == (unsigned)((chunk - 1) / rps);
	j.y0 = 1 + blockIdx.y * rps;
	j.y1 = min(chunk + 1, j.y0 + rps);
	if (j.first || j.last) {
		if (threadIdx.x == 0 && iter > 1) {
			if (j.first)
				nvshmem_signal_wait_until(&sig[0], NVSHMEM_CMP_GE, iter - 1);
			if (j.last)
				nvshmem_signal_wait_until(&sig[1], NVSHMEM_CMP_GE, iter - 1);
		}
		__syncthreads();
	}
	return j;
}

__device__ __forceinline__ void end(const jargs &j, float d2, unsigned *cnt, double *norm) {
	if (norm) {
		for (int o = 16; o > 0; o /= 2)
			d2 += __shfl_down_sync(0xffffffffu, d2, o);
		__shared__ float ws[32];
		if ((threadIdx.x & 31) == 0)
			ws[threadIdx.x / 32] = d2;
		__syncthreads();
		if (threadIdx.x == 0) {
			double s = 0;
			for (int w = 0; w < (int)(blockDim.x + 31) / 32; w++)
				s += ws[w];
			atomicAdd(norm, s);
		}
	}
	if (j.first || j.last) {
		__threadfence_system(); // direct stores: a system fence, not nvshmem_fence
		__syncthreads();
		if (threadIdx.x == 0) {
			if (j.first && atomicAdd(&cnt[0], 1u) + 1 == (unsigned)j.iter * gridDim.x) {
				__threadfence_system();
				nvshmemx_signal_op(&j.sig[1], j.iter, NVSHMEM_SIGNAL_SET, j.top);
			}
			if (j.last && atomicAdd(&cnt[1], 1u) + 1 == (unsigned)j.iter * gridDim.x) {
				__threadfence_system();
				nvshmemx_signal_op(&j.sig[0], j.iter, NVSHMEM_SIGNAL_SET, j.bot);
			}
		}
	}
}

__global__ void sweep(const float *__restrict__ a, float *__restrict__ an, int nx, int chunk, int top_chunk, uint64_t iter, int top, int bot,
                      uint64_t *sig, unsigned *cnt, double *norm) {
	const jargs j = begin(nx, chunk, top_chunk, iter, top, bot, sig);
	const int ix = blockIdx.x * blockDim.x + threadIdx.x + 1;
	float d2 = 0.0f;
	if (ix < nx - 1 && j.y0 < j.y1) {
		float *top_halo = (float *)nvshmem_ptr(an, top) + (size_t)(top_chunk + 1) * nx;
		float *bot_halo = (float *)nvshmem_ptr(an, bot);
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
			if (iy == 1)
				top_halo[ix] = v;
			if (iy == chunk)
				bot_halo[ix] = v;
			up = c;
			c = dn;
		}
	}
	end(j, d2, cnt, norm);
}

__global__ void sweep4(const float *__restrict__ a, float *__restrict__ an, int nx, int chunk, int top_chunk, uint64_t iter, int top, int bot,
                       uint64_t *sig, unsigned *cnt, double *norm) {
	const jargs j = begin(nx, chunk, top_chunk, iter, top, bot, sig);
	const int nq = nx / 4;
	const int q = blockIdx.x * blockDim.x + threadIdx.x, qc = min(q, nq - 1), lane = threadIdx.x & 31;
	const bool store = q < nq;
	float d2 = 0.0f;
	if (j.y0 < j.y1) {
		float4 *top_halo = (float4 *)((float *)nvshmem_ptr(an, top) + (size_t)(top_chunk + 1) * nx);
		float4 *bot_halo = (float4 *)nvshmem_ptr(an, bot);
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
				if (iy == 1)
					top_halo[qc] = v;
				if (iy == chunk)
					bot_halo[qc] = v;
			}
			up = c;
			c = dn;
		}
	}
	end(j, d2, cnt, norm);
}

int main(int argc, char **argv) {
	int me = anchor_init(&argc, &argv), np = nvshmem_n_pes();
	const int nx = argc > 1 ? atoi(argv[1]) : 16384, ny = argc > 2 ? atoi(argv[2]) : 16384, niter = argc > 3 ? atoi(argv[3]) : 1000;
	const bool vec4 = argc > 4 ? strcmp(argv[4], "scalar") != 0 : nx % 4 == 0;
	const int interior = ny - 2, base = interior / np, extra = interior % np;
	auto chunk_of = [&](int p) { return base + (p < extra ? 1 : 0); };
	auto start_of = [&](int p) { return 1 + p * base + std::min(p, extra); };
	const int chunk = chunk_of(me), maxchunk = chunk_of(0);
	const int top = (me + np - 1) % np, bot = (me + 1) % np;
	const size_t cells = (size_t)(maxchunk + 2) * nx;
	float *a = (float *)nvshmem_malloc(cells * 4), *an = (float *)nvshmem_malloc(cells * 4);
	uint64_t *sig = (uint64_t *)nvshmem_calloc(2, 8);
	unsigned *cnt;
	double *norms;
	CK(cudaMalloc(&cnt, 8));
	CK(cudaMalloc(&norms, (niter + 1) * 8));
	CK(cudaMemset(cnt, 0, 8));
	CK(cudaMemset(norms, 0, (niter + 1) * 8));
	init<<<1024, 256>>>(a, nx, chunk + 2, start_of(me) - 1, ny);
	init<<<1024, 256>>>(an, nx, chunk + 2, start_of(me) - 1, ny);
	CK(cudaDeviceSynchronize());
	cudaStream_t st;
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

	// Memory floor: device-to-device copy bandwidth, bytes read + written.
	{
		cudaEvent_t e0, e1;
		CK(cudaEventCreate(&e0));
		CK(cudaEventCreate(&e1));
		std::vector<double> r;
		size_t n = cells * 4;
		for (int rep = 0; rep < 12; rep++) {
			CK(cudaEventRecord(e0, st));
			CK(cudaMemcpyAsync(an, a, n, cudaMemcpyDeviceToDevice, st));
			CK(cudaEventRecord(e1, st));
			CK(cudaStreamSynchronize(st));
			float t;
			CK(cudaEventElapsedTime(&t, e0, e1));
			if (rep >= 2)
				r.push_back(2.0 * n / (t * 1e6));
		}
		if (me == 0)
			printf("anchor d2d_copy %zu %.1f GB/s\n", n, median(r));
		init<<<1024, 256, 0, st>>>(an, nx, chunk + 2, start_of(me) - 1, ny);
		CK(cudaStreamSynchronize(st));
	}
	if (me == 0)
		printf("Jacobi relaxation (NVSHMEM anchor): %d x %d mesh, %d iterations, %d PEs, %s kernel\n", nx, ny, niter, np, vec4 ? "vec4" : "scalar");
	const int rps = 32, strips = (chunk + rps - 1) / rps;
	dim3 grid(((vec4 ? nx / 4 : nx - 2) + 255) / 256, strips), block(256);
	std::vector<double> host_norms(niter + 1), all(niter + 1);
	nvshmem_barrier_all();
	double t0 = MPI_Wtime();
	int done = 0;
	for (int k = 1; k <= niter; k++) {
		float *ra = (k & 1) ? a : an, *wa = (k & 1) ? an : a;
		if (vec4)
			sweep4<<<grid, block, 0, st>>>(ra, wa, nx, chunk, chunk_of(top), k, top, bot, sig, cnt, norms + k);
		else
			sweep<<<grid, block, 0, st>>>(ra, wa, nx, chunk, chunk_of(top), k, top, bot, sig, cnt, norms + k);
		if (k % 100 == 0 || k == niter) {
			CK(cudaMemcpyAsync(host_norms.data() + done + 1, norms + done + 1, (k - done) * 8, cudaMemcpyDeviceToHost, st));
			CK(cudaStreamSynchronize(st));
			MPI_Allreduce(host_norms.data() + done + 1, all.data() + done + 1, k - done, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
			if (me == 0 && k % 100 == 0)
				printf("%5d, %0.6f\n", k, sqrt(all[k]));
			done = k;
		}
	}
	nvshmemx_barrier_all_on_stream(st);
	CK(cudaStreamSynchronize(st));
	double t = MPI_Wtime() - t0;
	if (me == 0)
		printf("anchor jacobi_%s_%dpe %d %.4f s\n", vec4 ? "vec4" : "scalar", np, nx, t);
	nvshmem_free(a);
	nvshmem_free(an);
	nvshmem_free(sig);
	anchor_fini();
	return 0;
}
