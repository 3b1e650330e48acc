// moe.cu: examples/moe's experts, compiled when the example runs
// (kernels.Compile). Expert e's work on a token is exact in bf16: it
// scales every value by 2^(1 + e % 3), adding to the exponent field of
// each nonzero value (the tokens' values keep their exponents far from
// the top), so that the sender can check each copy bit for bit.
#include "symchan.cuh"

// moe_expert applies, for each of copies received tokens in x (hidden
// bf16 values each, as uint16), the expert meta names (meta[2i+1]) and
// writes the result to y: a block per token, its threads across the
// values.
extern "C" __global__ void moe_expert(const unsigned short *x, const long long *meta, unsigned short *y, unsigned long long copies,
                                      unsigned long long hidden) {
	for (unsigned long long i = blockIdx.x; i < copies; i += gridDim.x) {
		const unsigned shift = 1 + (unsigned)(meta[2 * i + 1] % 3);
		const unsigned short *in = x + i * hidden;
		unsigned short *out = y + i * hidden;
		for (unsigned long long j = threadIdx.x; j < hidden; j += blockDim.x) {
			const unsigned short v = in[j];
			out[j] = (v & 0x7f80) != 0 ? (unsigned short)(v + (shift << 7)) : v;
		}
	}
}
