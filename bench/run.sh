#!/usr/bin/env bash
# Runs the host benchmarks beside their anchors, several times each, keeps
# the raw output under bench/results/ (benchstat's input format, led by
# key: value lines that say the date, machine, commit and command), and
# prints benchstat's tables (golang.org/x/perf, a tool of the bench
# module): every benchmark's variants side by side (impl=symchan against
# impl=gochan, impl=atomic, impl=protoactor or impl=copy), medians with 95%
# confidence intervals, and each anchor's difference from symchan ("vs
# base": -67% means the anchor takes 67% less time than symchan).
# Environment: BENCH (regexp, default all), COUNT (default 10), BENCHTIME
# (default 300ms), MACHINE (the machine's name in the file's name and
# header, default go-vm), RAW (the raw file; default
# results/DATE-MACHINE-host.txt).
set -euo pipefail
cd "$(dirname "$0")"
machine=${MACHINE:-go-vm}
raw=${RAW:-results/$(date -u +%Y-%m-%d)-$machine-host.txt}
cmd="go test -run '^\$' -bench '${BENCH:-.}' -count ${COUNT:-10} -benchtime ${BENCHTIME:-300ms} ."
{
	echo "date: $(date -u +%Y-%m-%d)"
	echo "machine: $machine ($(nproc) CPUs)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "command: bench/run.sh: $cmd"
	go test -run '^$' -bench "${BENCH:-.}" -count "${COUNT:-10}" -benchtime "${BENCHTIME:-300ms}" .
} | tee "$raw" >&2
go tool benchstat -col /impl "$raw"
