// Package bench holds symchan's benchmarks, each beside the anchors it is
// measured against in the same run: Go channels, a cross-core atomic
// ping-pong, copy() and protoactor-go on the host; cuMemcpyPeer and NVSHMEM
// C programs (anchors/) on GPUs. Ours are the impl=symchan variant of a
// benchmark and the anchors its other impl= variants, so benchstat -col
// /impl sets them side by side; the NVSHMEM programs print their figures
// in Go's benchmark format under the same names. run.sh runs the host
// benchmarks, keeps their raw output under results/ and prints benchstat's
// table; scripts/gpu-run.sh collects the GPU lines into bench.txt, kept
// under results/ with the same header lines; RESULTS.md's tables are
// generated from those files by cmd/results.
package bench
