package pgas

import "fmt"

// The operators and modes of signals and waits.

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
const NoIndex = -1

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
