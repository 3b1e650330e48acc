package actors

import "fmt"

// Defaults of the options.
const (
	DefaultSlots      = 16
	DefaultSlotSize   = 1 << 10
	DefaultMaxMessage = 64 << 20
	DefaultFutures    = 256
	DefaultReplySize  = 1 << 10
)

// Option configures a Mailbox, a Chan or a System. Every PE must pass the
// same options to a collective constructor.
type Option func(*config) error

type config struct {
	slots, slotSize, maxMessage int
	futures, replySize          int
	codec                       any  // a Codec[T] for the T of the Chan or Future
	viaGet                      bool // tests: the layout and receive path of device-memory partitions, on host memory
}

func defaults() config {
	return config{slots: DefaultSlots, slotSize: DefaultSlotSize, maxMessage: DefaultMaxMessage,
		futures: DefaultFutures, replySize: DefaultReplySize}
}

func configure(opts []Option) (config, error) {
	if len(opts) == 0 {
		return defaults(), nil // without the loop's escape of c: no allocation
	}
	return configureWith(opts)
}

func configureWith(opts []Option) (config, error) {
	c := defaults()
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Slots sets K, the slots per sender in every inbox (default 16): how many
// messages a sender may have in flight to one receiver.
func Slots(k int) Option {
	return func(c *config) error {
		if k < 1 || k > 1<<16 {
			return fmt.Errorf("actors: Slots(%d): want 1 … 65536", k)
		}
		c.slots = k
		return nil
	}
}

// SlotSize sets S, the bytes of a slot including its 16-byte header
// (default 1 KiB, a multiple of 8). Larger messages are chunked.
func SlotSize(s int) Option {
	return func(c *config) error {
		if s < 2*headerSize || s%8 != 0 || s > 1<<30 {
			return fmt.Errorf("actors: SlotSize(%d): want a multiple of 8 in [%d, 1 GiB]", s, 2*headerSize)
		}
		c.slotSize = s
		return nil
	}
}

// MaxMessage sets the largest message in bytes (default 64 MiB); larger
// sends fail with ErrTooLarge and write nothing.
func MaxMessage(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return fmt.Errorf("actors: MaxMessage(%d): negative", n)
		}
		c.maxMessage = n
		return nil
	}
}

// Futures sets how many futures a PE can have outstanding (default 256).
func Futures(n int) Option {
	return func(c *config) error {
		if n < 1 || n > 1<<20 {
			return fmt.Errorf("actors: Futures(%d): want 1 … 2^20", n)
		}
		c.futures = n
		return nil
	}
}

// ReplySize sets the largest reply a future accepts, in bytes (default
// 1 KiB).
func ReplySize(n int) Option {
	return func(c *config) error {
		if n < 1 || n > 1<<30 {
			return fmt.Errorf("actors: ReplySize(%d): want 1 … 1 GiB", n)
		}
		c.replySize = n
		return nil
	}
}

// WithCodec sets the codec of a Chan[T], Future[T] or Reply of T. Plain
// fixed-size types need none.
func WithCodec[T any](c Codec[T]) Option {
	return func(cfg *config) error {
		if c == nil {
			return fmt.Errorf("actors: WithCodec(nil)")
		}
		cfg.codec = c
		return nil
	}
}
