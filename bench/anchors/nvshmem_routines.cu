// nvshmem_routines: the NVSHMEM side of bench/routines_test.go (2 PEs).
// NVSHMEM has no host-side strided put, no locks and no alltoalls, so the
// anchors are what an NVSHMEM program does instead: a loop of 8-byte
// host puts (impl=nvshmem-loop), one device thread's nvshmem_iput in a
// kernel launch (impl=nvshmem-iput-kernel, launch and completion timed
// from the host), and the contiguous host alltoall (impl=nvshmem).
// Medians over reps after warm-up, as lines of Go's benchmark format. With
// both PEs on one GPU NVSHMEM's host puts take milliseconds each (its
// multiple-processes-per-GPU mode) and its alltoall is refused: the
// figures that anchor anything come from a GPU per PE.
#include "common.cuh"

__global__ void iput_kernel(int64_t *dst, const int64_t *src, int n, int peer) {
	nvshmem_int64_iput(dst, src, 4, 1, n, peer);
	nvshmem_quiet();
}

int main(int argc, char **argv) {
	int me = anchor_init(&argc, &argv);
	int peer = 1 - me;
	const int maxn = 4096;
	int64_t *dst = (int64_t *)nvshmem_calloc(8 * maxn, sizeof(int64_t));
	int64_t *src = (int64_t *)nvshmem_calloc(8 * maxn, sizeof(int64_t));
	cudaStream_t st;
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	char name[160];

	for (int n : {16, 1024}) {
		std::vector<double> loop, kern;
		for (int rep = 0; rep < 25; rep++) {
			nvshmem_barrier_all();
			if (me == 0) {
				double t0 = MPI_Wtime();
				for (int i = 0; i < n; i++)
					nvshmem_putmem(dst + 4 * i, src + i, 8, peer);
				nvshmem_quiet();
				double t1 = MPI_Wtime();
				iput_kernel<<<1, 1, 0, st>>>(dst, src, n, peer);
				CK(cudaStreamSynchronize(st));
				double t2 = MPI_Wtime();
				if (rep >= 3) {
					loop.push_back((t1 - t0) * 1e9);
					kern.push_back((t2 - t1) * 1e9);
				}
			}
		}
		if (me == 0) {
			snprintf(name, sizeof name, "BenchmarkStridedPut/impl=nvshmem-loop/n=%d", n);
			bench_line(name, median(loop), median(loop) / 1e3, "us/op");
			snprintf(name, sizeof name, "BenchmarkStridedPut/impl=nvshmem-iput-kernel/n=%d", n);
			bench_line(name, median(kern), median(kern) / 1e3, "us/op");
		}
	}

	// NVSHMEM refuses its collectives when PEs share a GPU ("limited MPG").
	int ndev;
	CK(cudaGetDeviceCount(&ndev));
	for (int n : {8, 4096}) {
		if (nvshmem_n_pes() > ndev) {
			if (me == 0)
				fprintf(stderr, "nvshmem_routines: alltoall anchor skipped: %d PEs share %d GPU(s)\n", nvshmem_n_pes(), ndev);
			break;
		}
		std::vector<double> r;
		for (int rep = 0; rep < 25; rep++) {
			nvshmem_barrier_all();
			double t0 = MPI_Wtime();
			nvshmem_int64_alltoall(NVSHMEM_TEAM_WORLD, dst, src, n);
			double t1 = MPI_Wtime();
			if (rep >= 3)
				r.push_back((t1 - t0) * 1e9);
		}
		if (me == 0) {
			snprintf(name, sizeof name, "BenchmarkAllToAll/impl=nvshmem/n=%d", n);
			bench_line(name, median(r), median(r) / 1e3, "us/op");
		}
	}
	nvshmem_barrier_all();
	nvshmem_free(dst);
	nvshmem_free(src);
	anchor_fini();
	return 0;
}
