// floor: the host↔GPU round trips that any message a host program sends
// through a GPU and learns the arrival of must pay (issue 17's floor
// anchor; plain CUDA, no NVSHMEM). A one-thread kernel spins on a flag and
// answers in another:
//
//   path=host-gpu-host: the host writes a flag in mapped pinned memory,
//     a kernel on GPU 0 sees it and writes the answer in pinned memory,
//     the host sees that;
//   path=host-gpu0-gpu1-host: the kernel on GPU 0 answers into GPU 1's
//     memory over NVLink, where a kernel on GPU 1 sees it and answers the
//     host (with one GPU: path=host-gpu-gpu-host, both kernels on GPU 0,
//     the middle flag in its memory).
//
// Each path runs warm-up round trips, then timed ones, each timed alone
// by the host clock; the median and the 99th and 99.9th percentiles are
// printed as Go benchmark lines (impl=cuda), beside the Go benchmarks'.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

typedef unsigned long long u64;

#define CHECK(x)                                                                                   \
	do {                                                                                           \
		cudaError_t e_ = (x);                                                                      \
		if (e_ != cudaSuccess) {                                                                   \
			fprintf(stderr, "floor: %s: %s\n", #x, cudaGetErrorString(e_));                        \
			exit(1);                                                                               \
		}                                                                                          \
	} while (0)

static const int warm = 2000, timed = 20000;

// echo: for i = 1 … n, wait until *in ≥ i, then set *out = i.
__global__ void echo(volatile u64 *in, volatile u64 *out, u64 n) {
	for (u64 i = 1; i <= n; i++) {
		while (*in < i) {
		}
		*out = i;
	}
}

// roundtrips writes ping and waits for pong, warm + timed times, and
// prints the timed ones' percentiles under name.
static void roundtrips(const char *name, volatile u64 *ping, volatile u64 *pong) {
	std::vector<double> us;
	us.reserve(timed);
	for (u64 i = 1; i <= (u64)(warm + timed); i++) {
		auto t0 = std::chrono::steady_clock::now();
		*ping = i;
		while (*pong < i) {
		}
		auto t1 = std::chrono::steady_clock::now();
		if (i > (u64)warm)
			us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
	}
	std::sort(us.begin(), us.end());
	auto q = [&](double p) { return us[std::min(us.size() - 1, (size_t)(p * us.size()))]; };
	printf("BenchmarkGPUFloor/path=%s/impl=cuda 1 %.0f ns/op %.3f us/RT %.3f us/RT-p99 %.3f us/RT-p99.9\n", name,
	       q(0.5) * 1e3, q(0.5), q(0.99), q(0.999));
	fflush(stdout);
}

// pinnedFlags returns two zeroed u64 flags in mapped pinned memory, as
// the host sees them and as GPUs address them.
static void pinnedFlags(volatile u64 **host, u64 **dev) {
	CHECK(cudaHostAlloc((void **)host, 2 * sizeof(u64), cudaHostAllocMapped | cudaHostAllocPortable));
	(*host)[0] = (*host)[1] = 0;
	CHECK(cudaHostGetDevicePointer((void **)dev, (void *)*host, 0));
}

int main() {
	int ngpu = 0;
	CHECK(cudaGetDeviceCount(&ngpu));
	const u64 n = warm + timed;
	{
		CHECK(cudaSetDevice(0));
		volatile u64 *h;
		u64 *d;
		pinnedFlags(&h, &d);
		echo<<<1, 1>>>(d, d + 1, n);
		CHECK(cudaGetLastError());
		roundtrips("host-gpu-host", h, h + 1);
		CHECK(cudaDeviceSynchronize());
		CHECK(cudaFreeHost((void *)h));
	}
	{
		const int second = ngpu > 1 ? 1 : 0;
		volatile u64 *h;
		u64 *d, *mid;
		CHECK(cudaSetDevice(0));
		pinnedFlags(&h, &d);
		CHECK(cudaSetDevice(second));
		CHECK(cudaMalloc(&mid, sizeof(u64)));
		CHECK(cudaMemset(mid, 0, sizeof(u64)));
		CHECK(cudaDeviceSynchronize());
		if (second) {
			CHECK(cudaSetDevice(0));
			CHECK(cudaDeviceEnablePeerAccess(second, 0));
		}
		cudaStream_t s0, s1;
		CHECK(cudaSetDevice(0));
		CHECK(cudaStreamCreateWithFlags(&s0, cudaStreamNonBlocking));
		echo<<<1, 1, 0, s0>>>(d, mid, n); // host → GPU 0 → GPU 1's flag
		CHECK(cudaGetLastError());
		CHECK(cudaSetDevice(second));
		CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
		echo<<<1, 1, 0, s1>>>(mid, d + 1, n); // GPU 1 → host
		CHECK(cudaGetLastError());
		roundtrips(second ? "host-gpu0-gpu1-host" : "host-gpu-gpu-host", h, h + 1);
		CHECK(cudaStreamSynchronize(s1));
		CHECK(cudaSetDevice(0));
		CHECK(cudaStreamSynchronize(s0));
	}
	return 0;
}
