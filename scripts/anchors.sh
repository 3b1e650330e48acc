#!/usr/bin/env bash
# Builds and runs the NVSHMEM anchor programs of bench/anchors on a GPU
# machine (nvcc, NVSHMEM 3 and OpenMPI there; see docs/design.md),
# printing the benchmarks' figures as lines of Go's benchmark format (an
# impl=nvshmem… variant beside the Go benchmark's impl=symchan, for
# benchstat) and Jacobi's as "anchor <name> <size> <value> <unit>" lines.
# Binaries go to $ANCHOR_BUILD (default /tmp/symchan-anchors).
#
#   scripts/anchors.sh [bench|rate|host|routines|coll|jacobi|floor|python|all] [jacobi args: nx ny niter]
#   (rate: nvshmem_bench's message rate alone; bench includes it)
#   (host: its host-driven ping-pongs and put-with-signal stream alone;
#   bench includes them)
#   (routines: nvshmem_routines.cu, the anchors of bench/routines_test.go)
#   (coll: nvshmem_coll.cu, the collectives on a stream and in a kernel;
#   COLL_FORMS: stream or device alone; COLL_NP processes, default 2;
#   COLL_MAX: the largest size, default all)
#   (floor: the host↔GPU round trips of floor.cu, plain CUDA)
#   (python: python_kernels.py, a user's kernel with CuPy and Numba, run
#   by $ANCHOR_PYTHON, default the GPU machines' venv that has both; not
#   in all)
#   (ANCHOR_KERNELS: the Jacobi sweep kernels to run, default "vec4 scalar")
set -euo pipefail
cd "$(dirname "$0")/../bench/anchors"
what=${1:-all}
shift || true
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
nvh=${NVSHMEM_HOME:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem}
build=${ANCHOR_BUILD:-/tmp/symchan-anchors}
mkdir -p "$build/lib"
# nvcc links -lnvshmem_host against a libnvshmem_host.so, which the pip
# package ships only as .so.3.
ln -sf "$nvh/lib/libnvshmem_host.so.3" "$build/lib/libnvshmem_host.so"
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$nvh/lib:${LD_LIBRARY_PATH:-}
# ANCHOR_PROGRAMS: the NVSHMEM programs to build (unset: all four; empty: none).
for prog in ${ANCHOR_PROGRAMS-nvshmem_bench nvshmem_jacobi nvshmem_routines nvshmem_coll}; do
	if [ ! -x "$build/$prog" ] || [ "$prog.cu" -nt "$build/$prog" ] || [ common.cuh -nt "$build/$prog" ] ||
		[ ../../kernels/symchan.cuh -nt "$build/$prog" ]; then
		nvcc -O3 -std=c++17 -arch=sm_90 -rdc=true -ccbin mpicxx -I"$nvh/include" "$prog.cu" -o "$build/$prog" \
			-L"$build/lib" -lnvshmem_host -L"$nvh/lib" -lnvshmem_device -L/usr/local/cuda/lib64/stubs -lcuda
	fi
done
if [ ! -x "$build/floor" ] || [ floor.cu -nt "$build/floor" ]; then
	nvcc -O3 -std=c++17 -arch=sm_90 floor.cu -o "$build/floor"
fi
ngpu=$(nvidia-smi -L | wc -l)
run() {
	local np=$1
	shift
	NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_REMOTE_TRANSPORT=none \
		mpirun --allow-run-as-root -np "$np" --bind-to none --mca pml ob1 --mca btl self,vader \
		--mca btl_vader_single_copy_mechanism none -x NVSHMEM_DISABLE_NVLS -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH \
		-x NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME -x NVSHMEM_REMOTE_TRANSPORT "$@"
}
if [ "$what" = floor ] || [ "$what" = all ]; then
	"$build/floor"
fi
if [ "$what" = python ]; then
	"${ANCHOR_PYTHON:-/opt/torch/.venv/bin/python}" python_kernels.py
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
	# 2 PEs: on a machine of one GPU they share it (not an NVLink figure).
	run 2 "$build/nvshmem_bench"
fi
if [ "$what" = rate ] || [ "$what" = host ]; then
	run 2 "$build/nvshmem_bench" "$what"
fi
if [ "$what" = routines ] || [ "$what" = all ]; then
	run 2 "$build/nvshmem_routines"
fi
if [ "$what" = coll ] || [ "$what" = all ]; then
	run "${COLL_NP:-2}" "$build/nvshmem_coll" "${COLL_FORMS:-both}" "${COLL_MAX:-0}"
fi
if [ "$what" = jacobi ] || [ "$what" = all ]; then
	# Both sweep kernels of examples/jacobi, on 1, 2, 4 … GPUs.
	for kernel in ${ANCHOR_KERNELS:-vec4 scalar}; do
		np=1
		while [ "$np" -le "$ngpu" ]; do
			run "$np" "$build/nvshmem_jacobi" "${1:-16384}" "${2:-16384}" "${3:-1000}" "$kernel"
			np=$((np * 2))
		done
	done
fi
