package actors

import "fmt"

// Defaults of the options.
const (
	DefaultSlots      = 16
	DefaultSlotSize   = 1 << 10
	DefaultMaxMessage = 64 << 20
	DefaultLanes      = 64
	DefaultFutures    = 256
	DefaultReplySize  = 1 << 10
)

// MailboxOption configures a Mailbox ([NewMailbox]) or the mailbox of a
// Chan ([NewChan], [NewChanCodec]). Every PE must pass the same options to
// a collective constructor.
type MailboxOption func(*mailboxConfig) error

// SystemOption configures a System ([NewSystem]). Every PE must pass the
// same options.
type SystemOption func(*systemConfig) error

type mailboxConfig struct {
	slots, slotSize, maxMessage, lanes int
	stats                              bool
}

type systemConfig struct{ futures, replySize int }

func mailboxOptions(opts []MailboxOption) (mailboxConfig, error) {
	c := mailboxConfig{slots: DefaultSlots, slotSize: DefaultSlotSize, maxMessage: DefaultMaxMessage, lanes: DefaultLanes}
	for _, o := range opts {
		if o == nil {
			return c, fmt.Errorf("%w: nil MailboxOption", ErrBadArg)
		}
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

func systemOptions(opts []SystemOption) (systemConfig, error) {
	c := systemConfig{futures: DefaultFutures, replySize: DefaultReplySize}
	for _, o := range opts {
		if o == nil {
			return c, fmt.Errorf("%w: nil SystemOption", ErrBadArg)
		}
		if err := o(&c); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Slots sets K, the slots per sender in every inbox (default 16): how many
// messages a sender may have in flight to one receiver.
func Slots(k int) MailboxOption {
	return func(c *mailboxConfig) error {
		if k < 1 || k > 1<<16 {
			return fmt.Errorf("%w: Slots(%d): want 1 … 65536", ErrBadArg, k)
		}
		c.slots = k
		return nil
	}
}

// Lanes sets L, the senders an inbox has room for (default 64): every
// inbox holds min(L, P) lanes of K slots, one lane per sender that has
// sent to it, so a mailbox costs about min(L, P)·K·S bytes per PE however
// large the world. Where L ≥ P every PE has a lane at every PE from the
// start. Where L < P a sender's first message to a PE claims a free lane
// there (one atomic, no collective) and keeps it for the mailbox's life;
// once all L are claimed, sends from further senders to that PE fail
// with ErrNoLane, a Close still reaches it, and nothing already sent is
// lost. Kernels address slots by sender: Mailbox.Device and StartKernel
// need L ≥ P.
func Lanes(l int) MailboxOption {
	return func(c *mailboxConfig) error {
		if l < 1 || l > 1<<24 {
			return fmt.Errorf("%w: Lanes(%d): want 1 … 2^24", ErrBadArg, l)
		}
		c.lanes = l
		return nil
	}
}

// SlotSize sets S, the bytes of a slot including its 24-byte header
// (default 1 KiB, a multiple of 8). Larger messages are chunked.
func SlotSize(s int) MailboxOption {
	return func(c *mailboxConfig) error {
		if s < headerSize+8 || s%8 != 0 || s > 1<<30 {
			return fmt.Errorf("%w: SlotSize(%d): want a multiple of 8 in [%d, 1 GiB]", ErrBadArg, s, headerSize+8)
		}
		c.slotSize = s
		return nil
	}
}

// MaxMessage sets the largest message in bytes (default 64 MiB); larger
// sends fail with ErrTooLarge and write nothing.
func MaxMessage(n int) MailboxOption {
	return func(c *mailboxConfig) error {
		if n < 0 {
			return fmt.Errorf("%w: MaxMessage(%d): negative", ErrBadArg, n)
		}
		c.maxMessage = n
		return nil
	}
}

// KeepStats makes the Mailbox count what this PE's side of it does, for
// [Mailbox.Stats]; without it Stats returns zeros. Counting is not free:
// a few atomic adds on every message's path, 10–30% of a host round trip
// between two cores; a service's mailboxes keep them.
func KeepStats() MailboxOption {
	return func(c *mailboxConfig) error {
		c.stats = true
		return nil
	}
}

// Futures sets how many futures a PE can have outstanding (default 256).
func Futures(n int) SystemOption {
	return func(c *systemConfig) error {
		if n < 1 || n > 1<<20 {
			return fmt.Errorf("%w: Futures(%d): want 1 … 2^20", ErrBadArg, n)
		}
		c.futures = n
		return nil
	}
}

// ReplySize sets the largest reply a future accepts, in bytes (default
// 1 KiB).
func ReplySize(n int) SystemOption {
	return func(c *systemConfig) error {
		if n < 1 || n > 1<<30 {
			return fmt.Errorf("%w: ReplySize(%d): want 1 … 1 GiB", ErrBadArg, n)
		}
		c.replySize = n
		return nil
	}
}
