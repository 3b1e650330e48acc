package pgas

import (
	"context"
	"fmt"
	"sort"
	"sync"
)

// A Backend opens worlds. Backends register under a name with [Register],
// as database/sql drivers do, usually from an init function of their
// package; a program selects one by importing it and naming it in
// [Config.Backend] or SYMCHAN_BACKEND.
type Backend interface {
	// Open starts a world of cfg.PEs PEs (cfg is resolved: every field is
	// set, except PEs, which is 0 when the backend should choose).
	Open(cfg Config) (Transport, error)
}

// A Transport is one open world of a backend. The pgas package validates
// every argument (PE ranges, bounds, alignment, overlap) before it calls a
// Transport, so implementations may assume offsets are inside the heap and
// aligned for their kind. Offsets are byte offsets into a PE's partition.
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

	// Put copies src to pe's partition at off, issued by from. It returns
	// once src may be reused.
	Put(from, pe int, off int64, src []byte) error
	// Get copies pe's partition at off into dst, issued by from.
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
	// signal operation alone (SignalOp); off is then sigOff.
	PutSignal(from, pe int, off int64, src []byte, sigOff int64, sig uint64, op SigOp, nbi bool) error
	// Atomic performs op on the word of kind k at pe's off and returns the
	// old value (the loaded value for OpFetch). cond is the comparand
	// of OpCompareSwap. Values carry the word's bits in the low bits.
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
	// (msg: its error, as text), and returns when ctx ends. Run calls it
	// on a goroutine of its own and waits for it before Close.
	WatchFailures(ctx context.Context, failed func(pe int, msg string))
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

// AtomicOp is an atomic memory operation of a Transport.
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
// NVSHMEM_SIGNAL_ADD.
type SigOp uint8

// Signal update operations.
const (
	SignalSet SigOp = iota + 1 // the word becomes the value
	SignalAdd                  // the value is added to the word
)

func (op SigOp) valid() bool { return op == SignalSet || op == SignalAdd }

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

// Cmp is a point-to-point comparison operator (NVSHMEM_CMP_*).
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

func (c Cmp) valid() bool { return c >= CmpEQ && c <= CmpLE }

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

// Compare reports whether word cmp value holds for words of kind k whose
// bits are in the low bits of word and value.
func (c Cmp) Compare(k Kind, word, value uint64) bool {
	var lt, eq bool
	switch k {
	case KindInt32:
		a, b := int32(word), int32(value)
		lt, eq = a < b, a == b
	case KindUint32:
		a, b := uint32(word), uint32(value)
		lt, eq = a < b, a == b
	case KindInt64:
		a, b := int64(word), int64(value)
		lt, eq = a < b, a == b
	default:
		lt, eq = word < value, word == value
	}
	switch c {
	case CmpEQ:
		return eq
	case CmpNE:
		return !eq
	case CmpGT:
		return !lt && !eq
	case CmpGE:
		return !lt
	case CmpLT:
		return lt
	case CmpLE:
		return lt || eq
	}
	return false
}

// WaitMode says what a WaitRequest waits for.
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

var (
	backendsMu sync.RWMutex
	backends   = map[string]Backend{}
)

// Register makes a backend available under name. It panics if name is
// taken or b is nil, as database/sql.Register does.
func Register(name string, b Backend) {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if b == nil {
		panic("pgas: Register backend is nil")
	}
	if _, dup := backends[name]; dup {
		panic("pgas: Register called twice for backend " + name)
	}
	backends[name] = b
}

// Backends returns the sorted names of the registered backends.
func Backends() []string {
	backendsMu.RLock()
	defer backendsMu.RUnlock()
	names := make([]string, 0, len(backends))
	for n := range backends {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func lookupBackend(name string) (Backend, error) {
	backendsMu.RLock()
	b, ok := backends[name]
	backendsMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("pgas: unknown backend %q (registered: %v; GPU backends need their package imported and a binary built with -tags cuda)", name, Backends())
	}
	return b, nil
}
