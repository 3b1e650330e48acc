#!/usr/bin/env bash
# Builds every -tags cuda test and bench binary and the examples, stripped,
# into .gpu/ (git-ignored), ready to carry to a GPU machine and run there
# with scripts/gpu-run.sh (copied in beside them).
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/cuda-sdk.sh --env)"
mkdir -p .gpu
for pkg in ./device ./pgas/internal/gpuop ./pgas/cuda ./pgas/nvshmem ./tests ./examples/service/server; do
	go test -c -tags cuda -ldflags='-s -w' -o ".gpu/$(basename "$pkg").test" "$pkg"
done
(cd bench && go test -c -tags cuda -ldflags='-s -w' -o ../.gpu/bench.test .) # a workspace of its own
for ex in ring jacobi service devicering pipeline moe; do
	go build -tags cuda -ldflags='-s -w' -o ".gpu/$ex" "./examples/$ex"
done
go build -ldflags='-s -w' -o .gpu/symrun ./cmd/symrun
cp scripts/gpu-run.sh .gpu/
# The binaries' commit, "-dirty" when the tree had changes: gpu-run.sh
# writes it into bench.txt.
git describe --always --dirty > .gpu/COMMIT
du -sh .gpu
