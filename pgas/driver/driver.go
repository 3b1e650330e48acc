// Package driver defines the contract between package pgas and the
// backends that carry its worlds, in the way database/sql/driver does for
// database/sql. Programs do not use it: they call pgas. A backend package
// implements [Backend] and registers it with pgas.Register from an init
// function:
//
//	func init() { pgas.Register("mybackend", myBackend{}) }
//
// pgas validates every argument (PE ranges, bounds, alignment, overlap)
// before it calls a [Transport], so a backend may assume offsets are inside
// the heap and aligned for their kind.
//
// Optional capabilities are optional interfaces. A Backend may also
// implement:
//
//   - [DefaultSizer]: it starts a fixed number of PEs when the
//     configuration names none (one per GPU), so pgas need not know;
//   - [MultiProcess]: its PEs are processes (one world per job), so pgas
//     lets a launcher's ranks each open one.
//
// A Transport may also implement, gaining what each says:
//
//   - [FailureNotifier]: PEs in several processes; a PE's failure reaches
//     the others' blocking calls as it does within one process;
//   - [AbortTransport]: its GPUs wait on their own; pgas ends those waits
//     when a PE fails or the world ends, so no GPU work outlives a world;
//   - [GPUTransport]: its PEs are GPUs, each a [GPU] (pgas.PE.GPU,
//     kernels, Launch);
//   - [StreamTransport]: routines enqueued on a GPU's stream
//     (pgas.Stream), in order with kernels; without it pgas runs them on
//     a goroutine of the PE;
//   - [ClaimTransport]: a compare-and-swap and a put-with-signal in one
//     routine (pgas.PutSignalIf); without it pgas takes two steps;
//   - [UnorderedTransport]: a put-with-signal without the order between
//     data and signal (sealed mailbox slots); without it pgas orders them;
//   - [StridedTransport]: strided data in one operation; without it pgas
//     issues one put or get per element;
//   - [RegisterTransport]: existing device memory mapped into the
//     partitions (pgas.RegisterSymmetric); without it that fails;
//   - [ParkTransport]: PEs are goroutines of this process with host
//     memory; a goroutine parks until a write lands (pgas.Park, the host
//     path of mailboxes and futures); without it they wait with Wait.
//
// A method that cannot serve one call (a stride too long for a 2-D copy,
// say) returns an error wrapping errors.ErrUnsupported having done
// nothing, and pgas falls back as if the interface were absent. Each
// backend asserts the interfaces it implements at compile time
// (var _ driver.X = (*transport)(nil)).
//
// Package conformance runs the conformance suites against a backend
// (conformance.Run).
package driver

import (
	"context"
	"errors"
	"fmt"

	"github.com/symchan/symchan/device"
)

// Config is a resolved world configuration, as pgas hands it to
// [Backend.Open].
type Config struct {
	// Name is the name the backend was registered under, for messages.
	Name string
	// PEs is the number of PEs to start; 0 lets the backend choose.
	PEs int
	// HeapSize is the size of every PE's partition in bytes.
	HeapSize int64
	// Park asks that Wait park at once rather than poll first
	// (pgas.BlockPark). Backends whose waits do not run on the host's
	// cores may ignore it.
	Park bool
	// ForceRemote asks a backend to reach every other PE only by its
	// remote path, as if it were on another host (pgas.Config.ForceRemote);
	// a backend without one ignores it.
	ForceRemote bool
}

// A Backend opens worlds.
type Backend interface {
	// Open starts a world as cfg says. It returns when every PE of this
	// process can be used, or with ctx's error when ctx ends first
	// (backends whose PEs start in several processes wait for each other
	// here).
	Open(ctx context.Context, cfg Config) (Transport, error)
}

// A DefaultSizer is a Backend that says how many PEs it starts when
// Config.PEs is 0 (the host backend: 8), so that pgas can size its own
// choices (pgas.Config.Blocking) without knowing the backend.
type DefaultSizer interface {
	DefaultPEs() int
}

