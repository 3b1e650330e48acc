// nvshmem_coll: the NVSHMEM side of bench/gpu_collectives_test.go on the
// world team: its collectives on a stream (nvshmemx_*_on_stream) and in a
// kernel (nvshmemx_*_block, one block of collThreads threads,
// collectively launched: 512 are more than its block collectives' registers
// allow), at the benchmark's sizes. size is the bytes each member
// contributes: the array of a reduction or broadcast, each member's block
// of an fcollect, the block for each member of an alltoall. Each figure is
// the median over reps 3..7 of (time of k collectives) / k, k as
// collIters says, printed as a line of Go's benchmark format with
// pes=N (the processes) and impl=nvshmem beside the Go benchmark's
// impl=symchan. Two more forms time one on-stream call at a time, as a
// blocking call from the host is: OnStreamSync by the wall clock to the
// end of its cudaStreamSynchronize, OnStreamEvents as NVSHMEM's perftests
// do (CUDA events around each call, then a synchronisation; the events'
// time). Arguments: the forms (stream, device, or anything else for all),
// then the largest size to run (0 or none: every size).
#include "common.cuh"
#include <cstring>

static const size_t sizes[] = {8, 64, 512, 4 << 10, 32 << 10, 256 << 10, 2 << 20, 16 << 20, 64 << 20};
static const int collThreads = 256; // bench/gpu_collectives_test.go: collThreads
static const char *ops[] = {"barrier", "broadcast", "reduce-f32", "reduce-f64", "fcollect", "alltoall"};

// collIters: the collectives a repetition times (bench/gpu_collectives_test.go: collIters).
static int collIters(size_t size) {
	size_t k = (32u << 20) / (size ? size : 1);
	return k < 4 ? 4 : k > 200 ? 200 : (int)k;
}

static void on_stream(int op, void *dst, void *src, size_t size, cudaStream_t st) {
	nvshmem_team_t w = NVSHMEM_TEAM_WORLD;
	switch (op) {
	case 0: nvshmemx_barrier_on_stream(w, st); break;
	case 1: nvshmemx_int64_broadcast_on_stream(w, (int64_t *)dst, (const int64_t *)src, size / 8, 0, st); break;
	case 2: nvshmemx_float_sum_reduce_on_stream(w, (float *)dst, (const float *)src, size / 4, st); break;
	case 3: nvshmemx_double_sum_reduce_on_stream(w, (double *)dst, (const double *)src, size / 8, st); break;
	case 4: nvshmemx_int64_fcollect_on_stream(w, (int64_t *)dst, (const int64_t *)src, size / 8, st); break;
	case 5: nvshmemx_int64_alltoall_on_stream(w, (int64_t *)dst, (const int64_t *)src, size / 8, st); break;
	}
}

__global__ void coll_kernel(int op, void *dst, void *src, size_t size, int iters) {
	nvshmem_team_t w = NVSHMEM_TEAM_WORLD;
	for (int i = 0; i < iters; i++) {
		switch (op) {
		case 0: nvshmemx_barrier_block(w); break;
		case 1: nvshmemx_int64_broadcast_block(w, (int64_t *)dst, (const int64_t *)src, size / 8, 0); break;
		case 2: nvshmemx_float_sum_reduce_block(w, (float *)dst, (const float *)src, size / 4); break;
		case 3: nvshmemx_double_sum_reduce_block(w, (double *)dst, (const double *)src, size / 8); break;
		case 4: nvshmemx_int64_fcollect_block(w, (int64_t *)dst, (const int64_t *)src, size / 8); break;
		case 5: nvshmemx_int64_alltoall_block(w, (int64_t *)dst, (const int64_t *)src, size / 8); break;
		}
	}
}

int main(int argc, char **argv) {
	int me = anchor_init(&argc, &argv);
	int npes = nvshmem_n_pes();
	const size_t maxsz = sizes[sizeof sizes / sizeof sizes[0] - 1];
	char *src = (char *)nvshmem_calloc(npes * maxsz, 1);
	char *dst = (char *)nvshmem_calloc(npes * maxsz, 1);
	if (!src || !dst) {
		fprintf(stderr, "nvshmem_coll: cannot allocate 2 × %d × %zu bytes\n", npes, maxsz);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	cudaStream_t st;
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	cudaEvent_t ev0, ev1;
	CK(cudaEventCreate(&ev0));
	CK(cudaEventCreate(&ev1));
	static const char *forms[] = {"OnStream", "Device", "OnStreamSync", "OnStreamEvents"};
	bool device = argc < 2 || strcmp(argv[1], "stream") != 0, stream = argc < 2 || strcmp(argv[1], "device") != 0;
	const size_t collMax = argc > 2 ? strtoull(argv[2], NULL, 10) : 0; // 0: every size
	for (int op = 0; op < 6; op++) {
		for (size_t size : sizes) {
			if (op == 0 && size != 8)
				continue; // a barrier moves nothing: one line, size=0
			if (collMax > 0 && size > collMax)
				continue;
			int k = collIters(op == 0 ? 0 : size);
			for (int form = 0; form < 4; form++) {
				if ((form != 1 && !stream) || (form == 1 && !device))
					continue;
				std::vector<double> r;
				for (int rep = 0; rep < 7; rep++) {
					nvshmem_barrier_all();
					double t0 = MPI_Wtime();
					double events_ms = 0;
					if (form == 0) {
						for (int i = 0; i < k; i++)
							on_stream(op, dst, src, size, st);
					} else if (form == 2) {
						for (int i = 0; i < k; i++) {
							on_stream(op, dst, src, size, st);
							CK(cudaStreamSynchronize(st));
						}
					} else if (form == 3) {
						for (int i = 0; i < k; i++) {
							CK(cudaEventRecord(ev0, st));
							on_stream(op, dst, src, size, st);
							CK(cudaEventRecord(ev1, st));
							CK(cudaStreamSynchronize(st));
							float ms;
							CK(cudaEventElapsedTime(&ms, ev0, ev1));
							events_ms += ms;
						}
					} else {
						void *args[] = {&op, &dst, &src, &size, &k};
						int rc = nvshmemx_collective_launch((const void *)coll_kernel, 1, collThreads, args, 0, st);
						if (rc != 0) {
							fprintf(stderr, "nvshmem_coll: nvshmemx_collective_launch: %d\n", rc);
							MPI_Abort(MPI_COMM_WORLD, 1);
						}
					}
					CK(cudaStreamSynchronize(st));
					double t = form == 3 ? events_ms / 1e3 : MPI_Wtime() - t0;
					if (rep >= 2)
						r.push_back(t * 1e9 / k);
				}
				if (me == 0) {
					char name[200];
					snprintf(name, sizeof name, "BenchmarkGPUCollective%s/pes=%d/op=%s/size=%zu/impl=nvshmem", forms[form], npes,
					         ops[op], op == 0 ? (size_t)0 : size);
					bench_line(name, median(r), median(r) / 1e3, "us/op");
				}
			}
		}
	}
	nvshmem_barrier_all();
	nvshmem_free(src);
	nvshmem_free(dst);
	anchor_fini();
	return 0;
}
