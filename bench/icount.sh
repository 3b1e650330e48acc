#!/usr/bin/env bash
# Counts the instructions, and the misses of a simulated 32 KiB 8-way L1
# instruction cache, of the host messaging round trips of several builds
# of symchan under valgrind's cachegrind: parked, GOMAXPROCS=1 (both PEs
# on one processor, so that the count is the whole trip, Go's scheduler
# included), per round trip or message. Each figure is the difference of
# two runs (LO and HI iterations), so that start-up cancels. Unlike a
# timing on a VM, the instruction count is deterministic to a few tens; the
# misses depend on where the linker placed the code. It keeps the raw
# output under bench/results/ in benchstat's format (build: … lines
# before each build's lines) and prints it.
#
#   bench/icount.sh NAME=REV ...   # e.g. old=c503695 new=HEAD
#
# Needs valgrind (Debian: apt-get install valgrind). Environment: BENCH
# (the benchmarks, default ChanRoundTrip FutureRoundTrip Throughput8B),
# LO and HI (default 4000 and 24000), MACHINE (default go-vm), NAME (the
# raw file's name after DATE-MACHINE-, default icount), RAW (the raw file).
set -euo pipefail
cd "$(dirname "$0")"
command -v valgrind >/dev/null || { echo "icount.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ $# -gt 0 ] || { echo "usage: bench/icount.sh NAME=REV ..." >&2; exit 2; }
machine=${MACHINE:-go-vm} lo=${LO:-4000} hi=${HI:-24000}
raw=${RAW:-results/$(date -u +%Y-%m-%d)-$machine-${NAME:-icount}.txt}
work=$(mktemp -d)
trap 'for d in "$work"/wt-*; do git worktree remove --force "$d" 2>/dev/null || true; done; rm -rf "$work"' EXIT
builds=() revs=()
for arg in "$@"; do
	b=${arg%%=*} rev=$(git rev-parse --short "${arg#*=}")
	builds+=("$b") revs+=("$b $rev")
	git worktree add -q --detach "$work/wt-$b" "$rev"
	(cd "$work/wt-$b/bench" && go test -c -o "$work/bench-$b.test" .)
done
# count BIN BENCH N: cachegrind's instruction refs and I1 misses
count() {
	SYMCHAN_BLOCKING=park GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 \
		--cachegrind-out-file=/dev/null "$1" -test.run '^$' -test.bench "^Benchmark$2\$/^impl=symchan\$" \
		-test.benchtime "${3}x" -test.cpu 1 2>&1 |
		awk '/ I +refs:/ {gsub(",", "", $4); ir = $4} / I1 +misses:/ {gsub(",", "", $4); m = $4} END {print ir, m}'
}
{
	echo "date: $(date -u +%Y-%m-%d)"
	echo "machine: $machine ($(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
	echo "commit: ${revs[*]}"
	echo "command: bench/icount.sh $* (LO=$lo HI=$hi): per build and benchmark, valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 of bench.test -test.bench '^BenchmarkX\$/^impl=symchan\$' -test.cpu 1 with SYMCHAN_BLOCKING=park GOMAXPROCS=1, at LO and HI iterations; the difference per iteration"
	for b in "${builds[@]}"; do
		echo "build: $b"
		for bm in ${BENCH:-ChanRoundTrip FutureRoundTrip Throughput8B}; do
			read -r ir1 m1 < <(count "$work/bench-$b.test" "$bm" "$lo")
			read -r ir2 m2 < <(count "$work/bench-$b.test" "$bm" "$hi")
			echo "Benchmark$bm $((hi - lo)) $(((ir2 - ir1) / (hi - lo))) instr/op $(((m2 - m1) / (hi - lo))) I1-misses/op"
		done
	done
} | tee "$raw"
