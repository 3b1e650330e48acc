#!/usr/bin/env bash
# NVIDIA's own NVSHMEM perftests (NVIDIA/nvshmem perftest/, at the tag of
# the GPU machines' NVSHMEM, 3.4.5), the anchors symchan's collectives are
# measured against. The repository does not carry NVIDIA's sources: fetch
# takes them from NVIDIA's repository into .gpu/ (git-ignored), which
# travels to the GPU machine, where run builds them with nvcc.
#
#   scripts/perftests.sh fetch [SRC]    # here: perftest/ of the tag from SRC
#                                       # (a clone of NVIDIA/nvshmem; default:
#                                       # cloned from GitHub) into
#                                       # .gpu/perftest.tgz
#   scripts/perftests.sh names          # their lines (stdin) under the names of
#                                       # symchan's collective benchmarks
#                                       # (stdout), for bench/cmd/results
#   scripts/perftests.sh build          # on the GPU machine: build them alone
#   scripts/perftests.sh run NP [MAX]   # on the GPU machine, from .gpu/perftest.tgz: the
#                                       # collectives' latency tests, in a
#                                       # kernel and on a stream, on NP
#                                       # processes (one per GPU), up to MAX
#                                       # bytes (default 262144)
#
# run prints each figure as a line of Go's benchmark format,
#   BenchmarkPerftest/np=NP/test=TEST/scope=SCOPE/size=BYTES 1 V us
# with NVIDIA's names and sizes (an alltoall's or fcollect's size counts
# every member's block).
set -euo pipefail
tag=v3.4.5-0
what=${1:-}
case "$what" in
fetch)
	src=${2:+$(realpath "$2")}
	cd "$(dirname "$0")/.."
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	if [ -z "$src" ]; then
		git clone -q --depth 1 --branch "$tag" https://github.com/NVIDIA/nvshmem "$tmp/nvshmem"
		src=$tmp/nvshmem
	fi
	mkdir -p .gpu
	git -C "$src" archive --format=tar.gz -o "$(pwd)/.gpu/perftest.tgz" "$tag" perftest
	ls -l .gpu/perftest.tgz
	;;
