// nvshmem_jacobi: the Jacobi solver of examples/jacobi written directly on
// NVSHMEM, the anchor for its GPU timings. Same problem, decomposition and
// kernel structure: each thread owns a column and walks a strip of rows;
// boundary rows go to the neighbours' halos with device-initiated puts
// (nvshmem_float_p) and a signal (the iteration number), and the boundary
// blocks of the next sweep wait for both halos with signal_wait_until. The
// norm of every sweep accumulates on the GPU and is gathered at each printed
// line. Also prints the device-to-device copy bandwidth for the memory floor.
//
//   mpirun -np P ./nvshmem_jacobi [nx ny niter]
#include "common.cuh"
#include <cmath>

__global__ void init(float *a, long long nx, long long rows, long long iy0, long long ny) {
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nx * rows; i += (long long)gridDim.x * blockDim.x) {
		long long iy = i / nx, ix = i % nx;
		float v = 0.0f;
		if (ix == 0 || ix == nx - 1)
			v = (float)sin(2.0 * 3.14159265358979323846 * (double)(iy0 + iy) / (double)(ny - 1));
		a[i] = v;
	}
}

__global__ void sweep(const float *__restrict__ a, float *__restrict__ an, int nx, int chunk, int top_chunk, uint64_t iter, int top, int bot, uint64_t *sig,
                      unsigned *cnt, double *norm) {
	const int rps = (chunk + gridDim.y - 1) / gridDim.y;
	const bool first = blockIdx.y == 0, last = blockIdx.y == (unsigned)((chunk - 1) / rps);
	if (first || last) {
		if (threadIdx.x == 0 && iter > 1) {
			if (first)
				nvshmem_signal_wait_until(&sig[0], NVSHMEM_CMP_GE, iter - 1);
			if (last)
				nvshmem_signal_wait_until(&sig[1], NVSHMEM_CMP_GE, iter - 1);
		}
		__syncthreads();
	}
	const int ix = blockIdx.x * blockDim.x + threadIdx.x + 1;
	const int y0 = 1 + blockIdx.y * rps, y1 = min(chunk + 1, y0 + rps);
	float d2 = 0.0f;
	if (ix < nx - 1 && y0 < y1) {
		float up = a[(size_t)(y0 - 1) * nx + ix], c = a[(size_t)y0 * nx + ix];
#pragma unroll 4
		for (int iy = y0; iy < y1; iy++) {
			const size_t row = (size_t)iy * nx;
			float dn = a[row + nx + ix];
			float v = 0.25f * (a[row + ix + 1] + a[row + ix - 1] + dn + up);
			an[row + ix] = v;
			float d = v - c;
			d2 += d * d;
			if (iy == 1)
				nvshmem_float_p(an + (size_t)(top_chunk + 1) * nx + ix, v, top);
			if (iy == chunk)
				nvshmem_float_p(an + ix, v, bot);
			up = c;
			c = dn;
		}
	}
	if (norm) {
		for (int o = 16; o > 0; o /= 2)
			d2 += __shfl_down_sync(0xffffffff, d2, o);
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
	if (first || last) {
		nvshmem_fence();
		__syncthreads();
		if (threadIdx.x == 0) {
			if (first && atomicAdd(&cnt[0], 1u) + 1 == (unsigned)iter * gridDim.x) {
				nvshmem_fence();
				nvshmemx_signal_op(&sig[1], iter, NVSHMEM_SIGNAL_SET, top);
			}
			if (last && atomicAdd(&cnt[1], 1u) + 1 == (unsigned)iter * gridDim.x) {
				nvshmem_fence();
				nvshmemx_signal_op(&sig[0], iter, NVSHMEM_SIGNAL_SET, bot);
			}
		}
	}
}

int main(int argc, char **argv) {
	int me = anchor_init(&argc, &argv), np = nvshmem_n_pes();
	const int nx = argc > 1 ? atoi(argv[1]) : 16384, ny = argc > 2 ? atoi(argv[2]) : 16384, niter = argc > 3 ? atoi(argv[3]) : 1000;
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
		printf("Jacobi relaxation (NVSHMEM anchor): %d x %d mesh, %d iterations, %d PEs\n", nx, ny, niter, np);
	const int rps = 32, strips = (chunk + rps - 1) / rps;
	dim3 grid((nx - 2 + 255) / 256, strips), block(256);
	std::vector<double> host_norms(niter + 1), all(niter + 1);
	nvshmem_barrier_all();
	double t0 = MPI_Wtime();
	int done = 0;
	for (int k = 1; k <= niter; k++) {
		float *ra = (k & 1) ? a : an, *wa = (k & 1) ? an : a;
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
		printf("anchor jacobi_%dpe %d %.4f s\n", np, nx, t);
	nvshmem_free(a);
	nvshmem_free(an);
	nvshmem_free(sig);
	anchor_fini();
	return 0;
}
