#!/usr/bin/env bash
# Runs on the GPU machine (no Go there), from the repository root or from
# .gpu/: the binaries scripts/gpu-build.sh made, then a short table.
#
#   .gpu/gpu-run.sh tests    # device tests; both suites on 1 GPU and on all GPUs
#   .gpu/gpu-run.sh bench    # examples, GPU benchmarks, NVSHMEM anchors
#   .gpu/gpu-run.sh nvshmem  # the nvshmem backend under symrun
#   .gpu/gpu-run.sh quick    # backend tests, suites on all GPUs (and
#                            # shared), host-path benchmarks, nvshmem suites
#   .gpu/gpu-run.sh scale    # the 4-GPU issue on every GPU of the machine:
#                            # suites, ring on 2 and all GPUs, Jacobi on 1, 2,
#                            # 4 … GPUs and NVSHMEM's Jacobi beside it
#   .gpu/gpu-run.sh faults   # the faults issue: both suites on all GPUs and
#                            # under nvshmem; the soak (200k messages) on 8
#                            # shared PEs and under nvshmem; nvshmem under
#                            # mpirun; host-path benchmarks
#   .gpu/gpu-run.sh faults2  # the rest of it: suites on 1 GPU and shared
#   .gpu/gpu-run.sh compare  # before and after: the host-path GPU benchmarks,
#                            # the ring and Jacobi on cuda and the nvshmem
#                            # benchmarks, alternating between the binaries
#                            # in .gpu/old/ (built from an earlier commit) and
#                            # these, three rounds; labelled figures last
#   .gpu/gpu-run.sh service  # the services issue: the service and start/stop
#                            # suites on cuda and nvshmem, examples/service's
#                            # GPU test, the per-call cost beside a direct
#                            # call of the kernel
#   .gpu/gpu-run.sh load     # examples/service under vegeta on cuda beside
#                            # the worker-pool anchor (LOAD_DURATION per rate)
#   .gpu/gpu-run.sh latency  # the latency issue on the GPUs at hand: the
#                            # floor anchor, the hop's stages, the messaging
#                            # benchmarks and the ring before (old/) and
#                            # after, alternating, two rounds (the ring:
#                            # 1000 laps, enough to read its p99)
#   .gpu/gpu-run.sh latency-suites  # the wait and actors suites on cuda
#                            # (PEs sharing the GPU when there is one) and
#                            # under nvshmem
#   .gpu/gpu-run.sh routines # the routine-set issue: the device routines'
#                            # test and the GPU suite (device mailboxes,
#                            # fan-in), the PGAS suite on cuda (PEs sharing the
#                            # GPU when there is one) and under nvshmem, and
#                            # the routines' benchmarks on host, cuda and
#                            # nvshmem
#   .gpu/gpu-run.sh actors   # the GPU-resident actors issue: the GPU suite
#                            # (device mailboxes, kernel actors) on cuda and
#                            # under nvshmem, the ring with Go, kernel and
#                            # mixed actors, the kernel-actor ping-pong beside
#                            # the device one (and NVSHMEM's on 2+ GPUs), the
#                            # message rate of many warps to one receiver
#   .gpu/gpu-run.sh guarantees # the guarantees issue: its regression tests
#                            # and a short randomized fault run on cuda (PEs
#                            # sharing the GPUs) and under nvshmem (MPS
#                            # started when processes share a GPU)
#   .gpu/gpu-run.sh guarantees-suites # both suites on cuda (PEs sharing
#                            # the GPUs) and under nvshmem, as above
#   .gpu/gpu-run.sh remote   # the forced-remote mode under nvshmem: the
#                            # backend's tests, the three suites, the ring
#                            # with Go, kernel and mixed actors, Jacobi -verify
#   .gpu/gpu-run.sh launch   # nvshmem under mpirun: NVSHMEM's PMIx bootstrap
#                            # (no rendezvous given), with the forced-remote
#                            # mode, and the rendezvous; the suites under symrun
#   .gpu/gpu-run.sh worlds   # worlds past 64 PEs on cuda: the agent's and
#                            # the backend's tests, the waits and the GPU
#                            # suite (PEs sharing the GPUs), the
#                            # device-mailbox and kernel-actor tests with
#                            # 128 and 1024 PEs
#   .gpu/gpu-run.sh worlds-nvshmem # the same under nvshmem: the GPU suite,
#                            # those tests with 8 processes (mapped and
#                            # forced-remote); AllToAll forced-remote and
#                            # mapped; the kernel-actor ping-pong before
#                            # (old/) and after
#   .gpu/gpu-run.sh programs # the kernel programs (pgas.GPU.Load): the
#                            # GPU suite, the ring's and Jacobi's kernels,
#                            # examples/service and the GPU benchmarks'
#                            # kernels, on cuda and under nvshmem (mapped
#                            # and forced-remote)
#   .gpu/gpu-run.sh service-wire # the service's calls between processes
#                            # (wire version 2) and examples/service, on
#                            # cuda and under nvshmem (mapped, forced-remote)
#   .gpu/gpu-run.sh paths    # after a change to pgas's shared paths: both
#                            # suites, the forced-remote PGAS and actors
#                            # suites, the round trips from Go on both backends
#   .gpu/gpu-run.sh userkernel # users' kernels compiled with NVRTC at run
#                            # time and launched with Sym arguments, the
#                            # routines with a symmetric source, and
#                            # examples/devicering and examples/pipeline, on
#                            # cuda and under nvshmem, mapped and
#                            # forced-remote; a user kernel's device ping-pong
#                            # beside symchan's own, 3 rounds
#   .gpu/gpu-run.sh sealed   # sealed mailbox slots (issue 33): the GPU
#                            # suite on cuda and under nvshmem (mapped and
#                            # forced-remote), the actors suite's messaging
#                            # tests, the ring with Go, kernel and mixed
#                            # actors; then the floor, the stream from Go and
#                            # its NVSHMEM anchor, and, alternating old/ and
#                            # these, two rounds of the round trips from Go,
#                            # the kernel-actor ping-pong and the ring
#   .gpu/gpu-run.sh sealed-checks # after sealed slots: both suites on
#                            # cuda and under nvshmem, the many-warps message
#                            # rate, the host-driven ping-pong and the stream
#                            # from Go, each beside its NVSHMEM anchor, the
#                            # ring with kernel actors
#   .gpu/gpu-run.sh tail     # the round trips' tail (issue 33): the agent's
#                            # and the GPU and messaging suites on cuda and
#                            # under nvshmem; then, alternating old/ and
#                            # these, two rounds of the round trips from Go
#                            # (with their histograms and the slow ones'
#                            # spacing) and the ring; these with GOGC=off
#   .gpu/gpu-run.sh verify   # after a change that moves no figure: the
#                            # device package's, gpuop's and both backends'
#                            # tests (nvshmem's also with no launcher, from a
#                            # unique id), both suites on cuda (PEs sharing
#                            # the GPUs) and under nvshmem, the examples with
#                            # -verify; VERIFY_PART=cuda or nvshmem runs
#                            # one backend's half (each fits one call)
#   .gpu/gpu-run.sh streams  # stream-ordered routines (pgas.Stream): their
#                            # tests and the graph replay on cuda and under
#                            # nvshmem (mapped and forced-remote), both
#                            # suites, the on-stream ping-pong beside
#                            # NVSHMEM's, 3 rounds
#   .gpu/gpu-run.sh collectives # team collectives on a stream and in
#                            # users' kernels: the device routines' test,
#                            # their conformance tests on cuda (PEs sharing
#                            # the GPUs) and under nvshmem (mapped and
#                            # forced-remote), the benchmarks beside
#                            # NVSHMEM's (on 2+ GPUs), the pipeline on a
#                            # shared GPU with 8 and 32 hardware queues
#   .gpu/gpu-run.sh collectives-suites # after the collectives: both suites
#                            # on cuda (PEs sharing the GPUs) and under
#                            # nvshmem, the pipeline on a shared GPU with 8
#                            # and 32 hardware queues, the collectives'
#                            # benchmark
#   .gpu/gpu-run.sh shared-hang # PEs sharing one GPU whose stream waits
#                            # spin for each other (the hang of lazily
#                            # loaded kernels): the stream and team tests
#                            # and the pipeline at 2 and 4 PEs (again with
#                            # CUDA_MODULE_LOADING=EAGER where one fails),
#                            # devicering, the cuda suites on the shared GPU
#   .gpu/gpu-run.sh userkernel-anchors # a user's kernel from source to
#                            # launch, from Go and from CuPy and Numba
#                            # (bench/anchors/python_kernels.py), 3 rounds
#   .gpu/gpu-run.sh targets  # issue 33's targets in one call: the floor,
#                            # the round trips, stream and ping-pong from
#                            # Go, WaitAny, kernel actors, many warps, the
#                            # ring's hop, NVSHMEM's anchors on 2+ GPUs
#   .gpu/gpu-run.sh device-api # the device API in NVSHMEM's terms: its
#                            # conformance tests and the collectives on a
#                            # stream, on cuda and under nvshmem (mapped,
#                            # forced-remote), the backend's test
#   .gpu/gpu-run.sh mismatch # collectives that reject members who
#                            # disagree, registration under nvshmem, and
#                            # the cost against old/: barrier, small ones
#   .gpu/gpu-run.sh coll-worlds # the collectives on a stream, in a kernel
#                            # and blocking from Go at 2, 4 and all PEs
#                            # (cuda) and a process per GPU (nvshmem),
#                            # NVSHMEM's beside them (COLL_MAX: 256 KiB)
#   .gpu/gpu-run.sh abort    # the GPU failure paths: backend tests, the
#                            # failure and stream tests on cuda (a PE per
#                            # GPU, shared), every suite under nvshmem
#                            # (mapped, forced-remote)
#   .gpu/gpu-run.sh abort-bench # a stream's wait and small collectives,
#                            # old/ against these, alternating
#   .gpu/gpu-run.sh noregress # old/ (an earlier commit's build) against these,
#                            # alternating, two rounds: ping-pongs, round
#                            # trips from Go, PutSym, device block put, ring
#   .gpu/gpu-run.sh          # tests, bench and nvshmem
#
# When nvcc is there and kernels/ is beside .gpu/, every program's PTX is
# regenerated first into .gpu/ptx and used through SYMCHAN_PTX_DIR (and
# copied to $OUT/ptx.tgz when set), so kernel changes are tested before their
# PTX is committed; SYMCHAN_EMBEDDED_PTX=1 keeps the PTX the binaries
# embed.
set -uo pipefail
cd "$(dirname "$0")"
gpu=$(pwd)
repo=$(dirname "$gpu")
what=${1:-all}
# The modes are the ones this script's "if" lines name: a mistyped one
# prints them and fails, rather than running nothing and passing.
modes=$(grep -o '"\$what" = [a-z0-9-]*' "$0" | awk '{print $3}' | sort -u)
if ! grep -qx -- "$what" <<<"$modes"; then
	echo "gpu-run.sh: unknown mode \"$what\"; the modes: $(echo $modes)" >&2
	exit 2