build | run)
	np=${2:-}
	max=${3:-262144}
	[ "$what" = run ] && [ -z "$np" ] && { echo "perftests.sh: run NP [MAX]" >&2; exit 2; }
	tgz=${PERFTEST_TGZ:-$(dirname "$0")/../.gpu/perftest.tgz}
	build=${PERFTEST_BUILD:-/tmp/symchan-perftest}
	nvh=${NVSHMEM_HOME:-/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem}
	mkdir -p "$build/lib"
	[ -d "$build/perftest" ] || tar xzf "$tgz" -C "$build"
	# The pip package ships libnvshmem_host only as .so.3.
	ln -sf "$nvh/lib/libnvshmem_host.so.3" "$build/lib/libnvshmem_host.so"
	export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=$nvh/lib:${LD_LIBRARY_PATH:-}
	export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
	p=$build/perftest
	tests="device/coll/barrier_latency device/coll/bcast_latency device/coll/fcollect_latency
		device/coll/alltoall_latency device/coll/reduction_latency
		host/coll/barrier_on_stream host/coll/broadcast_on_stream host/coll/fcollect_on_stream
		host/coll/alltoall_on_stream host/coll/reduction_on_stream"
	# nvcc builds them side by side: one compile takes tens of seconds.
	for t in $tests; do
		name=$(basename "$t")
		[ -x "$build/$name" ] && continue
		srcf=$p/$t.cu
		[ -f "$srcf" ] || srcf=$p/$t.cpp
		nvcc -O3 -std=c++17 -arch=sm_90 -rdc=true -ccbin mpicxx -x cu -DNVSHMEMTEST_MPI_SUPPORT \
			-I"$nvh/include" -I"$p/common" -I"$(dirname "$srcf")" "$p/common/utils.cu" "$srcf" -o "$build/$name" \
			-L"$build/lib" -lnvshmem_host -L"$nvh/lib" -lnvshmem_device \
			-L/usr/local/cuda/lib64/stubs -lcuda -lnvidia-ml >"$build/$name.build.log" 2>&1 &
	done
	wait
	for t in $tests; do
		name=$(basename "$t")
		[ -x "$build/$name" ] && continue
		echo "perftests.sh: building $name failed:" >&2
		tail -15 "$build/$name.build.log" >&2
	done
	[ "$what" = build ] && exit 0
	for t in $tests; do
		name=$(basename "$t")
		[ -x "$build/$name" ] || continue
		# MPI starts the processes and hands out NVSHMEM's unique id.
		NVSHMEMTEST_USE_UID_BOOTSTRAP=1 NVSHMEM_MACHINE_READABLE_OUTPUT=1 \
			NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_REMOTE_TRANSPORT=none \
			timeout 120 mpirun --allow-run-as-root -np "$np" --bind-to none --mca pml ob1 --mca btl self,vader \
			--mca btl_vader_single_copy_mechanism none -x NVSHMEM_DISABLE_NVLS -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH \
			-x NVSHMEMTEST_USE_UID_BOOTSTRAP -x NVSHMEM_MACHINE_READABLE_OUTPUT \
			-x NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME -x NVSHMEM_REMOTE_TRANSPORT \
			"$build/$name" -b 8 -e "$max" >"$build/$name.log" 2>&1 || echo "perftests.sh: $name failed ($?)" >&2
		# "&&&& PERF job___scope___size__N___latency V -us" → a benchmark line.
		awk -v np="$np" '$1 == "&&&&" && $2 == "PERF" {
			n = split($3, f, "___"); size = f[3]; sub(/^size__/, "", size)
			printf "BenchmarkPerftest/np=%s/test=%s/scope=%s/size=%s \t1\t%s us\n", np, f[1], f[2], size, $4
		}' "$build/$name.log"
	done
	;;
names)
	# A test's figure beside symchan's of the same collective and bytes
	# per member: in a kernel (block scope, 32-bit elements) as
	# GPUCollectiveDevice, on a stream as GPUCollectiveOnStreamEvents (the
	# perftests time each call with events); NVIDIA's fcollect and
	# alltoall sizes count every member's block, its reductions are
	# integer sums (int32 beside symchan's float32 sum, int64 beside its
	# float64 sum).
	awk '/^BenchmarkPerftest\// {
		split($1, f, "/"); np = substr(f[2], 4); t = substr(f[3], 6); sc = substr(f[4], 7); size = substr(f[5], 6) + 0
		form = "GPUCollectiveDevice"; op = ""
		if (t ~ /_on_stream$/) form = "GPUCollectiveOnStreamEvents"
		if (t == "barrier_device" && sc == "block" || t == "barrier_on_stream") { op = "barrier"; size = 0 }
		else if (t == "bcast_device" && sc == "32-bit-block" || t == "broadcast_on_stream") op = "broadcast"
		else if (t == "fcollect_device" && sc == "32-bit-block" || t == "fcollect_on_stream") { op = "fcollect"; size /= np }
		else if (t == "alltoall_device" && sc == "32-bit-block" || t == "alltoall_on_stream") { op = "alltoall"; size /= np }
		else if (t == "device_reduction" && sc == "int32-sum-b" || t == "reduction_on_stream" && sc == "int-sum") op = "reduce-f32"
		else if (t == "device_reduction" && sc == "int64-sum-b") op = "reduce-f64"
		if (op != "" && size == int(size))
			printf "Benchmark%s/pes=%s/op=%s/size=%d/impl=perftest \t1\t%s us/op\n", form, np, op, size, $3
	}'
	;;
*)
	sed -n '8,25p' "$0" >&2
	exit 2
	;;
esac
