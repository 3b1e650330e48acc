// Package cuda is symchan's cuda backend: one process drives the GPUs of
// one host, one PE per GPU. Import it for its side effect and name "cuda"
// in pgas.Config.Backend or SYMCHAN_BACKEND, or give pgas.Config.Driver a
// Backend value with its settings:
//
//	import _ "github.com/symchan/symchan/pgas/cuda"
//	pgas.Run(ctx, pgas.Config{Driver: cuda.Backend{ShareGPUs: true}, PEs: 8}, fn)
//
// It is compiled in with the build tag cuda; without it the backend still
// registers, and opening it returns an error saying how to build with CUDA.
//
// Each PE's partition is a window of reserved addresses on its GPU
// (device.Window, CUDA's virtual memory management) with the heap's memory
// mapped at its start, readable and writable by every GPU of the world;
// peer access is enabled between every pair of GPUs (a pair without it is
// an error at start), so a symmetric address is (PE, offset) and every GPU
// reaches every partition directly. Buffers registered with
// pgas.RegisterSymmetric are mapped past the heap, at the same offset in
// every window (Backend.RegisterBytes of addresses per PE).
//
// Host-initiated routines take one of two paths, kept in program order
// with each other (so Fence is free and Quiet waits for both):
//
//   - small ones — puts, gets and put-with-signal of up to 1536 bytes (in
//     ring entries of 192), copies between partitions (PutSym, GetSym) of
//     up to 4 KiB, signal ops, atomics — go to the GPU's agent
//     (pgas/internal/gpuop), a resident kernel that polls a ring in mapped
//     pinned memory per PE and performs them with its own stores and
//     atomics through peer access: a few PCIe round trips, no launch, no
//     stream synchronisation, and nothing queued behind a resident kernel
//     actor;
//   - larger puts and gets run on the PE's stream with the copy engines
//     (which beat a copy kernel at every size on H200s), the signal of a
//     put-with-signal written after the data by a 64-bit stream write
//     (SignalSet) or a one-thread kernel (SignalAdd).
//
// Routines on a pgas.Stream are queued on it: a put-with-signal of up to
// 16 KiB is one launch of a one-block kernel (the copy, a system fence,
// the signal), a larger one the copy engines and a signal.
//
// Waits on GPU-resident words also run on the agent, a warp per wait,
// which reports into mapped pinned host memory that the host polls: no
// device-to-host copies, however many words. A set of more than 1024
// words runs on its warp a window of 1024 at a time (pgas/internal/gpuop:
// waitWindows); more than 16 waits at once per GPU plus two per PE on it
// launch a waiting kernel each. A wait set holds at most MaxWaitWords
// words.
//
// Nothing of ours runs for long: the agent's launches end after 5 ms (or
// when idle) and the host launches it again when it has work, and a
// waiting kernel gives up after 5 ms and is launched again. A kernel that
// ran until its words changed could hold one of the few hardware queues a
// context's streams share (CUDA_DEVICE_MAX_CONNECTIONS) while the write it
// waits for sits behind it — the hang that 64 PEs sharing 2 GPUs once
// showed.
//
// Kernels reach the heap through a descriptor (see kernels/symchan.cuh):
// A PE's program gets its GPU (HeapDescriptor, Stream, Module, on-stream
// put-with-signal and wait) from pgas.PE.GPU.
package cuda

import (
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/pgas/internal/gpuop"
)

// MaxWaitWords is the largest wait set the cuda backend's waits accept.
const MaxWaitWords = gpuop.MaxWords

// EnvShareGPUs, set to 1, mirrors Backend.ShareGPUs: a world may have
// more PEs than GPUs, PE i on GPU i mod #GPUs, PEs of one GPU sharing its
// context (and its time: they are slower than PEs of their own). The
// suites use it for their 3- to 1024-PE worlds on 1 or 2 GPUs; programs
// that want speed run one PE per GPU. PEs of one context also share its
// hardware queues: a stream-ordered wait for a PE of the same GPU, with
// work queued behind it, can block that PE's stream for ever when the two
// streams took the same queue. The blocking collectives are safe from it
// (their members meet on the host before their kernels wait for each
// other); *OnStream collectives and kernels that wait for each other are
// not. The driver reads how many queues a context gets,
// CUDA_DEVICE_MAX_CONNECTIONS (8 unless set; 32 at most), from the
// environment the process starts with, and the backend leaves it alone:
// such a world runs with CUDA_DEVICE_MAX_CONNECTIONS=32 set by whoever
// starts it (scripts/gpu-run.sh does), which makes the hang rarer, not
// impossible.
const EnvShareGPUs = "SYMCHAN_CUDA_SHARE_GPUS"

func init() { pgas.Register("cuda", Backend{}) }

// Backend is the cuda backend by value (pgas.Config.Driver), with the
// settings the environment otherwise gives; the one registered as "cuda"
// is the zero value, which leaves them to the environment. A field set
// here wins; the environment fills a zero one.
type Backend struct {
	// ShareGPUs lets a world have more PEs than GPUs (EnvShareGPUs).
	ShareGPUs bool
	// PTXFile names a PTX file of symchan.cu to load instead of the one
	// the binary embeds (or SYMCHAN_PTX_DIR's symchan.ptx), for kernel
	// work without rebuilding Go binaries.
	PTXFile string
	// RegisterBytes is how much of buffers registered with
	// pgas.RegisterSymmetric a PE's partition can hold (addresses
	// reserved past its heap); 0: DefaultRegisterBytes.
	RegisterBytes int64
}

// DefaultRegisterBytes is Backend.RegisterBytes's default: addresses only,
// reserved per PE, no memory.
const DefaultRegisterBytes = 16 << 30

func (b Backend) registerBytes() int64 {
	if b.RegisterBytes > 0 {
		return b.RegisterBytes
	}
	return DefaultRegisterBytes
}
