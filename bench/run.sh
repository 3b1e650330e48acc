#!/usr/bin/env bash
# Runs the host benchmarks beside their anchors, several times each, and
# prints benchstat's tables (golang.org/x/perf, a tool of the bench module):
# every benchmark's variants side by side (impl=symchan against
# impl=gochan, impl=atomic, impl=protoactor or impl=copy), medians with 95%
# confidence intervals, and each anchor's difference from symchan ("vs
# base": -67% means the anchor takes 67% less time than symchan).
# Environment: BENCH (regexp, default all), COUNT (default 10), BENCHTIME
# (default 300ms), RAW (keep the raw output in this file).
set -euo pipefail
cd "$(dirname "$0")"
raw=${RAW:-$(mktemp)}
[ -n "${RAW:-}" ] || trap 'rm -f "$raw"' EXIT
go test -run '^$' -bench "${BENCH:-.}" -count "${COUNT:-10}" -benchtime "${BENCHTIME:-300ms}" . | tee "$raw" >&2
go tool benchstat -col /impl "$raw"
