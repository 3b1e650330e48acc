#!/usr/bin/env bash
# Builds every -tags cuda test binary, stripped, into .gpu/ (git-ignored),
# ready to carry to a GPU machine and run there with scripts/gpu-run.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/cuda-sdk.sh --env)"
mkdir -p .gpu
for pkg in ./device; do
	name=$(basename "$pkg")
	go test -c -tags cuda -ldflags='-s -w' -o ".gpu/$name.test" "$pkg"
done
cp scripts/gpu-run.sh .gpu/
du -sh .gpu
