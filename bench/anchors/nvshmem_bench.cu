// nvshmem_bench: the NVSHMEM side of bench/gpu (2 PEs, PE 0 → PE 1), doing
// what each Go benchmark does. Output: lines of Go's benchmark format named
// like the Go benchmark each anchors, with impl=nvshmem… (bench_line),
// medians over reps after warm-up. Build and run: scripts/anchors.sh. With
// the argument "rate", only the message rate; with "host", only the
// host-driven ping-pongs and the host-initiated put-with-signal stream.
#include "common.cuh"
#include <string>
#include "../../kernels/symchan.cuh"

__global__ void pp_putsig(char *data, uint64_t *sig, int peer, int iters, size_t size, int initiator, uint64_t base) {
	for (int i = 1; i <= iters; i++) {
		uint64_t v = base + i;
		if (!initiator)
			nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, v);
		nvshmem_putmem_signal_nbi(data, data, size, sig, v, NVSHMEM_SIGNAL_SET, peer);
		if (initiator)
			nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, v);
	}
}

__global__ void pp_sig(uint64_t *sig, int peer, int iters, int initiator, uint64_t base) {
	for (int i = 1; i <= iters; i++) {
		uint64_t v = base + i;
		if (!initiator)
			nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, v);
		nvshmemx_signal_op(sig, v, NVSHMEM_SIGNAL_SET, peer);
		if (initiator)
			nvshmem_signal_wait_until(sig, NVSHMEM_CMP_GE, v);
	}
}

__global__ void put_block(char *dst, const char *src, size_t size, int peer, int reps) {
	size_t share = (size / gridDim.x + 15) & ~(size_t)15, lo = share * blockIdx.x;
	if (lo < size) {
		size_t n = share < size - lo ? share : size - lo;
		for (int r = 0; r < reps; r++)
			nvshmemx_putmem_block(dst + lo, src + lo, n, peer);
	}
	if (threadIdx.x == 0)
		nvshmem_quiet();
}

// put_block_symchan_loop: put_block's shares, copied by symchan.cuh's copy
// loop through NVSHMEM's mapping of the peer (nvshmem_ptr): our loop on
// NVSHMEM's memory, to tell the loop's share of a difference from the
// memory's.
__global__ void put_block_symchan_loop(char *dst, const char *src, size_t size, int peer, int reps) {
	size_t share = (size / gridDim.x + 15) & ~(size_t)15, lo = share * blockIdx.x;
	if (lo < size) {
		size_t n = share < size - lo ? share : size - lo;
		char *d = (char *)nvshmem_ptr(dst + lo, peer);
		for (int r = 0; r < reps; r++)
			symchan_copy_part(d, src + lo, n, threadIdx.x, blockDim.x);
	}
	__threadfence_system();
}

// rate_send: lane 0 of every warp of the grid puts per_warp 8-byte
// messages to PE to, each into the warp's own ring of 64 words of data
// with a signal add of 1 on the warp's word of sig, no flow control:
// BenchmarkGPUActorMessageRate's pattern (its impl=put-signal) on NVSHMEM.
__global__ void rate_send(uint64_t *data, const uint64_t *src, uint64_t *sig, int to, int per_warp) {
	if ((threadIdx.x & 31) != 0)
		return;
	const uint64_t g = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / 32;
	for (int i = 0; i < per_warp; i++)
		nvshmem_putmem_signal_nbi(data + g * 64 + i % 64, src + g, 8, sig + g, 1, NVSHMEM_SIGNAL_ADD, to);
	nvshmem_quiet();
}

