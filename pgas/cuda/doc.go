// Package cuda is symchan's cuda backend: one process drives the GPUs of
// one host, one PE per GPU. Import it for its side effect and name "cuda"
// in pgas.Config.Backend or SYMCHAN_BACKEND:
//
//	import _ "github.com/symchan/symchan/pgas/cuda"
//
// It is compiled in with the build tag cuda; without it the backend still
// registers, and opening it returns an error saying how to build with CUDA.
//
// Each PE's partition of the symmetric heap is one device allocation of
// the same size on its GPU; peer access is enabled between every pair of
// GPUs (a pair without it is an error at start), so a symmetric address is
// (PE, offset) and every GPU reaches every partition directly.
//
// Host-initiated routines run on a stream of the issuing PE's GPU, in
// order: puts and gets by the copy engines (puts of up to 64 aligned bytes
// as 64-bit stream writes), the signal of a put-with-signal
// written after the data by a 64-bit stream write (SignalSet) or a
// one-thread atomic kernel (SignalAdd), atomics by that kernel. Fence is
// therefore free and Quiet waits for the stream. Waits on GPU-resident
// words run a waiting kernel on the words' GPU that reports into mapped
// pinned host memory, which the host polls (then sleeps between polls): no
// device-to-host copies, however many words. A wait set holds at most
// MaxWaitWords words.
//
// A known limit: a waiting kernel runs until its words change, and CUDA
// maps a context's streams onto a few hardware queues
// (CUDA_DEVICE_MAX_CONNECTIONS, default 8), so work queued on another
// stream may wait behind it. With more streams than queues in one context
// (many PEs sharing a GPU, or one PE with many waits in flight at once) a
// wait can then hold up the very write it waits for. One PE per GPU with a
// few concurrent waits stays within the limit.
//
// Kernels reach the heap through a descriptor (see kernels/symchan.cuh):
// HeapDescriptor, Stream, Module and Launch give a PE's program its GPU.
package cuda

import "github.com/symchan/symchan/pgas/internal/gpuop"

// MaxWaitWords is the largest wait set the cuda backend's waits accept.
const MaxWaitWords = gpuop.MaxWords

// EnvShareGPUs, set to 1, lets a world have more PEs than GPUs: PE i runs
// on GPU i mod #GPUs, PEs of one GPU sharing its context. It is for tests
// (the suites' 3- to 64-PE cases on a 2-GPU machine); programs want one PE
// per GPU.
const EnvShareGPUs = "SYMCHAN_CUDA_SHARE_GPUS"
