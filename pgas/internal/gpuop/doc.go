// Package gpuop is what the GPU backends (pgas/cuda, pgas/nvshmem) share:
// host-side operations on words in GPU memory through symchan's kernels.
// A Waiter waits without device-to-host copies: each wait runs
// kernels.Wait on the words' GPU, which reports into mapped pinned memory
// that the host polls (then sleeps between polls). Atomic and SignalAdd
// run kernels.Atomic. It is compiled in with the build tag cuda.
package gpuop

// MaxWords is the largest wait set a Waiter accepts.
const MaxWords = 1 << 16
