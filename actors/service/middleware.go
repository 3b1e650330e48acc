package service

import (
	"context"
	"fmt"
	"time"

	"github.com/symchan/symchan/internal/errtext"
)

// A Middleware wraps every call a PE serves, as protoactor-go's receive
// middleware wraps a receive: on the PE's goroutine, with the call's
// context and what the call is (CallInfo), it runs next, which serves the
// call (the Actor's Serve) and returns its error, and may do what it
// likes around it: time it, trace it, count it. It must call next once
// and return its error, or an error of its own that the caller then gets
// (next's result is then dropped). The service holds it to that: a
// middleware that returns nil without calling next fails the call with
// ErrMiddleware (the caller would otherwise get a zero answer as if
// served); a second call of next is refused with ErrMiddleware (the actor
// serves a call once); and a middleware's panic fails that call alone with
// ErrMiddleware, not the PE (an exporter's bug must not restart the
// world). A panic of the actor under next still fails the PE, as without
// middlewares. The exporters (promstats.Calls, otelstats.Middleware) are
// middlewares; Intercept installs them.
//
// The context is the caller's own for a call made in this process (its
// values, a trace span for one, reach the middleware and the actor); for
// a call from another process it carries the caller's deadline and what
// the Carrier carried.
type Middleware func(ctx context.Context, c CallInfo, next func(ctx context.Context) error) error

// CallInfo describes a call to its middlewares.
type CallInfo struct {
	PE     int  // the PE that serves it
	Remote bool // made in another process (through the world's mailbox)
	// Sent is when the caller made it (zero for a remote call: another
	// host's clock), and Started when the PE took it: Started − Sent is
	// the time it waited in the queue.
	Sent, Started time.Time
}

// A Carrier carries values of a call's context across processes, as
// OpenTelemetry's propagators carry a trace: Inject, on the caller's
// side, writes what ctx carries as bytes that travel with the request;
// Extract, on the serving PE's side, returns ctx with them put back.
// Within a process the caller's context itself reaches the PE, so a
// Carrier only matters to calls between processes.
type Carrier interface {
	Inject(ctx context.Context) []byte
	Extract(ctx context.Context, b []byte) context.Context
}

// maxCarried bounds what a Carrier may add to a request.
const maxCarried = 4 << 10

// Intercept installs middlewares around every call the service's PEs
// serve: the first is the outermost. Several Intercept options append.
func Intercept(mw ...Middleware) Option {
	return func(o *options) error {
		for i, m := range mw {
			if m == nil {
				return fmt.Errorf("%w: Intercept: middleware %d is nil", ErrBadArg, i)
			}
		}
		o.middleware = append(o.middleware, mw...)
		return nil
	}
}

// Carry makes c carry context values with the calls between processes
// (see Carrier); it carries at most 4 KiB a call.
func Carry(c Carrier) Option {
	return func(o *options) error {
		if c == nil {
			return fmt.Errorf("%w: Carry(nil)", ErrBadArg)
		}
		o.carrier = c
		return nil
	}
}

// intercepted serves a call through the middlewares: serve is the
// actor's part.
func (o *options) intercepted(ctx context.Context, c CallInfo, serve func(ctx context.Context) error) error {
	next := serve
	for i := len(o.middleware) - 1; i >= 0; i-- {
		next = held(i, o.middleware[i], c, next)
	}
	return next(ctx)
}

// held runs middleware i (mw) around inner, holding it to its contract
// (see Middleware).
func held(i int, mw Middleware, c CallInfo, inner func(ctx context.Context) error) func(ctx context.Context) error {
	return func(ctx context.Context) (err error) {
		calls := 0
		below := false // a panic came from inner: the actor's, the PE's to report
		next := func(ctx context.Context) error {
			if calls++; calls > 1 {
				return fmt.Errorf("%w: middleware %d called next a second time", ErrMiddleware, i)
			}
			defer func() {
				if r := recover(); r != nil {
					below = true
					panic(r)
				}
			}()
			return inner(ctx)
		}
		defer func() {
			if r := recover(); r != nil {
				if below {
					panic(r)
				}
				err = fmt.Errorf("%w: middleware %d panicked: %s", ErrMiddleware, i, errtext.OneLine(fmt.Sprint(r)))
			}
		}()
		err = mw(ctx, c, next)
		if err == nil && calls == 0 {
			err = fmt.Errorf("%w: middleware %d returned without calling next or returning an error", ErrMiddleware, i)
		}
		return err
	}
}
