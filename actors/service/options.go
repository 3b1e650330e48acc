package service

import (
	"context"
	"fmt"
	"log/slog"
	"time"
)

// Defaults of the options.
const (
	DefaultQueueDepth   = 128
	DefaultForwarders   = 32
	DefaultMaxRequest   = 1 << 20
	DefaultMaxReply     = 16 << 10
	DefaultStartTimeout = time.Minute
)

// An Option configures a service ([Start], [StartCodec]). Every process
// of a world must pass the same options.
type Option func(*options) error

type options struct {
	log          *slog.Logger
	policy       RestartPolicy
	queue        int
	queueWait    time.Duration // QueueWait; 0: none
	forwarders   int
	maxRequest   int
	maxReply     int
	startTimeout time.Duration
	middleware   []Middleware // Intercept
	carrier      Carrier      // Carry; nil: none
	// forwardAll routes every call through the lowest local PE and the
	// world's mailboxes, as calls to another process's PE travel (tests
	// of that path on backends of one process).
	forwardAll bool
}

func newOptions(opts []Option) (options, error) {
	o := options{
		log:          slog.New(discard{}),
		policy:       DefaultRestartPolicy,
		queue:        DefaultQueueDepth,
		forwarders:   DefaultForwarders,
		maxRequest:   DefaultMaxRequest,
		maxReply:     DefaultMaxReply,
		startTimeout: DefaultStartTimeout,
	}
	for _, opt := range opts {
		if opt == nil {
			return o, fmt.Errorf("%w: nil Option", ErrBadArg)
		}
		if err := opt(&o); err != nil {
			return o, err
		}
	}
	return o, nil
}

func positive(name string, n int) error {
	if n <= 0 {
		return fmt.Errorf("%w: %s(%d): must be positive", ErrBadArg, name, n)
	}
	return nil
}

// Logger sets where lifecycle events go: the world's start and stop, a
// PE's failure, each restart and the policy's exhaustion (default:
// nowhere).
func Logger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return fmt.Errorf("%w: Logger(nil)", ErrBadArg)
		}
		o.log = l
		return nil
	}
}

// Restart sets the restart policy (default DefaultRestartPolicy).
func Restart(p RestartPolicy) Option {
	return func(o *options) error {
		if err := p.check(); err != nil {
			return err
		}
		o.policy = p
		return nil
	}
}

// QueueDepth sets how many calls may wait for one PE (default 128), and
// CallAny's inbox holds as many per local PE; a call beyond them blocks
// until one is taken or its context ends (ErrOverloaded).
func QueueDepth(n int) Option {
	return func(o *options) error {
		o.queue = n
		return bounded("QueueDepth", n, MaxQueueDepth)
	}
}

// MaxQueueDepth bounds QueueDepth: a queue slot is a pointer per local PE
// and per CallAny inbox, allocated at Start.
const MaxQueueDepth = 1 << 20

// QueueWait bounds how long a call may wait to start, apart from its
// context's deadline (default 0: no bound but the deadline): a call not
// taken by its PE (or, to another process's PE, by a forwarder) within d
// fails at once with ErrOverloaded, counted as rejected, and never
// reaches a PE. Under overload, callers then learn it in d rather than at
// their deadline, and a PE spends no time on calls whose callers left. A
// call's own bound (WithQueueWait) takes precedence. A call to another
// process's PE starts when a forwarder takes it: the bound covers this
// process's queue, not the remote PE's.
func QueueWait(d time.Duration) Option {
	return func(o *options) error {
		if d < 0 {
			return fmt.Errorf("%w: QueueWait(%v): must not be negative", ErrBadArg, d)
		}
		o.queueWait = d
		return nil
	}
}

// queueWaitKey is WithQueueWait's context key.
type queueWaitKey struct{}

// WithQueueWait returns a context whose calls (Call, CallAny, TryCall)
// wait at most d to start, in place of the service's QueueWait; d ≤ 0
// means no bound but the deadline.
func WithQueueWait(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, queueWaitKey{}, d)
}

// queueWaitOf is the bound of a call made with ctx: its own, else the
// service's.
func (o *options) queueWaitOf(ctx context.Context) time.Duration {
	if d, ok := ctx.Value(queueWaitKey{}).(time.Duration); ok {
		return max(d, 0)
	}
	return o.queueWait
}

// Forwarders sets how many calls to other processes' PEs this process has
// under way at once (default 32, at most MaxForwarders); each holds a
// reply slot of MaxReply bytes in the symmetric heap.
func Forwarders(n int) Option {
	return func(o *options) error {
		o.forwarders = n
		return bounded("Forwarders", n, MaxForwarders)
	}
}

// MaxRequest sets the largest encoded request that travels to another
// process's PE (default 1 MiB, at most MaxMessageBytes).
func MaxRequest(n int) Option {
	return func(o *options) error {
		o.maxRequest = n
		return bounded("MaxRequest", n, MaxMessageBytes)
	}
}

// MaxReply sets the largest encoded reply from another process's PE
// (default 16 KiB, at most MaxMessageBytes).
func MaxReply(n int) Option {
	return func(o *options) error {
		o.maxReply = n
		return bounded("MaxReply", n, MaxMessageBytes)
	}
}

// Bounds of the options, checked before Start allocates anything: a
// future slot per forwarder, and a message size the mailboxes and reply
// slots can hold.
const (
	MaxForwarders   = 1 << 16
	MaxMessageBytes = 1<<30 - 1
)

// bounded checks that 0 < n ≤ most.
func bounded(name string, n, most int) error {
	if n > most {
		return fmt.Errorf("%w: %s(%d): at most %d", ErrBadArg, name, n, most)
	}
	return positive(name, n)
}

// StartTimeout bounds each restart of the world (default one minute); a
// restart that does not finish in time counts as a failure.
func StartTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("%w: StartTimeout(%v): must be positive", ErrBadArg, d)
		}
		o.startTimeout = d
		return nil
	}
}

// discard is a slog.Handler that drops every record: the log of a service
// that was given none.
type discard struct{}

func (discard) Enabled(context.Context, slog.Level) bool  { return false }
func (discard) Handle(context.Context, slog.Record) error { return nil }
func (d discard) WithAttrs([]slog.Attr) slog.Handler      { return d }
func (d discard) WithGroup(string) slog.Handler           { return d }
