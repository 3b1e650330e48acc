#!/usr/bin/env bash
# Runs on the GPU machine (no Go there): every test binary in .gpu/, then
# a short table of what passed. Exits non-zero if any failed.
set -uo pipefail
cd "$(dirname "$0")"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader || true
status=0
rows=()
for t in ./*.test; do
	[ -e "$t" ] || continue
	echo "== $t"
	start=$(date +%s%N)
	if "$t" -test.v -test.count=1; then r=PASS; else r=FAIL; status=1; fi
	ms=$((($(date +%s%N) - start) / 1000000))
	rows+=("$(printf '%-20s %s %6d ms' "$(basename "$t")" "$r" "$ms")")
done
echo
echo "binary               result  time"
printf '%s\n' "${rows[@]}"
exit $status
