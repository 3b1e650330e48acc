package service

import (
	"errors"
	"fmt"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/internal/errtext"
	"github.com/symchan/symchan/pgas"
)

// Errors returned by the package; test with errors.Is.
var (
	// ErrStopped: a call after Stop began, or to a service whose restart
	// policy gave up (Err says why). The same error as pgas.ErrStopped.
	ErrStopped = pgas.ErrStopped
	// ErrRestarting: a call whose context ended while the world was
	// restarting after a failure (joined with the context's error).
	ErrRestarting = errors.New("service: the world is restarting")
	// ErrOverloaded: a call that did not start: the PE did not take it
	// within its queue-wait bound (QueueWait, WithQueueWait) or before
	// its context ended (joined with the context's error), or TryCall
	// found QueueDepth calls already waiting. It never reached the PE.
	ErrOverloaded = errors.New("service: the PE is overloaded")
	// ErrPEFailed: a call that was pending when a PE failed; the error
	// also wraps the *pgas.PEError naming the PE and its cause.
	ErrPEFailed = errors.New("service: a PE failed")
	// ErrRestartsExhausted: the world failed more often than the restart
	// policy allows; Err joins it with the last failure.
	ErrRestartsExhausted = errors.New("service: restart policy exhausted")
	// ErrMiddleware: a middleware broke its contract (see Middleware): it
	// returned without calling next or an error, called next twice, or
	// panicked; the call fails, the PE serves on.
	ErrMiddleware = errors.New("service: a middleware broke its contract")
	// ErrBadPE: a call to a PE outside the world; the same error as
	// pgas.ErrBadPE.
	ErrBadPE = pgas.ErrBadPE
	// ErrBadArg: an invalid option or argument; the same error as
	// pgas.ErrBadArg.
	ErrBadArg = pgas.ErrBadArg
	// ErrTooLarge: a request or reply above the size the options allow;
	// the same error as actors.ErrTooLarge.
	ErrTooLarge = actors.ErrTooLarge
)

// A ReplyError is the error an actor on another process's PE answered a
// call with: its error's text (an error value does not cross processes; a
// deadline or cancellation does, as context.DeadlineExceeded or
// context.Canceled).
type ReplyError struct {
	PE  int
	Msg string
}

// Error names the PE and the actor's text, on one line (newlines escaped
// as \n; Msg keeps the text itself).
func (e *ReplyError) Error() string {
	return fmt.Sprintf("service: PE %d: %s", e.PE, errtext.OneLine(e.Msg))
}

// Fatal marks err, returned by an actor's Serve, as one that leaves the PE
// unusable (a failed GPU call, a corrupted state): the call fails with it
// and the PE fails, so the world restarts under the restart policy. Any
// other error is only the call's answer. Fatal(nil) is nil.
func Fatal(err error) error {
	if err == nil {
		return nil
	}
	return &fatalError{err}
}

type fatalError struct{ err error }

func (e *fatalError) Error() string { return e.err.Error() }
func (e *fatalError) Unwrap() error { return e.err }

// isFatal reports whether err carries Fatal's mark.
func isFatal(err error) bool {
	var f *fatalError
	return errors.As(err, &f)
}
