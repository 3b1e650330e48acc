package pgas

import (
	"context"
	"errors"
)

// ErrStopped is the cause of the PEs' context when [Handle.Stop] ends
// their world: context.Cause(ctx) of a PE function returns it.
var ErrStopped = errors.New("pgas: world stopped")

// A Handle is a world that [Start] runs in the background, for programs
// that hold their PEs for longer than one call: a service that keeps its
// GPUs while it serves, stops its world with [Handle.Stop] on shutdown and
// may start another afterwards. Its methods are safe for concurrent use.
type Handle struct {
	w      *World
	cancel context.CancelCauseFunc
	done   chan struct{}
	err    error // run's error, set before done is closed
}

// Start opens a world as [Run] does and calls fn on every PE in the
// background. It returns once the world is open (a configuration or
// backend error is Start's error), with ctx bounding the start only: the
// world runs until [Handle.Stop] or until every PE function has returned.
// The PEs' context carries ctx's values; it is cancelled by Stop (its
// cause ErrStopped) or when a PE fails, as in Run.
func Start(ctx context.Context, cfg Config, fn func(ctx context.Context, pe *PE) error) (*Handle, error) {
	w, err := open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	runCtx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	h := &Handle{w: w, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		defer cancel(nil)
		h.err = w.run(runCtx, fn)
	}()
	return h, nil
}

// World is the world the handle runs.
func (h *Handle) World() *World { return h.w }

// Done is closed when the world has ended: every PE function returned and
// the backend's resources (heaps, GPU contexts, agents) were released.
func (h *Handle) Done() <-chan struct{} { return h.done }

// Err is the world's error once Done is closed (nil before): a *RunError,
// as Run returns. A PE that returns the cancellation
// of a Stop, or an error that the stop caused in a call under way (a
// collective it broke: ErrTeamBroken or ErrCollectiveMismatch; a wait whose
// writers returned: ErrNoWriters), has not failed.
func (h *Handle) Err() error {
	select {
	case <-h.done:
		return h.err
	default:
		return nil
	}
}

// Stop ends the world gracefully: it cancels the PEs' context (cause
// ErrStopped) and waits until every PE function has returned and the
// backend is closed, or until ctx ends, when it returns ctx's error and the
// world goes on stopping in the background (Done says when it has). It
// returns the world's error (see Err). Calling Stop more than once, or
// after the world ended by itself, is fine.
func (h *Handle) Stop(ctx context.Context) error {
	h.cancel(ErrStopped)
	select {
	case <-h.done:
		return h.err
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