// A MultiProcess is a Backend whose PEs are processes (one each, started
// by a launcher: symrun, mpirun, srun), as the nvshmem backend's are.
// Other backends run all their PEs in the opening process, so pgas
// refuses them in a process that symrun started as one of several ranks:
// each rank would open a world of its own.
type MultiProcess interface {
	MultiProcess() bool
}

// A Transport is one open world of a backend. Offsets are byte offsets into
// a PE's partition; from is the PE that issues an operation.
//
// Methods other than Wait never block on another PE's progress. All methods
// may be called concurrently.
type Transport interface {
	// NumPEs is the number of PEs in the world.
	NumPEs() int
	// LocalPEs lists the PEs this process runs (all of them for backends
	// whose PEs share one process).
	LocalPEs() []int
	// Node returns the node (host) that runs pe; PEs with equal values
	// form a node team.
	Node(pe int) int
	// HeapSize is the size of every partition in bytes.
	HeapSize() int64
	// Heap returns local PE pe's partition when the host can address it
	// directly, else nil.
	Heap(pe int) []byte

	// Put copies src to pe's partition at off. It returns once src may be
	// reused.
	Put(from, pe int, off int64, src []byte) error
	// Get copies pe's partition at off into dst.
	Get(from, pe int, off int64, dst []byte) error
	// PutNBI is Put that may return before src may be reused; Quiet(from)
	// completes it.
	PutNBI(from, pe int, off int64, src []byte) error
	// GetNBI is Get that may return before dst is filled; Quiet(from)
	// completes it.
	GetNBI(from, pe int, off int64, dst []byte) error
	// Copy copies n bytes from srcPE's partition at srcOff to dstPE's at
	// dstOff, issued by from (one of the two). On device backends the
	// bytes move device to device. It returns when the copy is complete.
	Copy(from, dstPE int, dstOff int64, srcPE int, srcOff int64, n int64) error
	// PutSignal delivers src at off, then updates the uint64 signal word at
	// sigOff with op and sig; a PE that observes the update sees the data.
	// With nbi, src may be in use until Quiet(from). An empty src is a
	// signal operation alone; off is then sigOff.
	PutSignal(from, pe int, off int64, src []byte, sigOff int64, sig uint64, op SigOp, nbi bool) error
	// Atomic performs op on the word of kind k at pe's off and returns the
	// old value (the loaded value for OpFetch). cond is the comparand of
	// OpCompareSwap. Values carry the word's bits in the low bits.
	Atomic(from, pe int, off int64, k Kind, op AtomicOp, operand, cond uint64) (uint64, error)
	// Fence orders delivery of from's earlier operations to each PE before
	// its later ones to the same PE.
	Fence(from int) error
	// Quiet completes all of from's outstanding operations to all PEs.
	Quiet(from int) error
	// Wait evaluates req over local PE pe's words, blocking (unless
	// req.Test) until it is satisfied, ctx ends or abort is closed. It must
	// not spin on a core for long: idle waits park.
	Wait(ctx context.Context, pe int, abort <-chan struct{}, req WaitRequest) (WaitResult, error)
	// Close releases the world's resources. It is called once, after every
	// PE function returned.
	Close() error
}

// FailureNotifier is implemented by transports whose PEs run in several
// processes (LocalPEs is not every PE), so that a PE's failure reaches the
// blocking calls of the others as it does within one process.
type FailureNotifier interface {
	// NotifyFailure tells the other processes that local PE pe failed
	// with err. It is called once per failing PE, before Close.
	NotifyFailure(pe int, err error)
	// WatchFailures calls failed for a PE of another process that failed
	// (msg: its error, as text), and returns when ctx ends. pgas calls it
	// on a goroutine of its own and waits for it before Close.
	WatchFailures(ctx context.Context, failed func(pe int, msg string))
}

// ErrClosed is what a transport's Wait or Park returns when Close ended
// it: a call of the world still in flight on another goroutine as the
// world closed. pgas reports it as pgas.ErrWorldEnded.
var ErrClosed = errors.New("driver: the transport closed during the wait")

