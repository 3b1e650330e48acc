package pgas

import (
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/symchan/symchan/internal/errtext"
)

// Errors a caller can test for with errors.Is. Returned errors wrap them
// with the details (which PE, which sizes).
var (
	// ErrWorldEnded: the world has ended (its Run returned).
	ErrWorldEnded = errors.New("pgas: world has ended")
	// ErrBadPE: a PE id outside the world or team.
	ErrBadPE = errors.New("pgas: PE out of range")
	// ErrBadSym: a zero, freed, or foreign (another world's) Sym.
	ErrBadSym = errors.New("pgas: invalid symmetric object")
	// ErrBadSize: a zero, negative, overflowing or too long size.
	ErrBadSize = errors.New("pgas: bad size")
	// ErrBadArg: any other invalid argument (operator, alignment,
	// overlapping signal and data, short index slice, ...).
	ErrBadArg = errors.New("pgas: bad argument")
	// ErrHeapExhausted: the symmetric heap has no block large enough.
	ErrHeapExhausted = errors.New("pgas: symmetric heap exhausted")
	// ErrCollectiveMismatch: PEs made different collective calls
	// (allocations of other sizes or in another order, team splits with
	// other arguments), or a PE waits in a barrier or collective that a
	// member of its team will never join (it returned or destroyed the
	// team first).
	ErrCollectiveMismatch = errors.New("pgas: collective call mismatch")
	// ErrTeamBroken: a barrier, collective, collective allocation or team
	// split of the team did not complete on every member; every member
	// got a *CollectiveError, and every later call on the team fails.
	ErrTeamBroken = errors.New("pgas: team is broken")
	// ErrNoWriters: a wait that names the PEs able to satisfy it
	// (WaitSet.From) can never end: every one of them has returned.
	ErrNoWriters = errors.New("pgas: no PE that could satisfy the wait is running")
	// ErrNotGPU: PE.GPU on a backend whose PEs are not GPUs.
	ErrNotGPU = errors.New("pgas: PE is not a GPU")
)

// PEError is the failure of one PE: its function returned an error or
// panicked. Blocking calls on other PEs that were aborted by the failure
// return an error wrapping it, so errors.As finds the PE that failed.
type PEError struct {
	PE  int
	Err error
}

// Error names the PE and its error, on one line (newlines in the error's
// text escaped as \n; Err keeps the error itself).
func (e *PEError) Error() string { return fmt.Sprintf("pgas: PE %d failed: %s", e.PE, e.cause()) }

// cause is the text of the PE's error, on one line.
func (e *PEError) cause() string { return errtext.OneLine(fmt.Sprint(e.Err)) }

// Unwrap returns the PE's own error.
func (e *PEError) Unwrap() error { return e.Err }

// Stack is the stack of the goroutine whose panic failed the PE (a
// *PanicError in Err's chain), or nil: error texts stay one line, and a
// log that wants the stack asks for it once.
func (e *PEError) Stack() []byte {
	var pe *PanicError
	if errors.As(e.Err, &pe) {
		return pe.Stack
	}
	return nil
}

// PanicError is a panic recovered in a PE's function or one of its
// goroutines: its text is the panic's value, on one line (newlines
// escaped as \n; Value keeps the value itself); Stack is the panicking
// goroutine's stack (debug.Stack).
type PanicError struct {
	Value any
	Where string // "" (the PE's function), or where else it panicked
	Stack []byte
}

// NewPanicError records a panic's value r and the current goroutine's
// stack; where, if not empty, says where it happened. Call it from the
// deferred function that recovered r.
func NewPanicError(r any, where string) *PanicError {
	return &PanicError{Value: r, Where: where, Stack: debug.Stack()}
}

// Error is "panic: value" (or "panic in where: value"), on one line.
func (e *PanicError) Error() string {
	v := errtext.OneLine(fmt.Sprint(e.Value))
	if e.Where != "" {
		return fmt.Sprintf("panic in %s: %s", e.Where, v)
	}
	return "panic: " + v
}

// Unwrap returns the panic's value when it is an error.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}

// RemoteError is the error of a PE of another process, as its process
// reported it (driver.FailureNotifier): its text only.
type RemoteError struct{ Msg string }

// Error is the remote PE's message, on one line, marked as coming from
// another process.
func (e *RemoteError) Error() string { return errtext.OneLine(e.Msg) + " (in its own process)" }

var errNilPE = fmt.Errorf("%w: nil *PE", ErrBadArg)

func badPE(pe, n int) error {
	return fmt.Errorf("%w: PE %d not in [0, %d)", ErrBadPE, pe, n)
}
