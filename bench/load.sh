#!/usr/bin/env bash
# Runs BenchmarkServiceLoad: examples/service driven by vegeta at rising
# rates, beside the worker-pool anchor, and prints benchstat's table of
# the highest sustained rate and its latency percentiles. The sweep's
# steps are in the raw output (-test.v).
# Environment: DURATION per rate (default 20s), START rate (default 500),
# SLO (p99 bound of a sustained rate, default 50ms),
# PES (default 2), JOB (default {"n":64,"iters":20}), RAW (keep the raw
# output in this file). Extra arguments go to the test binary. On a GPU
# machine (no Go there) run the -tags cuda bench.test the same way:
# scripts/gpu-run.sh load.
set -euo pipefail
cd "$(dirname "$0")"
raw=${RAW:-$(mktemp)}
[ -n "${RAW:-}" ] || trap 'rm -f "$raw"' EXIT
go test -run '^$' -bench 'ServiceLoad' -benchtime 1x -timeout 0 -v . \
	-load.duration "${DURATION:-20s}" -load.start "${START:-500}" -load.slo "${SLO:-50ms}" -service.pes "${PES:-2}" \
	-service.job "${JOB:-{\"n\":64,\"iters\":20\}}" "$@" | tee "$raw" >&2
go tool benchstat -col /impl "$raw"
