#!/usr/bin/env bash
# Runs on the GPU machine (no Go there), from .gpu/ beside the binaries
# scripts/gpu-build.sh made (and, for the PTX and the anchors, the
# repository's kernels/, scripts/ and bench/anchors/ one folder up):
#
#   .gpu/gpu-run.sh verify        # every suite on every backend: the device
#                                 # and backend tests, both conformance suites
#                                 # on cuda (a PE per GPU, then PEs sharing
#                                 # the GPUs) and under nvshmem (a process per
#                                 # GPU, mapped and forced-remote), the
#                                 # examples with -verify
#   .gpu/gpu-run.sh bench         # every GPU benchmark and NVIDIA's anchors
#                                 # (bench/anchors) in one call
#   .gpu/gpu-run.sh compare [OLD] # OLD's binaries (default old/, built from
#                                 # an earlier commit) and these, alternating,
#                                 # ROUNDS (3) rounds of BENCH (a regexp of
#                                 # GPU benchmarks) and the ring
#   .gpu/gpu-run.sh scale         # every GPU of the machine: the collectives
#                                 # at 2, 4 and all PEs beside NVSHMEM's and
#                                 # NVIDIA's perftests (scripts/perftests.sh;
#                                 # fetch them first), BenchmarkScale on cuda
#                                 # (2 … 1024 PEs sharing the GPUs), the
#                                 # large worlds (128 and 1024 PEs sharing the
#                                 # GPUs), ring and Jacobi on 1, 2, 4 … GPUs
#   .gpu/gpu-run.sh quick         # the backend tests and the suites on every
#                                 # GPU: a first look after a change
#
# Each step's log is /tmp/symchan-NAME.log; with $OUT (the device tool's
# folder) every benchmark line goes to $OUT/bench.txt, led by the date,
# machine, commit and command lines bench/results/ keeps, the logs to
# $OUT/logs.tgz, and regenerated PTX to $OUT/ptx.tgz. A short table ends
# the output. Where nvcc is there and kernels/ is beside .gpu/, the
# runtime's PTX is regenerated first (scripts/gpu-ptx.sh) and used through
# SYMCHAN_PTX_DIR, so runtime kernel changes are tested before their PTX
# is committed; SYMCHAN_EMBEDDED_PTX=1 keeps the PTX the binaries embed.
# The tests', benchmarks' and examples' kernels compile as they run
# (kernels.Compile, cached in ~/.cache/symchan/kernels).
set -uo pipefail
self=$(realpath "$0")
cd "$(dirname "$0")"
gpu=$(pwd)
repo=$(dirname "$gpu")
what=${1:-}
case "$what" in
verify | bench | compare | scale | quick) ;;
*)
	sed -n '5,27p' "$self" >&2
	echo "gpu-run.sh: unknown mode \"$what\"" >&2
	exit 2
	;;
esac
rm -f /tmp/symchan-*.log # this run's logs only
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
# One process per GPU under symrun; NVSHMEM over NVLink only.
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_REMOTE_TRANSPORT=none
# NVSHMEM's headers for programs compiled at run time (the pip package's
# unless NVSHMEM_HOME says otherwise).
nvh=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem
[ -z "${NVSHMEM_HOME:-}" ] && [ -d "$nvh/include" ] && export NVSHMEM_HOME=$nvh
# Under mpirun every rank needs the job's rendezvous secret.
export SYMCHAN_BOOTSTRAP_SECRET=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
ngpu=$(nvidia-smi -L | wc -l)
# Two PEs at least: on one GPU two PEs share it (cuda) and two processes
# share it (nvshmem, under MPS).
np=$((ngpu < 2 ? 2 : ngpu))
share=(SYMCHAN_CUDA_SHARE_GPUS=1)
# PEs sharing a GPU share its context's hardware queues: the most the
# driver gives, read as the process starts (pgas/cuda: EnvShareGPUs).
export CUDA_DEVICE_MAX_CONNECTIONS=${CUDA_DEVICE_MAX_CONNECTIONS:-32}
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader || true

if [ -z "${SYMCHAN_EMBEDDED_PTX:-}" ] && [ -x /usr/local/cuda/bin/nvcc ] && [ -f "$repo/kernels/symchan.cu" ]; then
	mkdir -p "$gpu/ptx" && "$repo/scripts/gpu-ptx.sh" "$gpu/ptx" >/tmp/symchan-ptx.log 2>&1 || {
		tail -20 /tmp/symchan-ptx.log
		exit 1
	}
	export SYMCHAN_PTX_DIR=$gpu/ptx
	[ -n "${OUT:-}" ] && tar czf "$OUT/ptx.tgz" -C "$gpu" ptx
fi

