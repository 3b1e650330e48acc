// common.cuh: what the NVSHMEM anchor programs share: error checks, the
// unique-id bootstrap over MPI (no MPI inside NVSHMEM), timing helpers.
#pragma once
#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <sched.h>

#define CK(x)                                                                                        \
	do {                                                                                             \
		cudaError_t e_ = (x);                                                                        \
		if (e_ != cudaSuccess) {                                                                     \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));        \
			MPI_Abort(MPI_COMM_WORLD, 1);                                                            \
		}                                                                                            \
	} while (0)

// anchor_init binds this rank to GPU rank % GPUs and starts NVSHMEM with
// the unique-id bootstrap; it returns this PE.
static int anchor_init(int *argc, char ***argv) {
	MPI_Init(argc, argv);
	int rank, size, ndev;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	CK(cudaGetDeviceCount(&ndev));
	CK(cudaSetDevice(rank % ndev));
	nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
	if (rank == 0)
		nvshmemx_get_uniqueid(&id);
	MPI_Bcast(&id, sizeof(id), MPI_UINT8_T, 0, MPI_COMM_WORLD);
	nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
	nvshmemx_set_attr_uniqueid_args(rank, size, &id, &attr);
	nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
	return nvshmem_my_pe();
}

static void anchor_fini() {
	nvshmem_finalize();
	MPI_Finalize();
}

static double median(std::vector<double> v) {
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

// bench_line prints one figure as a line of Go's benchmark format, named
// like the Go benchmark it anchors with the anchor as its impl= variant
// (e.g. BenchmarkGPUPut/size=1048576/impl=nvshmem), so that benchstat
// -col /impl sets it beside ours. ns_op is the time of one operation.
static void bench_line(const char *name, double ns_op, double value, const char *unit) {
	// The -N suffix Go gives its names: GOMAXPROCS, by default the CPUs
	// this process may run on.
	cpu_set_t cpus;
	int n = sched_getaffinity(0, sizeof cpus, &cpus) == 0 ? CPU_COUNT(&cpus) : 1;
	if (n > 1)
		printf("%s-%d \t       1\t%12.0f ns/op\t%12.4g %s\n", name, n, ns_op, value, unit);
	else
		printf("%s \t       1\t%12.0f ns/op\t%12.4g %s\n", name, ns_op, value, unit);
}

// bench_gbps prints a bandwidth of sz bytes as bench_line does.
static void bench_gbps(const char *fmt, size_t sz, double gbps) {
	char name[160];
	snprintf(name, sizeof name, fmt, sz);
	bench_line(name, sz / gbps, gbps, "GB/s");
}
