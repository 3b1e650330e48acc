#!/usr/bin/env bash
# Runs BenchmarkServiceLoad: examples/service driven by vegeta at rising
# rates, beside the worker-pool anchor, and prints benchstat's table of
# the highest sustained rate and its latency percentiles. The sweep's
# steps are in the raw output (-test.v).
# Environment: DURATION per rate (default 20s), START rate (default 500),
# SLO (p99 bound of a sustained rate, default 50ms), RESOLUTION (where
# the bisection stops, a fraction of the rate; default 0.125),
# PES (default 2), JOB (default {"n":64,"iters":20}), MACHINE (default
# go-vm), RAW (the raw output; default results/DATE-MACHINE-service-load.txt,
# led by date/machine/commit/command lines). Extra arguments go to the test
# binary. On a GPU machine (no Go there) run the -tags cuda bench.test the
# same way: scripts/gpu-run.sh load.
set -euo pipefail
cd "$(dirname "$0")"
machine=${MACHINE:-go-vm}
raw=${RAW:-results/$(date -u +%Y-%m-%d)-$machine-service-load.txt}
args=(-load.duration "${DURATION:-20s}" -load.start "${START:-500}" -load.slo "${SLO:-50ms}" -load.resolution "${RESOLUTION:-0.125}" -service.pes "${PES:-2}"
	-service.job "${JOB:-{\"n\":64,\"iters\":20\}}" "$@")
{
	echo "date: $(date -u +%Y-%m-%d)"
	echo "machine: $machine ($(nproc) CPUs)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
	echo "command: bench/load.sh: go test -run '^$' -bench ServiceLoad -benchtime 1x -timeout 0 -v . ${args[*]}"
	go test -run '^$' -bench 'ServiceLoad' -benchtime 1x -timeout 0 -v . "${args[@]}"
} | tee "$raw" >&2
go tool benchstat -col /impl "$raw"