status=0
rows=()
# step NAME LIMIT COMMAND...: runs COMMAND with a timeout, its log in
# /tmp/symchan-NAME.log, its failures shown and a row of the table kept.
step() {
	local name=$1 limit=$2
	shift 2
	echo "== $name: $*"
	local start=$(date +%s%N)
	timeout "$limit" "$@" >"/tmp/symchan-$name.log" 2>&1
	local rc=$?
	grep -B2 -A12 -- "--- FAIL\|^panic:" "/tmp/symchan-$name.log" | head -60
	local r=PASS
	[ "$rc" -ne 0 ] && r="FAIL($rc)" && status=1
	rows+=("$(printf '%-30s %-9s %7d ms %5s passed' "$name" "$r" $((($(date +%s%N) - start) / 1000000)) "$(grep -c -- '--- PASS' "/tmp/symchan-$name.log")")")
	return "$rc"
}
# mps on|off: NVIDIA's MPS, which NVSHMEM processes sharing a GPU need.
mps() {
	[ "$ngpu" -ge "$np" ] && return
	export CUDA_MPS_PIPE_DIRECTORY=/tmp/symchan-mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/symchan-mps-log
	if [ "$1" = on ]; then
		mkdir -p "$CUDA_MPS_PIPE_DIRECTORY" "$CUDA_MPS_LOG_DIRECTORY" && nvidia-cuda-mps-control -d
	else
		echo quit | nvidia-cuda-mps-control
	fi
}
# suites NAME LIMIT [env or launcher words...]: both suites of tests.test.
suites() {
	local name=$1 limit=$2
	shift 2
	step "$name" "$limit" env "$@" ./tests.test -test.v -test.count=1 -test.short -test.timeout=$((limit - 10))s
}
nvshmem_suites() { # NAME LIMIT [env words]: the suites a process per PE
	local name=$1 limit=$2
	shift 2
	suites "$name" "$limit" "$@" SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np"
}
# anchors NAME LIMIT [VAR=VALUE...] MODE: scripts/anchors.sh MODE (NVIDIA's
# programs under bench/anchors, built with nvcc), where the tree is here.
anchors() {
	local name=$1 limit=$2
	shift 2
	[ -d "$repo/bench/anchors" ] || return 0
	local mode=${*: -1}
	step "$name" "$limit" env "${@:1:$#-1}" "$repo/scripts/anchors.sh" "$mode"
}

if [ "$what" = verify ] || [ "$what" = quick ]; then
	step device 120 ./device.test -test.v -test.count=1
	step gpuop 60 ./gpuop.test -test.v -test.count=1
	step pgas-cuda 120 ./cuda.test -test.v -test.count=1
	suites "suites-cuda-${ngpu}gpu" 300 SYMCHAN_TEST_BACKEND=cuda SYMCHAN_TEST_MAX_PES="$ngpu"
	mps on
	nvshmem_suites "suites-nvshmem-${np}proc" 200
	mps off
fi
if [ "$what" = verify ]; then
	# Every PE count of the suites (3 to 64), PEs sharing the GPUs.
	suites suites-cuda-shared 400 SYMCHAN_TEST_BACKEND=cuda "${share[@]}"
	mps on
	step "nvshmem-${np}proc" 120 ./symrun -n "$np" ./nvshmem.test -test.v -test.count=1
	# With no launcher: the test starts two processes from a unique id.
	step uid-world 120 ./nvshmem.test -test.v -test.count=1 -test.run '^TestUniqueIDWorld$'
	nvshmem_suites "suites-remote-${np}proc" 200 SYMCHAN_FORCE_REMOTE=1
	step "jacobi-nvshmem-${np}proc" 120 ./symrun -n "$np" ./jacobi -backend nvshmem -nx 4096 -niter 300 -verify
	step "devicering-nvshmem-${np}proc" 60 ./symrun -n "$np" ./devicering -backend nvshmem
	step "moe-nvshmem-${np}proc" 90 ./symrun -n "$np" ./moe -backend nvshmem -iters 5
	mps off
	step service-gpu 120 ./server.test -test.v -test.count=1
	step ring-cuda 60 env "${share[@]}" ./ring -backend cuda -pes "$np" -actors mixed -size 8,4K,1M -laps 20
	step jacobi-cuda 120 env "${share[@]}" ./jacobi -backend cuda -pes "$np" -nx 4096 -niter 300 -verify
	step devicering-cuda 60 env "${share[@]}" ./devicering -backend cuda -pes "$np"
	step pipeline-cuda 60 env "${share[@]}" ./pipeline -backend cuda -pes 2
	step moe-cuda 90 env "${share[@]}" ./moe -backend cuda -pes "$np" -iters 5
fi

if [ "$what" = bench ]; then
	[ "$ngpu" -lt 2 ] && export SYMCHAN_CUDA_SHARE_GPUS=1
	step bench-gpu 500 ./bench.test -test.run '^$' -test.bench GPU -test.benchtime 1x
	mps on
	step "bench-nvshmem-${np}proc" 300 ./symrun -n "$np" ./bench.test -test.run '^$' -test.bench 'NVSHMEM|GPUCollective' -gpu.backend nvshmem -test.benchtime 1x
	mps off
	step ring-cuda 120 ./ring -backend cuda -pes "$np" -size 8,4K,1M,64M -laps 1000
	step jacobi-cuda 240 ./jacobi -backend cuda -verify
	anchors anchors 500 all
