// The pipeline's kernel: out = in + mine over n words (in may be null:
// the first PE of the chain has nothing to add to).
extern "C" __global__ void add(unsigned long long *out, const unsigned long long *in, const unsigned long long *mine, unsigned long long n) {
	for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n; i += (unsigned long long)gridDim.x * blockDim.x)
		out[i] = (in ? in[i] : 0) + mine[i];
}
