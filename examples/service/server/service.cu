// service.cu: examples/service's kernels, compiled after examples/jacobi's
// jacobi.cu (which includes symchan.cuh and defines u64), whose
// jacobi_init the service uses (kernels.Compile, serviceProgram).

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
