// Package bench holds symchan's benchmarks, each beside the anchor it is
// measured against in the same run (Go channels, copy(), protoactor-go,
// and on GPUs NVSHMEM C programs under anchors/). run.sh runs them and
// prints the ratios; RESULTS.md records the tables.
package bench
