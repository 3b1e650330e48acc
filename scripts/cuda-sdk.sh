#!/usr/bin/env bash
# Fetches what building with -tags cuda needs on a machine without CUDA:
# cuda.h (and cudaTypedefs.h) from Debian's non-free nvidia-cuda-dev
# (CUDA 11.8 headers, which package device builds against) and the
# libcuda link library from libcuda1, into a cache outside the repository.
# Nothing is installed: the packages are downloaded and only those files
# extracted. The driver at run time may be newer (CUDA 13 on the GPU
# machines).
#
#   scripts/cuda-sdk.sh          # fetch if needed, print the cache dir
#   eval "$(scripts/cuda-sdk.sh --env)"   # export CGO_CFLAGS/CGO_LDFLAGS, and
#                                         # SYMCHAN_CUDA_SDK_LIB (libcuda's folder, for
#                                         # running a cuda-tagged test with no GPU)
#
# Cache: $SYMCHAN_CUDA_SDK, default ~/.cache/symchan/cuda-sdk.
set -euo pipefail

root=${SYMCHAN_CUDA_SDK:-$HOME/.cache/symchan/cuda-sdk}
inc=$root/usr/include
lib=$root/usr/lib/x86_64-linux-gnu/nvidia/current

if [ ! -f "$inc/cuda.h" ] || [ ! -e "$lib/libcuda.so.1" ]; then
	work=$root/.apt
	mkdir -p "$work/lists/partial" "$work/archives/partial" "$root"
	# A private sources list with non-free: the system's apt setup is
	# left alone.
	cat > "$work/sources.list" <<SRC
deb http://deb.debian.org/debian bookworm main non-free
deb http://deb.debian.org/debian bookworm-updates main non-free
SRC
	aptopts=(-o Dir::Etc::sourcelist="$work/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$work/lists" -o Dir::Cache::Archives="$work/archives" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root -qq)
	echo "cuda-sdk: fetching package lists" >&2
	apt-get "${aptopts[@]}" update
	echo "cuda-sdk: downloading nvidia-cuda-dev and libcuda1 (about 800 MB)" >&2
	(cd "$work" && apt-get "${aptopts[@]}" download nvidia-cuda-dev libcuda1)
	dpkg-deb --fsys-tarfile "$work"/nvidia-cuda-dev_*.deb |
		tar -x -C "$root" ./usr/include/cuda.h ./usr/include/cudaTypedefs.h
	dpkg-deb -x "$work"/libcuda1_*.deb "$root"
	rm -rf "$work"
fi
if [ ! -e "$lib/libcuda.so" ]; then
	ln -sf libcuda.so.1 "$lib/libcuda.so" # the link-time name
fi

if [ "${1:-}" = "--env" ]; then
	echo "export CGO_CFLAGS='-I$inc'"
	echo "export CGO_LDFLAGS='-L$lib'"
	echo "export SYMCHAN_CUDA_SDK_LIB='$lib'"
else
	echo "$root"
fi
