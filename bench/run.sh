#!/usr/bin/env bash
# Runs the host benchmarks beside their anchors, several times each, and
# prints a Markdown table of medians and ratios (bench/RESULTS.md records
# them). Environment: BENCH (regexp, default all), COUNT (default 7),
# BENCHTIME (default 300ms).
set -euo pipefail
cd "$(dirname "$0")/.."
raw=$(mktemp)
trap 'rm -f "$raw"' EXIT
go test -run '^$' -bench "${BENCH:-.}" -count "${COUNT:-7}" -benchtime "${BENCHTIME:-300ms}" ./bench/ | tee "$raw" >&2
go run ./cmd/benchtab \
	-pair 'PingPong/putsignal=PingPong/gochan' \
	-pair 'Put/*=Copy/*' \
	-pair 'ChanRoundTrip/symchan=ChanRoundTrip/gochan' \
	-pair 'Throughput8B/symchan=Throughput8B/protoactor' \
	-pair 'FutureRoundTrip/symchan=FutureRoundTrip/protoactor' \
	< "$raw"
