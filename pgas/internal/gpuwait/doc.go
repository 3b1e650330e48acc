// Package gpuwait waits from the host on words in GPU memory without
// device-to-host copies: each wait runs kernels.Wait on the words' GPU,
// which reports into mapped pinned memory that the host polls (then
// sleeps between polls). The GPU backends share it; it is compiled in
// with the build tag cuda.
package gpuwait

// MaxWords is the largest wait set a Waiter accepts.
const MaxWords = 1 << 16
