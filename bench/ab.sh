#!/usr/bin/env bash
# Runs the host messaging benchmarks and the ring of two builds of symchan
# alternating, so that both meet the same machine (a VM's cross-core cost
# can change during a run), in spin and park modes at GOMAXPROCS 2 and 8,
# and keeps the raw output under bench/results/ in benchstat's format:
# key: value lines (build, blocking, gomaxprocs) before each chunk, the
# ring's hop medians as BenchmarkRingHop/size=… lines. It prints
# benchstat's old-against-new tables last.
#
#   bench/ab.sh OLD NEW      # commits (or anything git worktree takes)
#
# Environment: ROUNDS (default 6), BENCHTIME (default 200ms), MACHINE
# (default go-vm), BENCH (the benchmarks, a -test.bench pattern; default
# the messaging ones), RING (0: no ring), NAME (the raw file's name after
# DATE-MACHINE-, default host-ab), RAW (the raw file; default
# results/DATE-MACHINE-NAME.txt).
set -euo pipefail
cd "$(dirname "$0")"
old=$(git rev-parse --short "$1") new=$(git rev-parse --short "$2")
machine=${MACHINE:-go-vm}
raw=${RAW:-results/$(date -u +%Y-%m-%d)-$machine-${NAME:-host-ab}.txt}
work=$(mktemp -d)
trap 'git worktree remove --force "$work/old" 2>/dev/null; git worktree remove --force "$work/new" 2>/dev/null; rm -rf "$work"' EXIT
for b in old new; do
	rev=$old
	[ $b = new ] && rev=$new
	git worktree add -q --detach "$work/$b" "$rev"
	(cd "$work/$b/bench" && go test -c -o "$work/bench-$b.test" .)
	(cd "$work/$b" && go build -o "$work/ring-$b" ./examples/ring)
done
benches=${BENCH:-'^Benchmark(ChanRoundTrip|FutureRoundTrip|Throughput8B|PingPong)$/^impl=symchan$'}
# ring's table: size hops median p99 p99.9 GB/s, durations as Go prints
# them; its hop median becomes a benchmark line.
ringlines() {
	awk '$1 ~ /^[0-9]+$/ && NF == 6 {
		d = $3; v = d + 0; u = d; sub(/^[0-9.]+/, "", u)
		f = (u == "ns") ? 1 : (u == "µs") ? 1e3 : (u == "ms") ? 1e6 : (u == "s") ? 1e9 : -1
		if (f > 0) printf "BenchmarkRingHop/size=%s %d %.1f ns/op\n", $1, $2, v * f
	}'
}
{
	echo "date: $(date -u +%Y-%m-%d)"
	echo "machine: $machine ($(nproc) CPUs)"
	echo "commit: $new against $old"
	echo "command: bench/ab.sh $old $new (ROUNDS=${ROUNDS:-6} BENCHTIME=${BENCHTIME:-200ms}): per round, per blocking mode and GOMAXPROCS, old then new: bench.test -test.bench '$benches' -test.cpu P, then (unless RING=0) ring -laps 2000 -size 8,4K"
	for round in $(seq "${ROUNDS:-6}"); do
		for blocking in spin park; do
			for procs in 2 8; do
				for b in old new; do
					echo "build: $b"
					echo "blocking: $blocking"
					echo "gomaxprocs: $procs"
					SYMCHAN_BLOCKING=$blocking "$work/bench-$b.test" -test.run '^$' -test.bench "$benches" \
						-test.benchtime "${BENCHTIME:-200ms}" -test.cpu "$procs" | grep '^Benchmark'
					[ "${RING:-1}" = 0 ] || SYMCHAN_BLOCKING=$blocking GOMAXPROCS=$procs "$work/ring-$b" -laps 2000 -size 8,4K | ringlines
				done
			done
		done
		echo "round $round done" >&2
	done
} >"$raw"
go tool benchstat -col build -row .name -table blocking,gomaxprocs "$raw"