fi

if [ "$what" = compare ]; then
	old=${2:-old}
	[ -d "$old" ] || {
		echo "gpu-run.sh compare: no folder $old of old binaries" >&2
		exit 2
	}
	[ "$ngpu" -lt 2 ] && export SYMCHAN_CUDA_SHARE_GPUS=1
	bench=${BENCH:-GPU(HostPingPong|ChanRoundTrip|FutureRoundTrip|WaitAnyWakeup|Collective(OnStream|Device|Blocking))$}
	for round in $(seq "${ROUNDS:-3}"); do
		for v in old new; do
			d=. ptx=()
			# old/ runs the PTX it embeds, not this tree's.
			[ "$v" = old ] && d=$old ptx=(-u SYMCHAN_PTX_DIR)
			step "cmp-$v-$round-bench" 300 env "${ptx[@]}" "$d/bench.test" -test.run '^$' -test.bench "$bench" -test.benchtime 1x
			step "cmp-$v-$round-ring" 120 env "${ptx[@]}" "$d/ring" -backend cuda -pes "$np" -size 8,4K,1M -laps 1000
		done
	done
	if [ -n "${OUT:-}" ]; then # the A/B file bench/results/ keeps: build: lines lead each build's
		for round in $(seq "${ROUNDS:-3}"); do
			for v in old new; do
				echo "build: $v"
				grep -hE "^Benchmark" "/tmp/symchan-cmp-$v-$round-bench.log"
			done
		done >"$OUT/compare.txt"
	fi
fi

if [ "$what" = scale ]; then
	cm=${COLL_MAX:-262144}
	step coll-cuda 400 env "${share[@]}" ./bench.test -test.run '^$' -test.bench 'GPUCollective(OnStream|OnStreamSync|Device|Blocking)$' -coll.max "$cm" -test.benchtime 1x
	mps on
	step "coll-nvshmem-${np}proc" 300 ./symrun -n "$np" ./bench.test -test.run '^$' -test.bench 'GPUCollective(OnStream|OnStreamSync|Device|Blocking)$' -gpu.backend nvshmem -coll.max "$cm" -test.benchtime 1x
	anchors coll-anchor-2proc 300 COLL_NP=2 COLL_MAX="$cm" coll
	[ "$np" -gt 2 ] && anchors "coll-anchor-${np}proc" 300 COLL_NP="$np" COLL_MAX="$cm" coll
	if [ -f "$repo/.gpu/perftest.tgz" ]; then
		step perftest-2proc 400 "$repo/scripts/perftests.sh" run 2 "$cm"
		[ "$np" -gt 2 ] && step "perftest-${np}proc" 300 "$repo/scripts/perftests.sh" run "$np" "$cm"
	fi
	mps off
	step scale-cuda 500 env "${share[@]}" ./bench.test -test.run '^$' -test.bench '^BenchmarkScale$' -scale.backend cuda -test.benchtime 1x
	step large-worlds 500 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" SYMCHAN_TEST_LARGE_WORLDS=1 ./tests.test -test.v -test.count=1 \
		-test.run 'TestConformance/(GPU|PGAS)/(DeviceMailboxFanIn|KernelActorEcho|CollectivesAtScale)$' -test.timeout=490s
	n=1
	while [ "$n" -le "$ngpu" ]; do
		step "jacobi-cuda-${n}gpu" 200 ./jacobi -backend cuda -pes "$n" -verify
		[ "$n" -ge 2 ] && step "ring-cuda-${n}gpu" 120 ./ring -backend cuda -pes "$n" -size 8,4K,1M,64M -laps 50
		n=$((n * 2))
	done
	anchors anchors-jacobi 300 ANCHOR_KERNELS=vec4 jacobi
fi

if [ -n "${OUT:-}" ]; then
	{
		echo "date: $(date -u +%Y-%m-%d)"
		echo "machine: ${MACHINE:-$(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | paste -sd, -)}"
		[ -z "${COMMIT:-}" ] && [ -f "$gpu/COMMIT" ] && COMMIT=$(cat "$gpu/COMMIT")
		echo "commit: ${COMMIT:-unknown}"
		echo "command: scripts/gpu-run.sh $*"
		cat /tmp/symchan-*.log 2>/dev/null | grep -hE "^(\[PE 0\] )?Benchmark" | sed 's/^\[PE 0\] //'
		# NVIDIA's perftests again, under symchan's benchmarks' names.
		cat /tmp/symchan-perftest-*.log 2>/dev/null | "$repo/scripts/perftests.sh" names
	} >"$OUT/bench.txt" || true
	(cd /tmp && tar czf "$OUT/logs.tgz" symchan-*.log) 2>/dev/null || true
fi
echo
echo "figures:"
cat /tmp/symchan-*.log 2>/dev/null | grep -hE "^(\[PE 0\] )?(anchor |Benchmark|[0-9]+ x [0-9]+: |verify|ring: )" | sed 's/^\[PE 0\] //' | head -200 || true
echo
printf '%s\n' "${rows[@]}"
exit $status