static __device__ uint64_t globaltimer() {
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

// rate_recv: one thread waits until the warps' signal words add up to
// total, timing from the first messages it sees (log[2] of them) to the
// last (log[0], log[1]).
__global__ void rate_recv(const volatile uint64_t *sig, int warps, uint64_t total, uint64_t *log) {
	uint64_t got = 0, t0 = 0, first = 0;
	while (got < total) {
		uint64_t sum = 0;
		for (int w = 0; w < warps; w++)
			sum += sig[w];
		if (got == 0 && sum > 0) {
			t0 = globaltimer();
			first = sum;
		}
		got = sum;
	}
	log[0] = t0;
	log[1] = globaltimer();
	log[2] = first;
}

// message_rate: warps of PE 1 sending 8-byte put-with-signals to one
// thread of PE 0, about 50,000 messages (BenchmarkGPUActorMessageRate).
static void message_rate(int me, cudaStream_t st) {
	const int maxWarps = 256;
	uint64_t *data = (uint64_t *)nvshmem_calloc(maxWarps * 64, sizeof(uint64_t));
	uint64_t *src = (uint64_t *)nvshmem_calloc(maxWarps, sizeof(uint64_t));
	uint64_t *sig = (uint64_t *)nvshmem_calloc(maxWarps, sizeof(uint64_t));
	uint64_t *log;
	CK(cudaMalloc(&log, 24));
	for (int warps : {1, 8, 64, 256}) {
		const int per = std::max(1, 50000 / warps);
		const uint64_t total = (uint64_t)per * warps;
		std::vector<double> r;
		for (int rep = 0; rep < 5; rep++) {
			CK(cudaMemset(sig, 0, maxWarps * sizeof(uint64_t)));
			CK(cudaDeviceSynchronize());
			nvshmem_barrier_all();
			if (me == 0)
				rate_recv<<<1, 1, 0, st>>>(sig, warps, total, log);
			else if (me == 1) {
				const int block = std::min(warps, 8) * 32;
				rate_send<<<warps * 32 / block, block, 0, st>>>(data, src, sig, 0, per);
			}
			CK(cudaStreamSynchronize(st));
			if (me == 0 && rep >= 1) {
				uint64_t l[3];
				CK(cudaMemcpy(l, log, sizeof l, cudaMemcpyDeviceToHost));
				// Only the messages seen arriving count; a receiver that saw
				// most of them at once did not run beside the senders (two
				// processes time-sliced on one GPU): no figure.
				if (l[1] > l[0] && 2 * l[2] < total)
					r.push_back((total - l[2]) / ((double)(l[1] - l[0]) / 1e9));
			}
		}
		if (me == 0 && r.empty())
			printf("# message rate, %d warps: the receiver saw the messages arrive at once (PEs time-sliced on one GPU?): no figure\n", warps);
		else if (me == 0) {
			char name[160];
			snprintf(name, sizeof name, "BenchmarkGPUActorMessageRate/warps=%d/impl=nvshmem", warps);
			const double rate = median(r);
			bench_line(name, 1e9 / rate, rate / 1e6, "Mmsg/s");
		}
	}
	nvshmem_barrier_all();
	CK(cudaFree(log));
	nvshmem_free(data);
	nvshmem_free(src);
	nvshmem_free(sig);
}

// host_pingpong: the host-driven ping-pong, half round trip:
// putmem_signal_on_stream + signal_wait_until_on_stream. On stream, the
// host only queues (one synchronisation per round); host-blocking, every
// step waits on the host, as a blocking host API does (the anchor of the
// nvshmem backend's PutSignal + SignalWaitUntil). base: the signal's last
// value, advanced.
static void host_pingpong(int me, char *buf, uint64_t *s, cudaStream_t st, uint64_t &base, const char *name, int n, int reps, bool blocking) {
	const int peer = 1 - me;
	std::vector<double> r;
	for (int rep = 0; rep < reps; rep++) {
		nvshmem_barrier_all();
		double t0 = MPI_Wtime();
		for (int i = 1; i <= n; i++) {
			uint64_t v = base + i;
			if (me == 1) {
				nvshmemx_signal_wait_until_on_stream(s, NVSHMEM_CMP_GE, v, st);
				if (blocking)
					CK(cudaStreamSynchronize(st));
			}
			nvshmemx_putmem_signal_on_stream(buf, buf, 8, s, v, NVSHMEM_SIGNAL_SET, peer, st);
			if (blocking)
				CK(cudaStreamSynchronize(st));
			if (me == 0) {
				nvshmemx_signal_wait_until_on_stream(s, NVSHMEM_CMP_GE, v, st);
				if (blocking)
					CK(cudaStreamSynchronize(st));
			}
		}
		CK(cudaStreamSynchronize(st));
		double t = MPI_Wtime() - t0;
		base += n;
		if (rep >= 2)
			r.push_back(t * 1e6 / n / 2);
	}
	if (me == 0)
		for (const char *bench : {"BenchmarkGPUHostPingPong", "BenchmarkNVSHMEMPingPong"}) {
			char line[160];
			snprintf(line, sizeof line, "%s/impl=%s", bench, name);
			bench_line(line, median(r) * 1e3, median(r), "us/half-RT");
		}
}

// host_stream: the anchor of BenchmarkGPUChanStream. PE 0's host queues n
// 8-byte putmem_signal_on_stream, each setting the signal word to its
// number, and PE 1 waits on its stream for the last: messages per second
// from a barrier to both streams done and a barrier, the median of reps
// after two warm-up reps.
static void host_stream(int me, char *buf, uint64_t *sig, cudaStream_t st) {
	const int n = 20000, reps = 7;
	std::vector<double> r;
	for (int rep = 0; rep < reps; rep++) {
		nvshmem_barrier_all();
		const uint64_t base = (uint64_t)rep * n;
		double t0 = MPI_Wtime();
		if (me == 0)
			for (int i = 1; i <= n; i++)
				nvshmemx_putmem_signal_on_stream(buf, buf, 8, sig, base + i, NVSHMEM_SIGNAL_SET, 1, st);
		else
			nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_GE, base + n, st);
		CK(cudaStreamSynchronize(st));
		nvshmem_barrier_all();
		double t = MPI_Wtime() - t0;
		if (rep >= 2)
			r.push_back(n / t);
	}
	if (me == 0) {
		const double m = median(r);
		bench_line("BenchmarkGPUChanStream/impl=nvshmem-onstream", 1e9 / m, m / 1e6, "Mmsg/s");
	}
}

