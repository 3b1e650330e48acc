// Package kernels holds symchan's CUDA C sources, their PTX (generated with
// nvcc on a GPU machine by scripts/gpu-ptx.sh and committed beside them)
// and the header-only device API, symchan.cuh, that our kernels and users'
// kernels include.
//
// The cuda backend JIT-loads PTX() into every GPU's context. For kernel
// work without rebuilding Go binaries, SYMCHAN_PTX names a PTX file to use
// instead of the embedded one (regenerate with scripts/gpu-ptx.sh on the
// GPU machine, point SYMCHAN_PTX at it, run the tests there).
//
// The nvshmem backend loads a variant of the same sources, NVSHMEMPTX:
// compiled relocatable with SYMCHAN_NVSHMEM, so that every routine of
// symchan.cuh reaches a PE this GPU cannot map through NVSHMEM's device
// library, which the backend links in when it loads it
// (SYMCHAN_NVSHMEM_PTX replaces it as SYMCHAN_PTX does symchan.ptx).
package kernels

// The Go copy of symchan.cuh's shared structs (layout.go): sizes and field
// offsets, regenerated from the header (TestLayout checks it is current).
//go:generate go run github.com/symchan/symchan/internal/cstructs/cmd/cstructs -in symchan.cuh -o layout.go -pkg kernels symchan_heap=Heap symchan_mailbox=Mailbox symchan_mbox_out=MboxOut symchan_replies=Replies symchan_actor=Actor SYMCHAN_LOCAL_PES=LocalPEs

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"time"
)

//go:embed symchan.ptx
var symchanPTX string

//go:embed symchan_nvshmem.ptx
var nvshmemPTX string

// Source is symchan.cu, and Header the device API symchan.cuh, for users
// who build their kernels against the same definitions.
var (
	//go:embed symchan.cu
	Source string
	//go:embed symchan.cuh
	Header string
)

// EnvPTX names a PTX file that replaces the embedded one.
const EnvPTX = "SYMCHAN_PTX"

// EnvNVSHMEMPTX names a PTX file that replaces the embedded
// symchan_nvshmem.ptx.
const EnvNVSHMEMPTX = "SYMCHAN_NVSHMEM_PTX"

// PTX returns the PTX of symchan.cu: file when not empty, else the file
// SYMCHAN_PTX names, else the embedded one.
func PTX(file string) (string, error) { return ptxOf(file, EnvPTX, symchanPTX) }

// NVSHMEMPTX returns the nvshmem backend's PTX of symchan.cu (SYMCHAN_NVSHMEM
// defined; relocatable, to be linked with NVSHMEM's device library; it
// adds kernel RemoteAtomic): file when not empty, else the file
// SYMCHAN_NVSHMEM_PTX names, else the embedded one.
func NVSHMEMPTX(file string) (string, error) { return ptxOf(file, EnvNVSHMEMPTX, nvshmemPTX) }

func ptxOf(file, env, embedded string) (string, error) {
	from := "the PTX file"
	if file == "" {
		file, from = os.Getenv(env), env
	}
	if file == "" {
		return embedded, nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("kernels: %s: %w", from, err)
	}
	return string(b), nil
}

// RemoteAtomic is NVSHMEMPTX's kernel of one atomic of pgas/driver's kind
// and op on a PE through NVSHMEM (arguments: symmetric address, kind, op,
// operand, comparand, PE, and where the previous value goes).
const RemoteAtomic = "symchan_remote_atomic"

// Kernel names in symchan.cu.
const (
	Atomic                = "symchan_atomic"
	Wait                  = "symchan_wait"
	Agent                 = "symchan_agent"
	Copy                  = "symchan_copy"
	JacobiInit            = "jacobi_init"
	JacobiSweep           = "jacobi_sweep"
	JacobiSweep4          = "jacobi_sweep4"
	ServiceJacobiSweep    = "service_jacobi_sweep"
	RingActor             = "ring_actor"
	PingPong              = "bench_pingpong"
	PutBlock              = "bench_put_block"
	ActorPingPong         = "bench_actor_pingpong"
	RateSend              = "bench_rate_send"
	RateRecv              = "bench_rate_recv"
	RateActor             = "bench_rate_actor"
	MailboxEcho           = "mailbox_echo"
	MailboxFanIn          = "mailbox_fanin"
	MailboxEchoBlock      = "mailbox_echo_block"
	MailboxSendMP         = "mailbox_send_mp"
	ActorSendMP           = "actor_send_mp"
	MailboxRecvManyCheck  = "mailbox_recv_many_check"
	FutureServe           = "future_serve"
	ActorEcho             = "actor_echo"
	ActorRing             = "actor_ring"
	TestPutSignalVariants = "test_put_signal_variants"
	TestWaits             = "test_waits"
	TestRoutines          = "test_routines"
)

// TimingWords is the length, in uint64 words, of a timing log's header
// (symchan.cu's timing_start): the kernel's log of n repetitions is
// TimingWords+n words.
const TimingWords = 4

// Timings decodes a timing log of n repetitions that a kernel wrote
// (symchan.cu's timing_start and timing_end: the global timer and clock64
// at the first one's start and the last one's end, then each one's
// cycles): each repetition's cycles scaled by the timer's nanoseconds per
// cycle over the whole log, since the timer's resolution can be as coarse
// as a microsecond and the clock's is a cycle.
func Timings(log []byte, n int) ([]time.Duration, error) {
	if len(log) < 8*(TimingWords+n) {
		return nil, fmt.Errorf("kernels: a timing log of %d repetitions needs %d bytes, got %d", n, 8*(TimingWords+n), len(log))
	}
	w := func(i int) uint64 { return binary.LittleEndian.Uint64(log[8*i:]) }
	ns, cycles := w(1)-w(0), w(3)-w(2)
	if cycles == 0 || ns == 0 || w(1) < w(0) || w(3) < w(2) {
		return nil, errors.New("kernels: the timing log is empty: its repetitions did not all run")
	}
	perCycle := float64(ns) / float64(cycles)
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(float64(w(TimingWords+i)) * perCycle)
	}
	return out, nil
}
