package pgas

import "github.com/symchan/symchan/pgas/driver"

// The operators and modes of signals and waits are the backend
// contract's own (pgas/driver): one declaration, named here too.

// SigOp is how a signal word is updated: NVSHMEM_SIGNAL_SET or
// NVSHMEM_SIGNAL_ADD.
type SigOp = driver.SigOp

// Signal update operations.
const (
	SignalSet = driver.SignalSet // the word becomes the value
	SignalAdd = driver.SignalAdd // the value is added to the word
)

// Cmp is a point-to-point comparison operator (NVSHMEM_CMP_*): the word
// compared with the value.
type Cmp = driver.Cmp

// Comparison operators.
const (
	CmpEQ = driver.CmpEQ
	CmpNE = driver.CmpNE
	CmpGT = driver.CmpGT
	CmpGE = driver.CmpGE
	CmpLT = driver.CmpLT
	CmpLE = driver.CmpLE
)

// WaitMode says what a wait waits for.
type WaitMode = driver.WaitMode

// Wait modes, after wait_until_all / _any / _some.
const (
	WaitAll  = driver.WaitAll
	WaitAny  = driver.WaitAny
	WaitSome = driver.WaitSome
)

// NoIndex is the index a wait-any or test-any reports when nothing can be
// reported: the spec's SIZE_MAX.
const NoIndex = driver.NoIndex

// WaitResult is what a wait reports (see driver.WaitResult).
type WaitResult = driver.WaitResult