// AbortTransport is implemented by transports whose GPUs wait on their
// own (stream-ordered waits, the runtime's kernels, device collectives,
// kernel actors): such a wait for a PE that failed would otherwise hold
// the GPU, and the process, for good. Abort ends every one of them, now
// and from then on, and is safe from any goroutine and more than once;
// pgas calls it when a PE fails, when the PEs' context ends, and after
// every PE function returned, before Close. What the aborted waits'
// routines and collectives leave in memory is undefined.
type AbortTransport interface {
	Abort()
}

// StridedTransport is implemented by transports that move strided
// elements in one operation (a 2-D copy, nvshmem_iput). pgas packs the
// local side itself; without this interface, or when a method returns an
// error wrapping errors.ErrUnsupported having done nothing (a stride too
// long for a 2-D copy, a PE it cannot map), it issues one Put or Get per
// element.
type StridedTransport interface {
	// PutStrided copies n elements of elem bytes each, packed in src, to
	// pe's partition at off, off+stride, … (stride ≥ elem). It returns once
	// src may be reused; with nbi, once Quiet(from) returns.
	PutStrided(from, pe int, off, stride, elem int64, n int, src []byte, nbi bool) error
	// GetStrided copies n elements of elem bytes each from pe's partition
	// at off, off+stride, … into dst, packed. It returns when dst is
	// filled.
	GetStrided(from, pe int, off, stride, elem int64, n int, dst []byte) error
}

// RegisterTransport is a backend that maps existing device memory into its
// partitions past the heap (pgas.RegisterSymmetric, as NVSHMEM's
// nvshmemx_buffer_register_symmetric): pgas picks the same offset on every
// PE and calls Register on each, which maps the memory there or, where the
// backend places registered memory itself (NVSHMEM picks the symmetric
// address), where it places it.
type RegisterTransport interface {
	// RegisterSpan is where registered buffers may go in every partition:
	// offsets [lo, hi), each buffer at a multiple of align and its length
	// rounded up to one. An empty span (hi <= lo) says the backend cannot
	// register here.
	RegisterSpan() (lo, hi, align int64)
	// Register maps the n bytes of device memory at buf (the start of an
	// allocation of PE me's GPU made with CUDA's virtual memory
	// management) at off of me's partition, where every PE that reaches
	// the partition reaches them, and returns off; a backend that places
	// registered memory itself maps it at an offset of its choosing in
	// [lo, hi), the same on every PE, and returns that.
	Register(me int, off int64, buf uintptr, n int64) (int64, error)
	// Unregister unmaps what Register mapped at off of me's partition.
	Unregister(me int, off, n int64) error
}

// ClaimTransport is implemented by transports that run pgas.PutSignalIf
// as one routine where the memory is (the GPU backends' agent), rather
// than a compare-and-swap, a round trip, and a put-with-signal.
type ClaimTransport interface {
	// ClaimPutSignal compare-and-swaps the 8-byte word at sigOff in pe's
	// partition from cond to claim and, only if it held cond, copies src
	// to off there and then sets the word to v, the data before the
	// signal as PutSignal orders them. It returns the word's old value
	// once all of it is done. An error wrapping errors.ErrUnsupported,
	// having done nothing (src too large, a PE it cannot reach this way),
	// makes pgas do it in two steps.
	ClaimPutSignal(from, pe int, off int64, src []byte, sigOff int64, cond, claim, v uint64) (uint64, error)
}

// UnorderedTransport is implemented by transports whose PutSignal pays to
// order its data before its signal (a system-scope fence on GPUs) and can
// leave the order out, for data that carries its own check
// (pgas.PutSignalUnordered; actors' sealed mailbox slots).
type UnorderedTransport interface {
	// PutSignalUnordered is PutSignal, not NBI, without the order between
	// data and signal: a PE that observes the update may still read older
	// bytes at off for a while; every byte lands eventually.
	PutSignalUnordered(from, pe int, off int64, src []byte, sigOff int64, sig uint64, op SigOp) error
}

