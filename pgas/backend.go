package pgas

import (
	"fmt"
	"sort"
	"sync"

	"github.com/symchan/symchan/pgas/driver"
	"github.com/symchan/symchan/pgas/host"
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

// WaitMode says what a wait waits for.
type WaitMode uint8

// Wait modes, after wait_until_all / _any / _some.
const (
	WaitAll WaitMode = iota + 1
	WaitAny
	WaitSome
)

// NoIndex is the index a wait-any or test-any reports when nothing can be
// reported: the spec's SIZE_MAX.
const NoIndex = driver.NoIndex

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
	backends   = map[string]driver.Backend{}
)

// Register makes a backend available under name, as database/sql.Register
// does for drivers: backend packages call it from an init function, and a
// program selects one by importing the package and naming it in
// [Config.Backend] or SYMCHAN_BACKEND. It panics if name is taken or b is
// nil. The contract a backend implements is package pgas/driver.
func Register(name string, b driver.Backend) {
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

func lookupBackend(name string) (driver.Backend, error) {
	backendsMu.RLock()
	b, ok := backends[name]
	backendsMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("pgas: unknown backend %q (registered: %v; GPU backends need their package imported and a binary built with -tags cuda)", name, Backends())
	}
	return b, nil
}

// The host backend is built in and the default.
func init() { Register(DefaultBackend, host.Backend{}) }