int main(int argc, char **argv) {
	int me = anchor_init(&argc, &argv);
	if (argc > 1 && std::string(argv[1]) == "host") {
		cudaStream_t st;
		CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
		char *buf = (char *)nvshmem_malloc(64);
		uint64_t *sig = (uint64_t *)nvshmem_calloc(3, sizeof(uint64_t));
		uint64_t base = 0;
		host_pingpong(me, buf, sig, st, base, "nvshmem-onstream", 2000, 7, false);
		host_pingpong(me, buf, sig + 1, st, base, "nvshmem-blocking", 200, 12, true);
		host_stream(me, buf, sig + 2, st);
		nvshmem_barrier_all();
		nvshmem_free(buf);
		nvshmem_free(sig);
		anchor_fini();
		return 0;
	}
	if (argc > 1 && std::string(argv[1]) == "rate") {
		cudaStream_t st;
		CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
		message_rate(me, st);
		anchor_fini();
		return 0;
	}
	int peer = 1 - me;
	const size_t maxsz = 256ull << 20;
	char *buf = (char *)nvshmem_malloc(2 * maxsz);
	uint64_t *sig = (uint64_t *)nvshmem_calloc(8, sizeof(uint64_t));
	cudaStream_t st;
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	uint64_t base = 0;
	auto ms = [&]() { float t; CK(cudaEventElapsedTime(&t, e0, e1)); return (double)t; };

	// Host-initiated put bandwidth, one shot per rep: putmem_on_stream, timed
	// by events (GPU time) and by the host clock around the call and the
	// stream synchronisation (what a blocking host API costs).
	for (size_t sz = 64 << 10; sz <= maxsz; sz *= 4) {
		std::vector<double> r, w;
		for (int rep = 0; rep < 25; rep++) {
			nvshmem_barrier_all();
			if (me == 0) {
				double t0 = MPI_Wtime();
				CK(cudaEventRecord(e0, st));
				nvshmemx_putmem_on_stream(buf + maxsz, buf, sz, peer, st);
				nvshmemx_quiet_on_stream(st);
				CK(cudaEventRecord(e1, st));
				CK(cudaStreamSynchronize(st));
				double t = MPI_Wtime() - t0;
				if (rep >= 5) {
					r.push_back(sz / (ms() * 1e6));
					w.push_back(sz / (t * 1e9));
				}
			}
		}
		if (me == 0) {
			// Timed by events, and by the host clock as the Go benchmarks are.
			bench_gbps("BenchmarkGPUPut/size=%zu/impl=nvshmem-events", sz, median(r));
			bench_gbps("BenchmarkGPUPut/size=%zu/impl=nvshmem", sz, median(w));
			bench_gbps("BenchmarkNVSHMEMPut/size=%zu/impl=nvshmem", sz, median(w));
		}
	}
	// Peer copy by the copy engines: cudaMemcpyPeerAsync (the bandwidth anchor).
	if (me == 0) {
		char *remote = (char *)nvshmem_ptr(buf + maxsz, peer);
		for (size_t sz = 64 << 10; sz <= maxsz; sz *= 4) {
			std::vector<double> r;
			for (int rep = 0; rep < 25; rep++) {
				CK(cudaEventRecord(e0, st));
				CK(cudaMemcpyAsync(remote, buf, sz, cudaMemcpyDeviceToDevice, st));
				CK(cudaEventRecord(e1, st));
				CK(cudaStreamSynchronize(st));
				if (rep >= 5)
					r.push_back(sz / (ms() * 1e6));
			}
			bench_gbps("BenchmarkGPUPut/size=%zu/impl=memcpypeer-events", sz, median(r));
		}
	}
	nvshmem_barrier_all();
	// Device-initiated block put bandwidth: 132 blocks × 1024 threads.
	for (int loop = 0; loop < 2; loop++)
		for (size_t sz = 64 << 10; sz <= maxsz; sz *= 4) {
			int reps = sz < (16 << 20) ? 100 : 10;
			std::vector<double> r;
			for (int rep = 0; rep < 7; rep++) {
				nvshmem_barrier_all();
				if (me == 0) {
					CK(cudaEventRecord(e0, st));
					if (loop == 0)
						put_block<<<132, 1024, 0, st>>>(buf + maxsz, buf, sz, peer, reps);
					else
						put_block_symchan_loop<<<132, 1024, 0, st>>>(buf + maxsz, buf, sz, peer, reps);
					CK(cudaEventRecord(e1, st));
					CK(cudaStreamSynchronize(st));
					if (rep >= 2)
						r.push_back((double)sz * reps / (ms() * 1e6));
				}
			}
			if (me == 0)
				bench_gbps(loop == 0 ? "BenchmarkGPUDevicePutBlock/size=%zu/impl=nvshmem"
				                     : "BenchmarkGPUDevicePutBlock/size=%zu/impl=nvshmem-symchan-loop",
				           sz, median(r));
		}
	// Device-initiated ping-pong, half round trip.
	const int iters = 20000;
	for (int kind = 0; kind < 2; kind++) {
		std::vector<double> r;
		for (int rep = 0; rep < 7; rep++) {
			nvshmem_barrier_all();
			CK(cudaEventRecord(e0, st));
			if (kind == 0)
				pp_putsig<<<1, 1, 0, st>>>(buf, sig, peer, iters, 8, me == 0, base);
			else
				pp_sig<<<1, 1, 0, st>>>(sig + 1, peer, iters, me == 0, base);
			CK(cudaEventRecord(e1, st));
			CK(cudaStreamSynchronize(st));
			base += iters;
			if (rep >= 2)
				r.push_back(ms() * 1e3 / iters / 2);
		}
		if (me == 0)
			bench_line(kind == 0 ? "BenchmarkGPUDevicePingPong/kind=put-signal-8B/impl=nvshmem"
			                     : "BenchmarkGPUDevicePingPong/kind=signal/impl=nvshmem",
			           median(r) * 1e3, median(r), "us/half-RT");
	}
	host_pingpong(me, buf, sig + 2, st, base, "nvshmem-onstream", 2000, 7, false);
	host_pingpong(me, buf, sig + 3, st, base, "nvshmem-blocking", 200, 12, true);
	host_stream(me, buf, sig + 4, st);
	message_rate(me, st);
	nvshmem_barrier_all();
	nvshmem_free(buf);
	nvshmem_free(sig);
	anchor_fini();
	return 0;
}