// ParkTransport is implemented by transports whose PEs all run as
// goroutines of this process with their partitions in host memory (the
// host backend). It is the host fast path of messaging layers above pgas
// (package actors, through pgas.Park): a receiver that reads its own words
// in place parks until a write lands among them, and the writer's
// PutSignal (or any other write there) wakes it, handing its processor
// over as a Go channel send does — one parking mechanism with Wait's,
// without a wait set to evaluate.
type ParkTransport interface {
	// Park blocks the calling goroutine of PE pe until ready reports true,
	// ctx ends (its error) or abort closes (any other error). ready runs on
	// the calling goroutine: at once, while the backend polls before
	// parking (as its Wait does), and after each write into pe's bytes
	// [lo, hi). Writes before Park's arming are seen by its next call of
	// ready, so none is missed.
	Park(ctx context.Context, pe int, abort <-chan struct{}, lo, hi int64, ready func() bool) error
}

// StreamTransport is implemented by transports whose PEs are GPUs: their
// routines can be enqueued on a stream of a PE's GPU, to run in order with
// the kernels queued there (NVSHMEM's *_on_stream). Where a transport does
// not implement it, pgas runs the same routines in order on a goroutine of
// the PE (a host stream).
type StreamTransport interface {
	// NewStream makes a stream of local PE me's GPU.
	NewStream(me int) (Stream, error)
}

// A Stream enqueues PE me's routines on a stream of its GPU: each method
// but Sync and Close returns once its routine is enqueued, and the stream
// runs them in order, each after the stream's earlier work is complete.
// Offsets are in partitions; pgas has checked every argument. A Stream is
// used by one goroutine at a time.
type Stream interface {
	// Copy copies n bytes from srcPE's partition at srcOff to dstPE's at
	// dstOff; me is one of the two.
	Copy(dstPE int, dstOff int64, srcPE int, srcOff int64, n int64) error
	// PutSignal copies n bytes of me's partition at srcOff to pe's at off
	// (none when n is 0), then updates pe's uint64 signal word at sigOff
	// with op and sig: a PE that observes the update sees the data.
	PutSignal(pe int, off, srcOff, n, sigOff int64, sig uint64, op SigOp) error
	// Wait makes the stream's later work wait until me's uint64 word at
	// off compares as cmp says to v.
	Wait(off int64, cmp Cmp, v uint64) error
	// Atomic performs op on the word of kind k at pe's off, and stores the
	// old value (8 bytes, the value in the low bits) in me's partition at
	// resultOff unless resultOff is negative.
	Atomic(pe int, off int64, k Kind, op AtomicOp, operand, cond uint64, resultOff int64) error
	// Quiet makes the stream's later work start after its earlier puts to
	// other PEs are complete (nvshmemx_quiet_on_stream), as pgas needs
	// before a kernel of its own that publishes them (a collective's
	// phase); a stream whose puts complete in stream order enqueues
	// nothing.
	Quiet() error
	// Sync returns once the work enqueued so far is complete, with the
	// stream's error if it failed.
	Sync() error
	// Device is the stream as the device API sees it, for kernels and
	// graph capture.
	Device() *device.Stream
	// Close syncs the stream and releases it.
	Close() error
}

// Kind is the type of a word that atomics and waits operate on.
type Kind uint8

// Word kinds.
const (
	KindInt32 Kind = iota + 1
	KindUint32
	KindInt64
	KindUint64
)

// Size is the word's size in bytes.
func (k Kind) Size() int64 {
	if k == KindInt32 || k == KindUint32 {
		return 4
	}
	return 8
}

// Signed reports whether comparisons treat the word as signed.
func (k Kind) Signed() bool { return k == KindInt32 || k == KindInt64 }

// AtomicOp is an atomic memory operation.
type AtomicOp uint8

// Atomic operations. Every one returns the previous value.
const (
	OpFetch AtomicOp = iota + 1
	OpSet
	OpSwap
	OpCompareSwap
	OpFetchAdd
	OpFetchAnd
	OpFetchOr
	OpFetchXor
)

// SigOp is how a signal word is updated: NVSHMEM_SIGNAL_SET or
// NVSHMEM_SIGNAL_ADD (pgas.SigOp names it too).
type SigOp uint8

// Signal update operations.
const (
	SignalSet SigOp = iota + 1 // the word becomes the value
	SignalAdd                  // the value is added to the word
)

