package actors

import (
	"context"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/symchan/symchan/pgas"
)

// Chan is a typed channel between PEs: every PE has a receiving end (its
// inbox) and can send to any PE. It is created collectively by NewChan.
//
//	ch, err := actors.NewChan[float64](ctx, pe)
//	err = ch.Send(ctx, (pe.ID()+1)%pe.NumPEs(), 3.14)
//	v, err := ch.Recv(ctx)
//
// Go channel semantics map as follows: Send to a full receiver blocks
// (TrySend returns ErrFull); Close closes the calling PE's sending side
// and later Sends from it return ErrClosed (closing twice too); once every
// PE has closed and the inbox is drained, Recv returns the zero value and
// ErrClosed and the C view is closed, like a receive from a closed Go
// channel.
type Chan[T any] struct {
	mb    *Mailbox
	codec Codec[T]
	raw   bool      // plain T that fits one slot: encoded straight into it
	bufs  sync.Pool // *[]byte encode buffers

	viewOnce sync.Once
	viewing  atomic.Bool
	view     chan T
	viewErr  atomic.Pointer[error]
}

// NewChan collectively creates a Chan of T, which must be plain fixed-size
// data (numbers, arrays and structs of them): its values travel as their
// bytes. Other types need a codec: [NewChanCodec].
func NewChan[T any](ctx context.Context, pe *pgas.PE, opts ...MailboxOption) (*Chan[T], error) {
	codec, err := PlainCodec[T]()
	return newChan(ctx, pe, codec, err, opts)
}

// NewChanCodec collectively creates a Chan of T whose values travel as
// codec encodes them.
func NewChanCodec[T any](ctx context.Context, pe *pgas.PE, codec Codec[T], opts ...MailboxOption) (*Chan[T], error) {
	codec, err := givenCodec(codec)
	return newChan(ctx, pe, codec, err, opts)
}

func newChan[T any](ctx context.Context, pe *pgas.PE, codec Codec[T], cerr error, opts []MailboxOption) (*Chan[T], error) {
	c, err := mailboxOptions(opts)
	if err != nil {
		return nil, err
	}
	// Allocate even when the codec is missing, so every PE makes the same
	// collective calls; then report.
	mb, err := newMailbox(ctx, pe, c, pe.HostMemory())
	if err != nil {
		return nil, err
	}
	if cerr != nil {
		return nil, cerr
	}
	var z T
	_, raw := codec.(rawCodec[T])
	raw = raw && int(unsafe.Sizeof(z)) <= mb.cap && int(unsafe.Sizeof(z)) <= mb.max
	return &Chan[T]{mb: mb, codec: codec, raw: raw}, nil
}

// Mailbox is the Chan's underlying Mailbox (nil for a zero Chan).
func (c *Chan[T]) Mailbox() *Mailbox {
	if c == nil {
		return nil
	}
	return c.mb
}

// zero reports a zero or nil Chan (not made by NewChan).
func (c *Chan[T]) zero() bool { return c == nil || c.mb.zero() }

func (c *Chan[T]) encode(v T) (*[]byte, error) {
	bp, _ := c.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	b, err := c.codec.Append((*bp)[:0], v)
	*bp = b
	return bp, err
}

// Send sends v to PE to, waiting for a free slot if need be.
func (c *Chan[T]) Send(ctx context.Context, to int, v T) error {
	if c.zero() {
		return errZero
	}
	if c.raw {
		return c.mb.sendPlain(ctx, to, unsafe.Pointer(&v), int(unsafe.Sizeof(v)), true)
	}
	bp, err := c.encode(v)
	if err == nil {
		err = c.mb.Send(ctx, to, *bp)
	}
	c.bufs.Put(bp)
	return err
}

// TrySend sends v to PE to, or fails with ErrFull if that would wait.
func (c *Chan[T]) TrySend(to int, v T) error {
	if c.zero() {
		return errZero
	}
	if c.raw {
		return c.mb.sendPlain(context.Background(), to, unsafe.Pointer(&v), int(unsafe.Sizeof(v)), false)
	}
	bp, err := c.encode(v)
	if err == nil {
		err = c.mb.TrySend(to, *bp)
	}
	c.bufs.Put(bp)
	return err
}

// Recv receives the next value sent to this PE.
func (c *Chan[T]) Recv(ctx context.Context) (T, error) {
	v, _, err := c.RecvFrom(ctx)
	return v, err
}

// RecvFrom is Recv that also returns the sender.
func (c *Chan[T]) RecvFrom(ctx context.Context) (v T, from int, err error) {
	if c.zero() {
		return v, -1, errZero
	}
	if c.viewing.Load() {
		return v, -1, ErrBusy
	}
	_, err = c.mb.recv(ctx, true, c.decodeInto(&v, &from))
	return v, from, err
}

// decodeInto returns a use function for Mailbox.recv that decodes the
// message into v and records its sender in from.
func (c *Chan[T]) decodeInto(v *T, from *int) func(Message) error {
	return func(x Message) (err error) {
		*from = x.From
		*v, err = c.codec.Decode(x.Data)
		return err
	}
}

// TryRecv receives a value if one is ready; ok reports whether it did.
func (c *Chan[T]) TryRecv() (v T, ok bool, err error) {
	if c.zero() {
		return v, false, errZero
	}
	if c.viewing.Load() {
		return v, false, ErrBusy
	}
	var from int
	ok, err = c.mb.recv(context.Background(), false, c.decodeInto(&v, &from))
	return v, ok, err
}

// Close closes this PE's sending side (see Mailbox.Close). It waits, up to
// ctx, for a free slot at each PE for its marker.
func (c *Chan[T]) Close(ctx context.Context) error {
	if c.zero() {
		return errZero
	}
	return c.mb.Close(ctx)
}

// C returns a Go channel of the values sent to this PE, for select. A
// helper goroutine (bound to the PE, see pgas.PE.Go) receives into it; the
// channel is closed when the inbox is closed and drained, on an error
// (see Err), or when the PE's function returns (a value the helper holds
// then, not yet taken from the channel, is dropped with the PE). Once C is
// called, Recv and TryRecv return ErrBusy. A zero Chan's C is a closed
// channel, and its Err says why.
func (c *Chan[T]) C() <-chan T {
	if c.zero() {
		closed := make(chan T)
		close(closed)
		return closed
	}
	c.viewOnce.Do(func() {
		c.viewing.Store(true)
		c.view = make(chan T)
		c.mb.pe.Go(func(ctx context.Context) {
			defer close(c.view)
			for {
				var v T
				var from int
				_, err := c.mb.recv(ctx, true, c.decodeInto(&v, &from))
				if err != nil {
					c.viewErr.Store(&err)
					return
				}
				select {
				case c.view <- v:
				case <-ctx.Done():
					err := context.Cause(ctx)
					c.viewErr.Store(&err)
					return
				}
			}
		})
	})
	return c.view
}

// Err is why the C channel was closed: ErrClosed after every PE closed
// its side, or the error that ended it; nil while it is open. A zero
// Chan's is an error wrapping ErrBadArg.
func (c *Chan[T]) Err() error {
	if c.zero() {
		return errZero
	}
	if p := c.viewErr.Load(); p != nil {
		return *p
	}
	return nil
}
