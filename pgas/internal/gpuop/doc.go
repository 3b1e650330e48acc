// Package gpuop is what the GPU backends (pgas/cuda, pgas/nvshmem) share:
// host-side routines on GPU memory through symchan's kernels. An Agent is
// a resident kernel of bounded life per GPU context that runs each PE's
// small puts, gets, atomics and signals (a Lane) and its waits, told
// through mapped pinned memory that both sides poll: a routine costs a
// few PCIe round trips, no kernel launch or stream synchronisation, and a
// wait no device-to-host copies however many words it watches (a set of
// more than a slot's 1024 words a window at a time). Waits beyond the
// agent's slots run a Waiter's kernel each. Signal and SignalAdd queue signals on a stream, after stream
// copies. Its GPU parts are compiled in with the build tag cuda.
package gpuop

// MaxWords is the largest wait set a Waiter accepts.
const MaxWords = 1 << 16