// Valid reports whether op is SignalSet or SignalAdd.
func (op SigOp) Valid() bool { return op == SignalSet || op == SignalAdd }

// String returns the constant's name ("SignalSet", "SignalAdd").
func (op SigOp) String() string {
	switch op {
	case SignalSet:
		return "SignalSet"
	case SignalAdd:
		return "SignalAdd"
	}
	return fmt.Sprintf("SigOp(%d)", uint8(op))
}

// Cmp is a point-to-point comparison operator, NVSHMEM_CMP_* (pgas.Cmp
// names it too).
type Cmp uint8

// Comparison operators: the word compared with the value.
const (
	CmpEQ Cmp = iota + 1
	CmpNE
	CmpGT
	CmpGE
	CmpLT
	CmpLE
)

// Valid reports whether c is one of the comparison operators.
func (c Cmp) Valid() bool { return c >= CmpEQ && c <= CmpLE }

// String returns the comparison's short name ("EQ", "GE", …).
func (c Cmp) String() string {
	switch c {
	case CmpEQ:
		return "EQ"
	case CmpNE:
		return "NE"
	case CmpGT:
		return "GT"
	case CmpGE:
		return "GE"
	case CmpLT:
		return "LT"
	case CmpLE:
		return "LE"
	}
	return fmt.Sprintf("Cmp(%d)", uint8(c))
}

// WaitMode says what a WaitRequest waits for (pgas.WaitMode names it
// too).
type WaitMode uint8

// Wait modes, after wait_until_all / _any / _some.
const (
	WaitAll WaitMode = iota + 1
	WaitAny
	WaitSome
)

// NoIndex is the index a wait-any or test-any reports when nothing can be
// reported: the spec's SIZE_MAX.
const NoIndex = -1

// WaitRequest is a wait set over N consecutive words of one kind in a local
// partition, as the spec's wait_until_* and test_* routines take it.
type WaitRequest struct {
	Mode WaitMode
	Test bool // evaluate once and return (test_*), never block
	Kind Kind
	Off  int64 // offset of word 0
	N    int
	// Status excludes word i when Status[i] != 0; nil includes every word.
	Status []int
	Cmp    Cmp
	// Value is the comparand; Values, when not nil, gives one per word
	// (the _vector forms).
	Value  uint64
	Values []uint64
	// Start is the index an any-wait scans from, for fairness.
	Start int
	// Indices receives the satisfied indices of a some-wait (len >= N).
	Indices []int
	// Fetch, when its Bytes is not 0, is data a some- or any-wait reads
	// beside the words it reports.
	Fetch Fetch
}

// Fetch asks a wait to read, for the k-th index i it reports, Bytes bytes
// at offset Off + i·Stride of the same partition into Into[k·Bytes:], after
// word i was seen to satisfy the condition (so the data of a
// put-with-signal that set it is seen whole). Bytes is 1 … MaxFetchBytes.
type Fetch struct {
	Off, Stride int64
	Bytes       int
	Into        []byte
}

// MaxFetchBytes is the most a Fetch reads per index: a mailbox slot's
// 24-byte header and a payload of up to 48 bytes (package actors), so that
// a small message needs no read after its wait.
const MaxFetchBytes = 72

// Reported calls fn(k, i) for the k-th index i that r, a result of req,
// reports: Indices[:r.N] of a some-wait, the index of an any-wait that
// found one; none for an all-wait.
func Reported(req *WaitRequest, r WaitResult, fn func(k, i int)) {
	switch req.Mode {
	case WaitSome:
		for k, i := range req.Indices[:r.N] {
			fn(k, i)
		}
	case WaitAny:
		if r.N != NoIndex {
			fn(0, r.N)
		}
	}
}

// WaitResult is what a wait reports.
type WaitResult struct {
	// N is: for WaitAll, 1 if satisfied (always 1 unless Test); for
	// WaitAny, the index found or NoIndex; for WaitSome, the number of
	// indices written.
	N int
	// Word is the value of the satisfying word, for a one-word all-wait
	// or an any-wait that found one.
	Word uint64
}