fi
# This run's logs only: the figures and $OUT/logs gather /tmp/symchan-*.log.
rm -f /tmp/symchan-*.log
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
ngpu=$(nvidia-smi -L | wc -l)
# Modes that pair PEs run at least two: on one GPU two PEs share it (cuda)
# and two processes share it (nvshmem). With share, PE i runs on GPU i mod
# #GPUs: one PE per GPU up to the number of GPUs, shared past it (the
# suites' 3- to 64-PE worlds, 4-PE benchmarks).
np=$((ngpu < 2 ? 2 : ngpu))
share=(SYMCHAN_CUDA_SHARE_GPUS=1)
nvidia-smi --query-gpu=index,name,memory.total,memory.used --format=csv,noheader || true
if [ -z "${SYMCHAN_EMBEDDED_PTX:-}" ] && [ -x /usr/local/cuda/bin/nvcc ] && [ -f "$repo/kernels/symchan.cu" ]; then
	mkdir -p "$gpu/ptx" && "$repo/scripts/gpu-ptx.sh" "$gpu/ptx" && export SYMCHAN_PTX_DIR=$gpu/ptx
	[ -n "${OUT:-}" ] && tar czf "$OUT/ptx.tgz" -C "$gpu" ptx
fi
status=0
rows=()
step() { # name, timeout, command...
	local name=$1 limit=$2
	shift 2
	echo "== $name: $*"
	local start=$(date +%s%N) r
	timeout "$limit" "$@" > "/tmp/symchan-$name.log" 2>&1
	local rc=$?
	grep -v "^=== \(RUN\|PAUSE\|CONT\)\|--- SKIP\|needs [0-9]* PEs" "/tmp/symchan-$name.log" | tail -25
	grep -A12 -- "--- FAIL" "/tmp/symchan-$name.log" | head -80
	if [ "$rc" -eq 0 ]; then r=PASS; else r="FAIL($rc)"; status=1; fi
	local ms=$((($(date +%s%N) - start) / 1000000))
	local skips=$(grep -c -- "--- SKIP" "/tmp/symchan-$name.log")
	local passes=$(grep -c -- "--- PASS" "/tmp/symchan-$name.log")
	rows+=("$(printf '%-26s %s %8d ms  %4s passed %4s skipped' "$name" "$r" "$ms" "$passes" "$skips")")
	return "$rc"
}
# The steps more than one mode runs. suites NAME LIMIT [env or launcher
# words...]: both suites of tests.test, its own timeout 10 s inside LIMIT.
suites() {
	local name=$1 limit=$2
	shift 2
	step "$name" "$limit" env "$@" ./tests.test -test.v -test.count=1 -test.short -test.timeout=$((limit - 10))s
}
# ringhop LOG NAME: examples/ring's table in LOG (size hops median p99
# p99.9 GB/s) as benchmark lines NAME/size=…, for bench.txt.
ringhop() {
	awk -v name="$2" 'function ns(d,  v, u) { v = d + 0; u = d; sub(/^[0-9.]+/, "", u)
			return v * ((u == "ns") ? 1 : (u == "µs") ? 1e3 : (u == "ms") ? 1e6 : 1e9) }
		$1 ~ /^[0-9]+$/ && NF == 6 { printf "%s/size=%s %d %.0f ns/op %.3f us/hop-p99 %.3f us/hop-p99.9\n", name, $1, $2, ns($3), ns($4) / 1e3, ns($5) / 1e3 }' "$1"
}
# version V sets d, the folder of V's binaries (old: old/, built from an
# earlier commit; new: these), and ptx, env's arguments for them: old/
# runs the PTX it embeds, not the one made from these sources.
version() {
	d=. ptx=()
	if [ "$1" = old ]; then d=old ptx=(-u SYMCHAN_PTX_DIR); fi
}
# One process per GPU under symrun; NVSHMEM over NVLink only.
export NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME=lo NVSHMEM_REMOTE_TRANSPORT=none
# NVSHMEM's headers, for programs compiled at run time (kernels.Compile's
# nvshmem variant): the pip package's, unless NVSHMEM_HOME says otherwise.
nvh=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem
[ -z "${NVSHMEM_HOME:-}" ] && [ -d "$nvh/include" ] && export NVSHMEM_HOME=$nvh
# Under mpirun every rank needs the job's rendezvous secret (symrun makes its own).
export SYMCHAN_BOOTSTRAP_SECRET=$(od -An -tx1 -N16 /dev/urandom | tr -d ' \n')
nvshmem_suites() { suites "suites-nvshmem-${ngpu}proc" "$1" SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$ngpu" ./symrun -n "$ngpu"; }
# bybuild FILE ROUNDS NAME...: the benchmark lines of the alternating
# old/new steps' logs (/tmp/symchan-NAME-BUILD-ROUND.log), each build's
# led by a build: line, as bench/results/ keeps them.
bybuild() {
	local file=$1 rounds=$2
	shift 2
	for round in $(seq "$rounds"); do
		for v in old new; do
			echo "build: $v"
			for name in "$@"; do
				grep -h "^Benchmark" "/tmp/symchan-$name-$v-$round.log"
			done
		done
	done > "$file"
}
# conformance NAME LIMIT REGEX: the conformance tests REGEX picks on cuda
# (PEs sharing the GPUs past their number), then under nvshmem, mapped
# and forced-remote (under MPS where processes share a GPU); each step's
# own timeout 10 s inside LIMIT.
conformance() {
	local name=$1 limit=$2 re=$3
	local run=(./tests.test -test.v -test.count=1 -test.run "$re" -test.timeout=$((limit - 10))s)
	step "$name-cuda" "$limit" env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" "${run[@]}"
	mps on
	step "$name-nvshmem-${np}proc" "$limit" env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" "${run[@]}"
	step "$name-remote-${np}proc" "$limit" env SYMCHAN_FORCE_REMOTE=1 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" "${run[@]}"
	mps off
}
nvshmem_bench() { step "bench-nvshmem-${ngpu}proc" "$1" ./symrun -n "$ngpu" ./bench.test -test.run '^$' -test.bench NVSHMEM -test.benchtime 1x; }
if [ "$what" = quick ]; then
	step gpuop 60 ./gpuop.test -test.v -test.count=1
	step pgas-cuda 90 ./cuda.test -test.v -test.count=1
	step bench-gpu-host 150 ./bench.test -test.run '^$' -test.bench 'GPU(Put|HostPingPong|ChanRoundTrip|FutureRoundTrip|WaitAnyWakeup)' -test.benchtime 1x
	suites "suites-cuda-${ngpu}gpu" 150 SYMCHAN_TEST_BACKEND=cuda SYMCHAN_TEST_MAX_PES="$ngpu"
	nvshmem_suites 150
	nvshmem_bench 120
	suites suites-cuda-shared 150 SYMCHAN_TEST_BACKEND=cuda SYMCHAN_CUDA_SHARE_GPUS=1
fi
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
if [ "$what" = guarantees ]; then
	g='TestConformance/(PGAS|Actors)/(PutRacingFree|PutFromPeerRacingFree|AllocCancelledThenNextCall|FailureMidLoopSameError|ArgumentInvalidOnOneMember|RecvAfterEverySenderClosed|ActorsAfterWorldEnded|ServiceAfterStop)$'
	step guarantees-cuda 150 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.run "$g" -test.timeout=140s
	step faults-cuda 200 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/Actors/RandomFaults$' -faultworlds "${FAULT_WORLDS:-40}" -test.timeout=190s
	mps on
	step guarantees-nvshmem-${np}proc 120 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run "$g" -test.timeout=110s
	step faults-nvshmem-${np}proc 150 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/Actors/RandomFaults$' -faultworlds "${FAULT_WORLDS_NVSHMEM:-20}" -test.timeout=140s
	mps off
fi
if [ "$what" = remote ]; then
	# The forced-remote mode (pgas.Config.ForceRemote): every other PE
	# reached only through NVSHMEM, two processes.
	mps on
	rr='TestConformance/(PGAS|Actors)/'
	step remote-nvshmem-unit 60 env SYMCHAN_FORCE_REMOTE=1 ./symrun -n "$np" ./nvshmem.test -test.v -test.count=1
	step remote-pgas-nvshmem 200 env SYMCHAN_FORCE_REMOTE=1 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.short -test.run "$rr" -test.timeout=190s
	step remote-gpu-nvshmem 200 env SYMCHAN_FORCE_REMOTE=1 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/GPU/' -test.timeout=190s
	for a in go kernel mixed; do
		step remote-ring-$a 60 env SYMCHAN_FORCE_REMOTE=1 ./symrun -n "$np" ./ring -backend nvshmem -actors $a -laps 20
	done
	step remote-jacobi 120 env SYMCHAN_FORCE_REMOTE=1 ./symrun -n "$np" ./jacobi -backend nvshmem -verify
	mps off
fi
if [ "$what" = worlds ]; then
	big='TestConformance/GPU/(DeviceMailboxFanIn|KernelActorEcho)'
	step worlds-gpuop 90 ./gpuop.test -test.v -test.count=1
	step worlds-pgas-cuda 90 ./cuda.test -test.v -test.count=1
	step worlds-waits-cuda 120 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/PGAS/(Wait|Test|Signal)' -test.timeout=110s
	step worlds-gpu-suite-cuda 200 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/GPU' -test.timeout=190s
	step worlds-large-cuda 200 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" SYMCHAN_TEST_LARGE_WORLDS=1 ./tests.test -test.v -test.count=1 -test.run "$big/(128|1024)\$" -test.timeout=190s
fi
# service_try N COMMAND…: examples/service started by COMMAND (which gets
# -addr and -drain), asked for a solve on each of PEs 0 … N-1 (under
# symrun a call into each process), then stopped with SIGTERM.
service_try() {
	local n=$1 log=/tmp/symchan-service-try.out addr="" pe
	shift
	"$@" -addr 127.0.0.1:0 -drain 500ms > "$log" 2>&1 &
	local pid=$!
	for _ in $(seq 100); do
		addr=$(grep -h '"listening"' "$log" | sed 's/.*"addr":"\([^"]*\)".*/\1/' | head -1)
		[ -n "$addr" ] && break
		sleep 0.2
	done
	[ -n "$addr" ] || { cat "$log"; kill "$pid"; return 1; }
	for pe in $(seq 0 $((n - 1))); do
		curl -sf -d "{\"n\":64,\"iters\":50,\"pe\":$pe}" "http://$addr/v1/jacobi" | tee -a /dev/stderr | grep -q "\"pe\":$pe" || { kill "$pid"; cat "$log"; return 1; }
	done
	kill -TERM "$pid"
	wait "$pid"
}
# The service on cuda (2 PEs sharing the GPUs where there is one), and
# under symrun in the forced-remote mode, one process per PE.
svc_cuda="$(declare -f service_try); service_try 2 env SYMCHAN_CUDA_SHARE_GPUS=1 ./service -backend cuda -pes 2"
svc_across="$(declare -f service_try); service_try $np env SYMCHAN_FORCE_REMOTE=1 ./symrun -n $np ./service -backend nvshmem"
if [ "$what" = programs ]; then
	# The kernel programs (kernels.Program) loaded with pgas.GPU.Load: every
	# test, benchmark and example kernel, on cuda and under nvshmem
	# (mapped and forced-remote).
	step prog-pgas-cuda 90 ./cuda.test -test.v -test.count=1
	step prog-gpu-suite-cuda 200 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/GPU' -test.timeout=190s
	step prog-ring-kernel-cuda 60 env "${share[@]}" ./ring -backend cuda -pes "$np" -actors kernel -size 8,4K,1M -laps 50
	step prog-ring-mixed-cuda 60 env "${share[@]}" ./ring -backend cuda -pes 4 -actors mixed -size 8,64K -laps 50
	step prog-jacobi-cuda 120 ./jacobi -backend cuda -pes 1 -nx 4096 -niter 300 -verify
	step prog-service-cuda 60 bash -c "$svc_cuda"
	step prog-bench-gpu 150 env CUDA_DEVICE_MAX_CONNECTIONS=32 "${share[@]}" ./bench.test -test.run '^$' -test.bench 'GPU(ActorPingPong|DevicePingPong|DevicePutBlock|ActorMessageRate)' -test.benchtime 1x
	mps on
	step prog-gpu-suite-nvshmem 150 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/GPU' -test.timeout=140s
	step prog-gpu-suite-remote 150 env SYMCHAN_FORCE_REMOTE=1 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/GPU' -test.timeout=140s
	step prog-ring-kernel-remote 60 env SYMCHAN_FORCE_REMOTE=1 ./symrun -n "$np" ./ring -backend nvshmem -actors kernel -size 8,4K -laps 20
	step prog-jacobi-remote 120 env SYMCHAN_FORCE_REMOTE=1 ./symrun -n "$np" ./jacobi -backend nvshmem -nx 4096 -niter 300 -verify
	step prog-service-remote 90 bash -c "$svc_across"
	mps off
fi
if [ "$what" = service-wire ]; then
	# The service's calls between processes (request wire version 2, with
	# what a Carrier carries) and the template's drain: the service suites
	# under nvshmem, mapped and forced-remote, and examples/service across
	# processes and on cuda.
	svc='TestConformance/(Actors|PGAS)/(Service|StartStopCycles)'
	step wire-service-cuda 150 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.run "$svc" -test.timeout=140s
	step wire-service-http-cuda 60 bash -c "$svc_cuda"
	mps on
	for f in 0 1; do
		step wire-service-nvshmem-remote$f 150 env SYMCHAN_FORCE_REMOTE=$f SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run "$svc" -test.timeout=140s
	done
	step wire-service-http-remote 90 bash -c "$svc_across"
	mps off
fi
if [ "$what" = worlds-nvshmem ]; then
	big='TestConformance/GPU/(DeviceMailboxFanIn|KernelActorEcho)'
	mps on
	step remote-service 90 bash -c "$svc_across"
	step remote-soak 150 env SYMCHAN_FORCE_REMOTE=1 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/Actors/ActorsSoak' -test.timeout=140s
	step worlds-gpu-suite-nvshmem-${np}proc 150 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/GPU' -test.timeout=140s
	for f in 0 1; do
		step worlds-nvshmem-8proc-remote$f 150 env SYMCHAN_FORCE_REMOTE=$f SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS=8 ./symrun -n 8 ./tests.test -test.v -test.count=1 -test.run "$big" -test.timeout=140s
	done
	step worlds-strided-remote 120 env SYMCHAN_FORCE_REMOTE=1 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/PGAS/(Strided|AllToAll|TeamSplitStrided|FCollect)' -test.timeout=110s
	for f in 1 0; do
		step worlds-alltoall-remote$f 120 env SYMCHAN_FORCE_REMOTE=$f SYMCHAN_BACKEND=nvshmem ./symrun -n 2 ./bench.test -test.run '^$' -test.bench 'AllToAll|WorldBarrier' -test.benchtime 50x -test.count 3
	done
	mps off
	for round in 1 2; do
		for v in old new; do
			[ -d old ] || [ "$v" = new ] || continue
			version "$v"
			step "worlds-$v-$round-actor" 90 env "${ptx[@]}" "${share[@]}" "$d/bench.test" -test.run '^$' -test.bench 'GPUActorPingPong' -test.benchtime 1x
		done
	done
fi
if [ "$what" = launch ]; then
	# Under mpirun: without SYMCHAN_BOOTSTRAP NVSHMEM starts with its MPI
	# plugin; with SYMCHAN_BOOTSTRAP, through symchan's rendezvous. (Its
	# PMIx plugin, NVSHMEM_BOOTSTRAP_PMI=PMIX, needs the PMIx ABI it was
	# built against; the GPU machines' PMIx 4 lacks pmix_value_load.)
	mps on
	mpi=(mpirun --allow-run-as-root -np "$np" --bind-to none --mca pml ob1 --mca btl self,vader
		--mca btl_vader_single_copy_mechanism none -x NVSHMEM_DISABLE_NVLS -x NCCL_NVLS_ENABLE
		-x NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME -x NVSHMEM_REMOTE_TRANSPORT -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY)
	step launch-mpirun-mpi 90 "${mpi[@]}" ./nvshmem.test -test.v -test.count=1
	step launch-mpirun-mpi-suites 200 "${mpi[@]}" -x SYMCHAN_TEST_BACKEND=nvshmem -x SYMCHAN_TEST_PROCS="$np" ./tests.test -test.v -test.count=1 -test.short -test.timeout=190s
	step launch-mpirun-mpi-remote 120 "${mpi[@]}" -x SYMCHAN_FORCE_REMOTE=1 -x SYMCHAN_TEST_BACKEND=nvshmem -x SYMCHAN_TEST_PROCS="$np" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/(PGAS|GPU)/' -test.timeout=110s
	step launch-mpirun-rendezvous 90 "${mpi[@]}" -x SYMCHAN_BOOTSTRAP=127.0.0.1:29533 -x SYMCHAN_BOOTSTRAP_SECRET ./nvshmem.test -test.v -test.count=1
	step launch-symrun-suites 200 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.short -test.timeout=190s
	mps off
fi
if [ "$what" = userkernel ]; then
	# Users' kernels compiled with NVRTC at run time (kernels.Compile),
	# launched with Sym arguments (pgas.Launch), and the routines with a
	# symmetric source (PutSignalSym, IPutSym, …), on both backends.
	ls /usr/local/cuda/lib64/libnvrtc* 2>&1 | head -3
	uk='TestConformance/(GPU|PGAS)/(UserKernel|SymmetricSources)$'
	step userkernel-cuda 120 env SYMCHAN_TEST_BACKEND=cuda SYMCHAN_CUDA_SHARE_GPUS=1 ./tests.test -test.v -test.count=1 -test.run "$uk" -test.timeout=110s
	mps on
	step userkernel-nvshmem 120 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run "$uk" -test.timeout=110s
	step userkernel-nvshmem-remote 120 env SYMCHAN_FORCE_REMOTE=1 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run "$uk" -test.timeout=110s
	step devicering-nvshmem 120 ./symrun -n "$np" ./devicering -backend nvshmem
	step devicering-nvshmem-remote 120 env SYMCHAN_FORCE_REMOTE=1 ./symrun -n "$np" ./devicering -backend nvshmem
	step pipeline-nvshmem 120 ./symrun -n "$np" ./pipeline -backend nvshmem
	step pipeline-nvshmem-remote 120 env SYMCHAN_FORCE_REMOTE=1 ./symrun -n "$np" ./pipeline -backend nvshmem
	mps off
	step devicering-cuda 60 env "${share[@]}" ./devicering -backend cuda -pes "$np"
	step pipeline-cuda 60 env "${share[@]}" ./pipeline -backend cuda -pes "$np"
	step pipeline-cuda-4 60 env SYMCHAN_CUDA_SHARE_GPUS=1 ./pipeline -backend cuda -pes 4 -chunks 64
	# The PEs' streams share one context on a shared GPU: with more
	# hardware queues, does a waiting stream still hold the other's
	# signal behind it? (It hung with the default 8 on one H100.)
	step pipeline-cuda-conn32 60 env CUDA_DEVICE_MAX_CONNECTIONS=32 SYMCHAN_CUDA_SHARE_GPUS=1 ./pipeline -backend cuda -pes 2
	# A user's kernel against symchan's own: the device put-with-signal
	# ping-pong, three rounds.
	for round in 1 2 3; do
		step "userkernel-pingpong-$round" 120 env "${share[@]}" ./bench.test -test.run '^$' -test.bench 'GPUDevicePingPong/kind=put-signal-8B/impl=symchan(-user-kernel)?$' -test.benchtime 1x
	done
fi
if [ "$what" = verify ] && [ "${VERIFY_PART:-cuda}" != nvshmem ]; then
	step device 120 ./device.test -test.v -test.count=1
	step gpuop 60 ./gpuop.test -test.v -test.count=1
	step pgas-cuda 120 ./cuda.test -test.v -test.count=1
	suites suites-cuda-shared 300 SYMCHAN_TEST_BACKEND=cuda "${share[@]}"
	step ring-cuda 60 env "${share[@]}" ./ring -backend cuda -pes "$np" -actors mixed -size 8,4K,1M -laps 20
	step jacobi-cuda 120 env "${share[@]}" ./jacobi -backend cuda -pes "$np" -nx 4096 -niter 300 -verify
	step devicering-cuda 60 env "${share[@]}" ./devicering -backend cuda -pes "$np"
fi
if [ "$what" = verify ] && [ "${VERIFY_PART:-nvshmem}" != cuda ]; then
	mps on
	step "nvshmem-${np}proc" 120 ./symrun -n "$np" ./nvshmem.test -test.v -test.count=1
	# With no launcher: the test starts two processes from a unique id
	# (under symrun it skips itself).
	step uid-world 120 ./nvshmem.test -test.v -test.count=1 -test.run '^TestUniqueIDWorld$'
	suites "suites-nvshmem-${np}proc" 230 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np"
	step "jacobi-nvshmem-${np}proc" 120 ./symrun -n "$np" ./jacobi -backend nvshmem -nx 4096 -niter 300 -verify
	step "devicering-nvshmem-${np}proc" 60 ./symrun -n "$np" ./devicering -backend nvshmem
	mps off
fi
if [ "$what" = streams ]; then
	[ "$ngpu" -lt 2 ] && export SYMCHAN_CUDA_SHARE_GPUS=1
	sr='TestConformance/(PGAS|GPU)/(StreamOrdered|StreamGraph)$'
	step streams-cuda 120 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.run "$sr" -test.timeout=110s
	suites suites-cuda-shared 300 SYMCHAN_TEST_BACKEND=cuda "${share[@]}"
	mps on
	step "streams-nvshmem-${np}proc" 120 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run "$sr" -test.timeout=110s
	step "streams-remote-${np}proc" 120 env SYMCHAN_FORCE_REMOTE=1 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run "$sr" -test.timeout=110s
	suites "suites-nvshmem-${np}proc" 230 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np"
	for round in 1 2 3; do
		step "streams-pingpong-$round" 120 ./bench.test -test.run '^$' -test.bench 'GPUHostPingPong' -test.benchtime 1x
		[ -d "$repo/bench/anchors" ] && step "streams-anchor-$round" 150 env ANCHOR_PROGRAMS=nvshmem_bench "$repo/scripts/anchors.sh" host
	done
	mps off
fi
if [ "$what" = collectives ]; then
	cr='TestConformance/(PGAS|GPU)/(StreamOrdered|StreamCollectives|DeviceTeams|StreamGraph|UserKernel)$'
	step device-routines 90 env "${share[@]}" ./cuda.test -test.v -test.count=1 -test.run 'TestDevice(Routines|API)$'
	conformance coll 150 "$cr"
	step coll-bench 200 env "${share[@]}" ./bench.test -test.run '^$' -test.bench 'GPUCollective' -test.benchtime 1x
	[ "$ngpu" -ge 2 ] && [ -d "$repo/bench/anchors" ] && step coll-anchor 200 env ANCHOR_PROGRAMS=nvshmem_coll "$repo/scripts/anchors.sh" coll
	step pipeline-cuda 45 env SYMCHAN_CUDA_SHARE_GPUS=1 ./pipeline -backend cuda -pes 2
	step pipeline-cuda-conn32 45 env CUDA_DEVICE_MAX_CONNECTIONS=32 SYMCHAN_CUDA_SHARE_GPUS=1 ./pipeline -backend cuda -pes 2
fi
if [ "$what" = collectives-suites ]; then
	step pipeline-cuda-shared 45 env SYMCHAN_CUDA_SHARE_GPUS=1 ./pipeline -backend cuda -pes 2
	step pipeline-cuda-shared-conn32 45 env CUDA_DEVICE_MAX_CONNECTIONS=32 SYMCHAN_CUDA_SHARE_GPUS=1 ./pipeline -backend cuda -pes 2
	suites suites-cuda-shared 230 SYMCHAN_TEST_BACKEND=cuda "${share[@]}"
	mps on
	suites "suites-nvshmem-${np}proc" 180 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np"
	mps off
	step coll-bench 100 env "${share[@]}" ./bench.test -test.run '^$' -test.bench 'GPUCollective' -test.benchtime 1x
fi
if [ "$what" = shared-hang ]; then
	# PEs sharing one GPU's context, whose stream waits spin until another
	# PE's signal lands: the stream and team tests and the pipeline, as
	# built (modules resolve their kernels when loaded); where one fails,
	# the same with CUDA_MODULE_LOADING=EAGER for comparison. Then the
	# cuda suites on the shared GPU and the examples that run kernels.
	sh='TestConformance/(PGAS|GPU)/(StreamOrdered|StreamCollectives|DeviceTeams|StreamGraph)$'
	for n in 2 4; do
		step "shared-${n}pe" 60 env "${share[@]}" SYMCHAN_TEST_BACKEND=cuda SYMCHAN_TEST_MAX_PES=$n ./tests.test -test.v -test.count=1 -test.run "$sh" -test.timeout=55s ||
			step "shared-eager-${n}pe" 60 env "${share[@]}" CUDA_MODULE_LOADING=EAGER SYMCHAN_TEST_BACKEND=cuda SYMCHAN_TEST_MAX_PES=$n ./tests.test -test.v -test.count=1 -test.run "$sh" -test.timeout=55s
		step "pipeline-${n}pe" 45 env "${share[@]}" ./pipeline -backend cuda -pes $n ||
			step "pipeline-eager-${n}pe" 45 env "${share[@]}" CUDA_MODULE_LOADING=EAGER ./pipeline -backend cuda -pes $n
	done
	step devicering-cuda 60 env "${share[@]}" ./devicering -backend cuda -pes 4
	suites suites-cuda-shared 300 SYMCHAN_TEST_BACKEND=cuda "${share[@]}"
fi
if [ "$what" = userkernel-anchors ]; then
	# A user's kernel from source to launch, and its launch, from Go
	# (BenchmarkGPUUserKernel) and from Python with CuPy and Numba
	# (bench/anchors/python_kernels.py), alternating, three rounds.
	for round in 1 2 3; do
		step "userkernel-go-$round" 120 env "${share[@]}" ./bench.test -test.run '^$' -test.bench 'GPUUserKernel' -test.benchtime 1x
		step "userkernel-python-$round" 180 env ANCHOR_PROGRAMS= "$repo/scripts/anchors.sh" python
	done
fi
if [ "$what" = targets ]; then
	# Issue 33's targets, each beside its floor or anchor in this call:
	# the host↔GPU floor, the round trips and the stream from Go, the
	# host-driven ping-pong, WaitAny's wake-up, kernel actors against the
	# device ping-pong, many warps' message rate, the ring's 8-byte hop
	# (as BenchmarkRingHop lines), and NVSHMEM's anchors where two GPUs
	# let its two processes run.
	[ -d "$repo/bench/anchors" ] && step targets-floor 90 env ANCHOR_PROGRAMS= "$repo/scripts/anchors.sh" floor
	step targets-fromgo 240 env "${share[@]}" ./bench.test -test.run '^$' -test.bench 'GPU(ChanRoundTrip|FutureRoundTrip|WaitAnyWakeup|HostPingPong|ChanStream)$' -test.benchtime 1x
	step targets-actors 150 env "${share[@]}" ./bench.test -test.run '^$' -test.bench 'GPU(ActorPingPong|DevicePingPong)$' -test.benchtime 1x
	step targets-rate 150 env "${share[@]}" CUDA_DEVICE_MAX_CONNECTIONS=32 ./bench.test -test.run '^$' -test.bench 'GPUActorMessageRate' -test.benchtime 1x
	for a in go kernel; do
		step "targets-ring-$a" 90 env "${share[@]}" ./ring -backend cuda -pes 2 -actors $a -size 8 -laps 2000
		ringhop "/tmp/symchan-targets-ring-$a.log" "BenchmarkRingHop/actors=$a" > "/tmp/symchan-targets-ringhop-$a.log"
	done
	if [ "$ngpu" -ge 2 ] && [ -d "$repo/bench/anchors" ]; then
		step targets-anchor-host 150 env ANCHOR_PROGRAMS=nvshmem_bench "$repo/scripts/anchors.sh" host
		step targets-anchor-rate 150 env ANCHOR_PROGRAMS=nvshmem_bench "$repo/scripts/anchors.sh" rate
	fi
fi
if [ "$what" = device-api ]; then
	# The device API in NVSHMEM's terms (users' kernels compiled at run
	# time): its conformance tests on cuda (PEs sharing the GPUs) and under
	# nvshmem, mapped and forced-remote; the backend's device-routine test.
	da='TestConformance/(GPU|PGAS)/(DeviceTerms|DeviceTeams|UserKernel|StreamCollectives|StreamOrdered)$'
	step pgas-cuda 120 ./cuda.test -test.v -test.count=1
	conformance device-api 200 "$da"
fi
if [ "$what" = mismatch ]; then
	# Issue 36, items 5 and 7: collectives on a stream and in kernels that
	# reject members who disagree, and buffers registered through NVSHMEM,
	# on cuda and under nvshmem (mapped, forced-remote); then their cost on
	# the barrier and small collectives: old/ (before the signatures)
	# against these, alternating, three rounds.
	mr='TestConformance/(PGAS|GPU)/(StreamCollectiveArgumentsDiffer|DeviceArgumentsDiffer|StreamCollectives|DeviceTeams|RegisterSymmetric|StreamGraph|UserKernel|DeviceTerms)$'
	conformance mismatch 150 "$mr"
	for round in 1 2 3; do
		for v in old new; do
			version $v
			step "mismatch-cost-$v-$round" 100 env "${ptx[@]}" "${share[@]}" "$d/bench.test" -test.run '^$' -test.bench 'GPUCollective(OnStream|Device)$' -test.benchtime 1x -coll.max 512
		done
	done
	bybuild "${OUT:-/tmp}/mismatch-cost.txt" 3 mismatch-cost
fi
if [ "$what" = coll-worlds ]; then
	# Issue 47's collectives at every world size: on a stream, in a kernel
	# and blocking from Go, at 2 PEs, 4 and every GPU on cuda (PEs sharing
	# the GPUs past their number), and under nvshmem with a process per
	# GPU, the heap sized for the world; NVSHMEM's own (bench/anchors/
	# nvshmem_coll.cu) at 2 processes and at one per GPU, in the same call.
	cm=${COLL_MAX:-262144}
	step coll-cuda 300 env "${share[@]}" ./bench.test -test.run '^$' -test.bench 'GPUCollective(OnStream|OnStreamSync|Device|Blocking)$' -coll.max "$cm" -test.benchtime 1x
	mps on
	step "coll-nvshmem-${np}proc" 300 ./symrun -n "$np" ./bench.test -test.run '^$' -test.bench 'GPUCollective(OnStream|OnStreamSync|Device|Blocking)$' -gpu.backend nvshmem -coll.max "$cm" -test.benchtime 1x
	if [ -d "$repo/bench/anchors" ]; then
		step coll-anchor-2proc 300 env ANCHOR_PROGRAMS=nvshmem_coll COLL_NP=2 COLL_MAX="$cm" "$repo/scripts/anchors.sh" coll
		[ "$np" -gt 2 ] && step "coll-anchor-${np}proc" 300 env ANCHOR_PROGRAMS=nvshmem_coll COLL_NP="$np" COLL_MAX="$cm" "$repo/scripts/anchors.sh" coll
	fi
	mps off
fi
if [ "$what" = abort ]; then
	# The GPU failure paths (the world's abort word): the backends' and
	# the agent's tests; on cuda, with one PE per GPU and with PEs sharing
	# the GPUs, the failure tests (streams, device collectives, device
	# mailboxes and kernel actors waiting on a PE that failed, and a
	# world after) and the stream and device-collective tests beside them;
	# under nvshmem, mapped and forced-remote, every suite (the full suites
	# on cuda take longer than one call: the "quick" mode runs them).
	# abort-bench: old/ (built from an earlier commit) and these, alternating, two
	# rounds: a stream's wait (the wait kernel where a stream memory
	# operation was) and the small collectives on a stream and in a kernel.
	af='TestConformance/(PGAS|GPU)/(PEFailurePropagates|StreamsAfterFailedWorld|StreamOrdered|StreamCollectives|StreamCollectiveArgumentsDiffer|RunContextCancelled|NoGoroutineOutlivesRun|GPUWaitsEndWhenWorldFails|KernelActorFails|KernelActorEcho|DeviceArgumentsDiffer|OnStream)$'
	step abort-gpuop 90 ./gpuop.test -test.v -test.count=1
	step abort-pgas-cuda 120 ./cuda.test -test.v -test.count=1
	step "abort-cuda-${ngpu}gpu" 150 env SYMCHAN_TEST_BACKEND=cuda SYMCHAN_TEST_MAX_PES="$ngpu" ./tests.test -test.v -test.count=1 -test.short -test.run "$af" -test.timeout=140s
	step abort-cuda-shared 150 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.short -test.run "$af" -test.timeout=140s
	mps on
	step "abort-nvshmem-unit-${np}proc" 60 ./symrun -n "$np" ./nvshmem.test -test.v -test.count=1
	suites "abort-suites-nvshmem-${np}proc" 120 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np"
	suites "abort-suites-remote-${np}proc" 120 SYMCHAN_FORCE_REMOTE=1 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np"
	mps off
fi
if [ "$what" = abort-bench ]; then
	for round in 1 2; do
		for v in old new; do
			version $v
			step "abort-$v-$round" 200 env "${ptx[@]}" "${share[@]}" "$d/bench.test" -test.run '^$' -test.bench 'GPU(StreamPingPong|Collective(OnStream|Device))$' -coll.max 4096 -test.benchtime 1x
		done
	done
	bybuild "${OUT:-/tmp}/abort.txt" 2 abort
fi
if [ "$what" = noregress ]; then
	# Issue 33's no-regression check of a change: old/ (built from the
	# commit before it) and these, alternating, two rounds: the device and
	# host-driven ping-pongs, the round trips from Go, PutSym and the
	# device block put, the ring's 8-byte hop (BenchmarkRingHop lines).
	for round in 1 2; do
		for v in old new; do
			version $v
			step "noregress-$v-$round" 240 env "${ptx[@]}" "${share[@]}" "$d/bench.test" -test.run '^$' -test.bench 'GPU(DevicePingPong|HostPingPong|ChanRoundTrip|FutureRoundTrip|Put|DevicePutBlock)$' -test.benchtime 1x
			step "noregress-ring-$v-$round" 60 env "${ptx[@]}" "${share[@]}" "$d/ring" -backend cuda -pes 2 -size 8 -laps 2000
			ringhop "/tmp/symchan-noregress-ring-$v-$round.log" BenchmarkRingHop > "/tmp/symchan-noregress-ringhop-$v-$round.log"
		done
	done
	bybuild "${OUT:-/tmp}/noregress.txt" 2 noregress noregress-ringhop
fi
if [ "$what" = paths ]; then
	# After a change to pgas's shared paths (put-with-signal, the claim,
	# parking): both suites, the forced-remote PGAS suite, and the round
	# trips from Go on both backends.
	suites suites-cuda-shared 330 SYMCHAN_TEST_BACKEND=cuda SYMCHAN_CUDA_SHARE_GPUS=1
	step bench-gpu-cuda 120 env SYMCHAN_CUDA_SHARE_GPUS=1 ./bench.test -test.run '^$' -test.bench 'GPU(ChanRoundTrip|FutureRoundTrip)$' -test.benchtime 1x
	mps on
	suites "suites-nvshmem-${np}proc" 230 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np"
	step remote-pgas-nvshmem 200 env SYMCHAN_FORCE_REMOTE=1 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/(PGAS|Actors)/' -test.timeout=190s
	step bench-gpu-nvshmem 120 ./symrun -n "$np" ./bench.test -test.run '^$' -test.bench 'GPU(ChanRoundTrip|FutureRoundTrip)$' -test.benchtime 1x -gpu.backend nvshmem
	mps off
fi
if [ "$what" = guarantees-suites ]; then
	suites suites-cuda-shared 330 SYMCHAN_TEST_BACKEND=cuda SYMCHAN_CUDA_SHARE_GPUS=1
	mps on
	suites "suites-nvshmem-${np}proc" 230 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np"
	mps off
fi
if [ "$what" = faults2 ]; then
	suites suites-cuda-1gpu 200 SYMCHAN_TEST_BACKEND=cuda SYMCHAN_TEST_MAX_PES=1
	suites suites-cuda-shared 350 SYMCHAN_TEST_BACKEND=cuda SYMCHAN_CUDA_SHARE_GPUS=1
fi
if [ "$what" = faults ]; then
	step pgas-cuda 60 ./cuda.test -test.v -test.count=1
	suites "suites-cuda-${ngpu}gpu" 150 SYMCHAN_TEST_BACKEND=cuda SYMCHAN_TEST_MAX_PES="$ngpu"
	nvshmem_suites 120
	step soak-cuda-shared 120 env SYMCHAN_TEST_BACKEND=cuda SYMCHAN_CUDA_SHARE_GPUS=1 ./tests.test -test.v -test.count=1 -test.run 'TestConformance/Actors/ActorsSoak' -test.timeout=110s
	step soak-nvshmem-${ngpu}proc 100 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$ngpu" ./symrun -n "$ngpu" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/Actors/ActorsSoak' -test.timeout=90s
	step nvshmem-mpirun 60 mpirun --allow-run-as-root -np "$ngpu" --bind-to none --mca pml ob1 --mca btl self,vader \
		--mca btl_vader_single_copy_mechanism none -x NVSHMEM_DISABLE_NVLS -x NCCL_NVLS_ENABLE \
		-x NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME -x NVSHMEM_REMOTE_TRANSPORT -x SYMCHAN_BOOTSTRAP=127.0.0.1:29533 -x SYMCHAN_BOOTSTRAP_SECRET \
		./nvshmem.test -test.v -test.count=1
	step bench-gpu-host 90 ./bench.test -test.run '^$' -test.bench 'GPU(HostPingPong|ChanRoundTrip|FutureRoundTrip|WaitAnyWakeup)' -test.benchtime 1x
fi
if [ "$what" = service ]; then
	svc='TestConformance/(Actors|PGAS)/(Service|StartStopCycles)'
	step service-suites-cuda 200 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.run "$svc" -test.timeout=190s
	step service-suites-nvshmem 150 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run "$svc" -test.timeout=140s
	step service-http-cuda 120 env SYMCHAN_TEST_BACKEND=cuda ./server.test -test.v -test.count=1
	step service-call-cuda 150 ./bench.test -test.run '^$' -test.bench ServiceCall -test.count 5 -service.backend cuda -service.pes "$ngpu" -service.job '{"n":64,"iters":20}'
	step service-call-cuda-512 150 ./bench.test -test.run '^$' -test.bench ServiceCall -test.count 5 -service.backend cuda -service.pes "$ngpu" -service.job '{"n":512,"iters":100}'
	step actors-suites-cuda 250 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/Actors' -test.timeout=240s
fi
if [ "$what" = load ]; then
	step service-load-cuda 590 ./bench.test -test.run '^$' -test.bench ServiceLoad -test.benchtime 1x -test.v -test.timeout 0 \
		-load.duration "${LOAD_DURATION:-20s}" -load.start "${LOAD_START:-1000}" -service.backend cuda -service.pes "$ngpu"
fi
if [ "$what" = latency ]; then
	[ -d "$repo/bench/anchors" ] && step floor 60 "$repo/scripts/anchors.sh" floor
	step gpuop 60 ./gpuop.test -test.v -test.count=1
	step pgas-cuda 90 ./cuda.test -test.v -test.count=1
	step hop-stages 90 env "${share[@]}" ./bench.test -test.run '^$' -test.bench GPUHopStages -test.benchtime 1x
	for round in 1 2; do
		for v in old new; do
			[ -d old ] || [ "$v" = new ] || continue
			version "$v"
			step "lat-$v-$round-gpu" 120 env "${ptx[@]}" "${share[@]}" "$d/bench.test" -test.run '^$' -test.bench 'GPU(HostPingPong|ChanRoundTrip|FutureRoundTrip|WaitAnyWakeup)' -test.benchtime 1x
			step "lat-$v-$round-ring" 120 env "${ptx[@]}" "${share[@]}" "$d/ring" -backend cuda -pes "$np" -size 8,4K,1M,64M -laps 1000
		done
	done
	echo
	echo "latency figures:"
	for f in /tmp/symchan-lat-*.log /tmp/symchan-hop-stages.log /tmp/symchan-floor.log; do
		[ -f "$f" ] || continue
		n=$(basename "$f" .log)
		grep -hE "^(\[PE [0-9]+\] )?(Benchmark|ring: | *[0-9]+ +[0-9]+ +[0-9.]+[µm]?s )" "$f" | sed "s/^/${n#symchan-} /"
	done
fi
if [ "$what" = latency-suites ]; then
	# (-test.run splits its pattern at each slash, level by level.)
	step lat-suites-cuda-waits 60 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/PGAS/(Wait|PutSignal)' -test.timeout=55s
	step lat-suites-cuda-actors 330 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/Actors' -test.timeout=320s
	step lat-suites-nvshmem 120 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/(PGAS|Actors)/(Wait|PutSignal|Chan|Future|Mailbox|Actors|Send|TrySend)' -test.timeout=110s
fi
if [ "$what" = routines ]; then
	rb='StridedPut|LockHandover|AllToAll'
	step routines-device 90 ./cuda.test -test.v -test.count=1 -test.run 'TestDevice'
	step device-mailbox 120 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/GPU' -test.timeout=110s
	step routines-suite-cuda 330 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/PGAS' -test.timeout=320s
	step routines-suite-nvshmem 240 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/PGAS' -test.timeout=230s
	step routines-bench-host 120 env SYMCHAN_BACKEND=host ./bench.test -test.run '^$' -test.bench "$rb" -test.benchtime 200x -test.count 3
	step routines-bench-cuda 240 env SYMCHAN_BACKEND=cuda "${share[@]}" ./bench.test -test.run '^$' -test.bench "$rb" -test.benchtime 50x -test.count 3
	step routines-bench-nvshmem 120 env SYMCHAN_BACKEND=nvshmem ./symrun -n "$np" ./bench.test -test.run '^$' -test.bench 'StridedPut|LockHandover/impl=lock/pes=2$|AllToAll' -test.benchtime 50x -test.count 3
	[ -d "$repo/bench/anchors" ] && step routines-bench-anchors 180 "$repo/scripts/anchors.sh" routines
	echo
	echo "routine figures:"
	for f in /tmp/symchan-routines-bench-*.log; do
		grep -h "^\(\[PE 0\] \)\?Benchmark" "$f" | sed "s/^/$(basename "$f" .log | sed 's/symchan-routines-bench-//') /"
	done
fi
if [ "$what" = actors ]; then
	step actors-gpu-suite-cuda 150 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/GPU' -test.timeout=140s
	step actors-gpu-suite-nvshmem 120 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.run 'TestConformance/GPU' -test.timeout=110s
	for mode in go kernel mixed; do
		step "ring-$mode-${np}pe" 60 env "${share[@]}" ./ring -backend cuda -pes "$np" -actors "$mode" -size 8,4K,1M,64M -laps 200
	done
	step ring-kernel-8pe 60 env SYMCHAN_CUDA_SHARE_GPUS=1 ./ring -backend cuda -pes 8 -actors kernel -size 8,64K -laps 100
	step ring-mixed-8pe 60 env SYMCHAN_CUDA_SHARE_GPUS=1 ./ring -backend cuda -pes 8 -actors mixed -size 8,64K -laps 100
	step ring-kernel-nvshmem 60 ./symrun -n "$np" ./ring -backend nvshmem -actors kernel -size 8,4K,1M -laps 100
	step actor-pingpong 90 env "${share[@]}" ./bench.test -test.run '^$' -test.bench 'GPU(ActorPingPong|DevicePingPong)/(kind=put-signal-8B|impl=symchan-kernel-actor)' -test.benchtime 1x -test.count 3
	# Its sending and receiving kernels wait for each other: with PEs sharing
	# a GPU they run only on streams of different hardware queues (once in
	# 8 queues it hung); 32 make a collision unlikely.
	step actor-rate 120 env CUDA_DEVICE_MAX_CONNECTIONS=32 "${share[@]}" ./bench.test -test.run '^$' -test.bench 'GPUActorMessageRate' -test.benchtime 1x -test.count 2
	[ "$ngpu" -ge 2 ] && [ -d "$repo/bench/anchors" ] && step actors-anchors 180 "$repo/scripts/anchors.sh" bench
	echo
	echo "actor figures:"
	for f in /tmp/symchan-ring-*.log /tmp/symchan-actor-pingpong.log /tmp/symchan-actor-rate.log /tmp/symchan-actors-anchors.log; do
		[ -f "$f" ] || continue
		grep -hE "^(ring: | *[0-9]+ +[0-9]+ +[0-9.]+[µm]?s |Benchmark.*(PingPong|MessageRate))" "$f" | sed "s/^/$(basename "$f" .log | sed 's/symchan-//') /"
	done
fi
# figures TITLE LOG...: the benchmark, ring and histogram lines of the
# steps' logs, each led by its step's name.
figures() {
	local title=$1 f n
	shift
	echo
	echo "$title figures:"
	for f in "$@"; do
		[ -f "$f" ] || continue
		n=$(basename "$f" .log)
		grep -hE "^(\[PE [0-9]+\] )?(Benchmark|ring: | *[0-9]+ +[0-9]+ +[0-9.]+[µm]?s |.*histogram)" "$f" | sed "s/^/${n#symchan-} /"
	done
}
if [ "$what" = sealed ]; then
	[ "$ngpu" -lt 2 ] && export SYMCHAN_CUDA_SHARE_GPUS=1
	msg='TestConformance/Actors/(Chan|Mailbox|Future|Send|TrySend|Recv)'
	step sealed-gpuop 60 ./gpuop.test -test.count=1
	step sealed-gpu-cuda 150 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/GPU' -test.timeout=140s
	step sealed-actors-cuda 120 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.short -test.run "$msg" -test.timeout=110s
	mps on
	step sealed-gpu-nvshmem 120 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/GPU' -test.timeout=110s
	step sealed-gpu-remote 120 env SYMCHAN_FORCE_REMOTE=1 SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/GPU/(DeviceMailbox|SealedSlot|KernelActorEcho)' -test.timeout=110s
	mps off
	for a in go kernel mixed; do
		step "sealed-ring-$a" 60 env "${share[@]}" ./ring -backend cuda -pes "$np" -actors $a -size 8,4K,1M -laps 100
	done
	[ -d "$repo/bench/anchors" ] && step floor 60 "$repo/scripts/anchors.sh" floor
	step sealed-stream 120 ./bench.test -test.run '^$' -test.bench 'GPUChanStream' -test.benchtime 1x
	# Its two NVSHMEM processes share the GPU on a machine of one: MPS.
	mps on
	[ -d "$repo/bench/anchors" ] && step sealed-stream-anchor 150 env ANCHOR_PROGRAMS=nvshmem_bench "$repo/scripts/anchors.sh" host
	mps off
	for round in 1 2; do
		for v in old new; do
			[ -d old ] || [ "$v" = new ] || continue
			version "$v"
			step "sealed-$v-$round-gpu" 100 env "${ptx[@]}" "$d/bench.test" -test.run '^$' -test.bench 'GPU(HostPingPong|ChanRoundTrip|FutureRoundTrip|WaitAnyWakeup)' -test.benchtime 1x
			step "sealed-$v-$round-actor" 90 env "${ptx[@]}" "${share[@]}" "$d/bench.test" -test.run '^$' -test.bench 'GPU(ActorPingPong|DevicePingPong)/(kind=put-signal-8B|impl=symchan-kernel-actor)' -test.benchtime 1x
			step "sealed-$v-$round-ring" 60 env "${ptx[@]}" "$d/ring" -backend cuda -pes "$np" -size 8 -laps 2000
		done
	done
	figures sealed /tmp/symchan-sealed-*-[12]-*.log /tmp/symchan-sealed-stream*.log /tmp/symchan-floor.log
fi
if [ "$what" = sealed-checks ]; then
	suites "suites-cuda-${ngpu}gpu" 200 SYMCHAN_TEST_BACKEND=cuda "${share[@]}"
	mps on
	step "suites-nvshmem-${np}proc" 120 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.short -test.timeout=110s
	mps off
	step checks-rate 120 env CUDA_DEVICE_MAX_CONNECTIONS=32 "${share[@]}" ./bench.test -test.run '^$' -test.bench 'GPUActorMessageRate' -test.benchtime 1x -test.count 2
	step checks-host 120 ./bench.test -test.run '^$' -test.bench 'GPU(HostPingPong|ChanStream)' -test.benchtime 1x
	if [ -d "$repo/bench/anchors" ]; then
		step checks-anchor-host 150 env ANCHOR_PROGRAMS=nvshmem_bench "$repo/scripts/anchors.sh" host
		step checks-anchor-rate 120 env ANCHOR_PROGRAMS=nvshmem_bench "$repo/scripts/anchors.sh" rate
	fi
	step checks-ring-kernel 60 env "${share[@]}" ./ring -backend cuda -pes "$np" -actors kernel -size 8,4K -laps 2000
	figures checks /tmp/symchan-checks-*.log
fi
if [ "$what" = tail ]; then
	[ "$ngpu" -lt 2 ] && export SYMCHAN_CUDA_SHARE_GPUS=1
	step tail-gpuop 60 ./gpuop.test -test.count=1
	step tail-agent-relaunch 60 ./gpuop.test -test.run '^$' -test.bench AgentRelaunch -test.benchtime 1x -test.count 3
	step tail-gpu-cuda 150 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/GPU' -test.timeout=140s
	step tail-actors-cuda 120 env SYMCHAN_TEST_BACKEND=cuda "${share[@]}" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/(Actors|PGAS)/(Chan|Mailbox|Future|Send|TrySend|Recv|Wait|PutSignal)' -test.timeout=110s
	mps on
	step tail-nvshmem 150 env SYMCHAN_TEST_BACKEND=nvshmem SYMCHAN_TEST_PROCS="$np" ./symrun -n "$np" ./tests.test -test.v -test.count=1 -test.short -test.run 'TestConformance/(GPU|Actors/(Chan|Mailbox|Future))' -test.timeout=140s
	mps off
	for round in 1 2; do
		for v in old new; do
			[ -d old ] || [ "$v" = new ] || continue
			version "$v"
			step "tail-$v-$round-gpu" 120 env "${ptx[@]}" "$d/bench.test" -test.run '^$' -test.bench 'GPU(HostPingPong|ChanRoundTrip|FutureRoundTrip|WaitAnyWakeup)$' -test.benchtime 1x
			step "tail-$v-$round-ring" 60 env "${ptx[@]}" "$d/ring" -backend cuda -pes "$np" -size 8 -laps 5000
		done
	done
	step tail-gogc-off-gpu 120 env GOGC=off ./bench.test -test.run '^$' -test.bench 'GPU(ChanRoundTrip|FutureRoundTrip)$' -test.benchtime 1x
	figures tail /tmp/symchan-tail-*-gpu.log /tmp/symchan-tail-*-ring.log /tmp/symchan-tail-agent-relaunch.log
fi
if [ "$what" = compare ] && [ -d old ]; then
	[ "$ngpu" -lt 2 ] && export SYMCHAN_CUDA_SHARE_GPUS=1
	for round in 1 2 3; do
		for v in old new; do
			version "$v"
			step "cmp-$v-$round-gpu" 120 env "${ptx[@]}" "$d/bench.test" -test.run '^$' -test.bench 'GPU(HostPingPong|ChanRoundTrip|FutureRoundTrip|WaitAnyWakeup)' -test.benchtime 1x
			step "cmp-$v-$round-ring" 120 env "${ptx[@]}" "$d/ring" -backend cuda -pes "$np" -size 8,4K,1M,64M -laps 50
			step "cmp-$v-$round-jacobi" 120 env "${ptx[@]}" "$d/jacobi" -backend cuda
			[ "$round" = 1 ] && step "cmp-$v-$round-nvshmem" 120 env "${ptx[@]}" ./symrun -n "$np" "$d/bench.test" -test.run '^$' -test.bench NVSHMEM -test.benchtime 1x
			[ "$round" = 1 ] && step "cmp-$v-$round-put" 200 env "${ptx[@]}" "$d/bench.test" -test.run '^$' -test.bench 'GPUPut' -test.benchtime 1x
		done
	done
	echo
	echo "compare figures:"
	for f in /tmp/symchan-cmp-*.log; do
		n=$(basename "$f" .log)
		grep -hE "^(\[PE [0-9]+\] )?(Benchmark|[0-9]+ x [0-9]+: | *[0-9]+ +[0-9]+ +[0-9.]+[µm]?s )" "$f" | sed "s/^/${n#symchan-} /"
	done
fi
if [ "$what" = scale ]; then
	suites "suites-cuda-${ngpu}gpu" 200 SYMCHAN_TEST_BACKEND=cuda SYMCHAN_TEST_MAX_PES="$ngpu"
	nvshmem_suites 200
	for np in 2 "$ngpu"; do
		step "ring-cuda-${np}gpu" 120 ./ring -backend cuda -pes "$np" -size 8,4K,1M,64M -laps 50
		[ "$ngpu" -eq 2 ] && break
	done
	step "ring-nvshmem-${ngpu}proc" 120 ./symrun -n "$ngpu" ./ring -backend nvshmem -size 8,4K,1M,64M -laps 50
	np=2 # -verify also runs on 1 GPU: the efficiency's base
	while [ "$np" -le "$ngpu" ]; do
		step "jacobi-cuda-${np}gpu" 200 ./jacobi -backend cuda -pes "$np" -verify
		step "jacobi-nvshmem-${np}proc" 200 ./symrun -n "$np" ./jacobi -backend nvshmem -verify
		np=$((np * 2))
	done
	[ -d "$repo/bench/anchors" ] && step anchors-jacobi 300 env ANCHOR_KERNELS=vec4 "$repo/scripts/anchors.sh" jacobi
fi
if [ "$what" = tests ] || [ "$what" = all ]; then
	step device 120 ./device.test -test.v -test.count=1
	step gpuop 60 ./gpuop.test -test.v -test.count=1
	step pgas-cuda 120 ./cuda.test -test.v -test.count=1
	suites suites-cuda-1gpu 280 SYMCHAN_TEST_BACKEND=cuda SYMCHAN_TEST_MAX_PES=1
	suites "suites-cuda-${ngpu}gpu" 280 SYMCHAN_TEST_BACKEND=cuda SYMCHAN_TEST_MAX_PES="$ngpu"
	# Every PE count of the suites (3 to 64), PEs sharing the GPUs.
	suites suites-cuda-shared 400 SYMCHAN_TEST_BACKEND=cuda SYMCHAN_CUDA_SHARE_GPUS=1
	step ring-cuda-1gpu 120 ./ring -backend cuda -pes 1 -size 8,4K,1M -laps 20
	step jacobi-cuda-1gpu-verify 120 ./jacobi -backend cuda -pes 1 -nx 4096 -niter 300 -verify
fi
if [ "$what" = nvshmem ] || [ "$what" = tests ] || [ "$what" = all ]; then
	step nvshmem-${ngpu}proc 200 ./symrun -n "$ngpu" ./nvshmem.test -test.v -test.count=1
	[ "$ngpu" -ge 2 ] && step uid-world 120 ./nvshmem.test -test.v -test.count=1 -test.run '^TestUniqueIDWorld$'
	nvshmem_suites 130
	step ring-nvshmem-${ngpu}proc 120 ./symrun -n "$ngpu" ./ring -backend nvshmem -size 8,4K,1M,64M -laps 50
	step jacobi-nvshmem-${ngpu}proc 240 ./symrun -n "$ngpu" ./jacobi -backend nvshmem -verify -png "${OUT:-/tmp}/jacobi-nvshmem.png"
	nvshmem_bench 240
	if command -v mpirun >/dev/null; then
		# The same binary under mpirun: ranks from Open MPI, rank 0 serves
		# the rendezvous.
		step nvshmem-mpirun 60 mpirun --allow-run-as-root -np "$ngpu" --bind-to none --mca pml ob1 --mca btl self,vader \
			--mca btl_vader_single_copy_mechanism none -x NVSHMEM_DISABLE_NVLS -x NCCL_NVLS_ENABLE \
			-x NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME -x NVSHMEM_REMOTE_TRANSPORT -x SYMCHAN_BOOTSTRAP=127.0.0.1:29533 -x SYMCHAN_BOOTSTRAP_SECRET \
			./nvshmem.test -test.v -test.count=1
	fi
	[ "$what" = nvshmem ] && [ -d "$repo/bench/anchors" ] && step anchors-bench 200 "$repo/scripts/anchors.sh" bench
	[ "$what" = nvshmem ] && [ -d "$repo/bench/anchors" ] && step anchors-jacobi 200 env ANCHOR_KERNELS=vec4 "$repo/scripts/anchors.sh" jacobi
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
	step ring-cuda 120 ./ring -backend cuda -size 8,4K,1M,64M -laps 50
	step jacobi-cuda 240 ./jacobi -backend cuda -verify -png "${OUT:-/tmp}/jacobi.png"
	step jacobi-cuda-scalar 120 ./jacobi -backend cuda -kernel scalar
	step bench-gpu 300 ./bench.test -test.run '^$' -test.bench GPU -test.benchtime 1x
	[ -d "$repo/bench/anchors" ] && step anchors 300 "$repo/scripts/anchors.sh" all
fi
# Every benchmark line (ours and the anchors', PE 0's under symrun) in one
# file for benchstat (cd bench && go tool benchstat -col /impl bench.txt),
# led by the key: value lines that bench/results/ keeps (COMMIT, else
# .gpu/COMMIT from gpu-build.sh: the binaries' commit, which the machine's
# copy of the tree may not know).
if [ -n "${OUT:-}" ]; then
	{
		echo "date: $(date -u +%Y-%m-%d)"
		echo "machine: ${MACHINE:-$(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | paste -sd, -)}"
		[ -z "${COMMIT:-}" ] && [ -f "$gpu/COMMIT" ] && COMMIT=$(cat "$gpu/COMMIT")
		echo "commit: ${COMMIT:-$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
		echo "command: scripts/gpu-run.sh $what"
		cat /tmp/symchan-*.log 2>/dev/null | grep -hE "^(\[PE 0\] )?Benchmark" | sed 's/^\[PE 0\] //'
	} > "$OUT/bench.txt" || true
	# Each step's whole log, for what the tails above leave out.
	mkdir -p "$OUT/logs" && cp /tmp/symchan-*.log "$OUT/logs/" 2>/dev/null || true
fi
echo
echo "figures:"
cat /tmp/symchan-*.log 2>/dev/null | grep -hE "^(\[PE [0-9]+\] )?(anchor |Benchmark|[0-9]+ x [0-9]+: |single PE|verify|ring: | *[0-9]+ +[0-9]+ +[0-9.]+[µm]?s )" || true
echo
echo "step                       result     time"
printf '%s\n' "${rows[@]}"
exit $status
