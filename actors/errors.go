package actors

import (
	"errors"
	"fmt"

	"github.com/symchan/symchan/pgas"
)

// endedErr is err, or ErrWorldEnded where err is a broken slot that the
// world's end explains: a kept handle's call (what: Recv, Await) in flight
// as pe's world ended read a slot whose memory the end gave back (zeros).
func endedErr(pe *pgas.PE, what string, err error) error {
	if errors.Is(err, ErrProtocol) && pe.World().Ended() {
		return fmt.Errorf("actors: %s: %w (a slot read as it ended: %v)", what, pgas.ErrWorldEnded, err)
	}
	return err
}

// Errors returned by the package; test with errors.Is.
var (
	// ErrClosed: Send after this PE closed its sending side, Close twice,
	// or Recv on an inbox that every PE closed and that is drained.
	ErrClosed = errors.New("actors: closed")
	// ErrFull: TrySend found no free slot at the receiver.
	ErrFull = errors.New("actors: no free slot at the receiver (would block)")
	// ErrNoLane: a send to a PE whose inbox has no lane left for this
	// sender (see Lanes): every lane there is claimed by other senders,
	// for the mailbox's life. Nothing was sent.
	ErrNoLane = errors.New("actors: every lane of the receiver's inbox is claimed by other senders (raise Lanes)")
	// ErrTooLarge: a message above the configured maximum; nothing was sent.
	ErrTooLarge = errors.New("actors: message too large")
	// ErrNoCodec: a Chan or Future of a type that is not plain and has no
	// codec.
	ErrNoCodec = errors.New("actors: type is not plain data and no codec was given")
	// ErrBadPE: a destination outside the world; the same error as
	// pgas.ErrBadPE.
	ErrBadPE = pgas.ErrBadPE
	// ErrBadArg: an invalid option or argument (a nil codec, Slots(0),
	// ...); the same error as pgas.ErrBadArg.
	ErrBadArg = pgas.ErrBadArg
	// ErrProtocol: a slot held something no sender of this package writes
	// (memory corruption, or mixing incompatible versions).
	ErrProtocol = errors.New("actors: protocol violation in a mailbox slot")
	// ErrAbandoned: a reply to a future that timed out or was abandoned;
	// the reply was dropped and nothing was written.
	ErrAbandoned = errors.New("actors: future was abandoned")
	// ErrBusy: Recv and the channel view of one Chan used together.
	ErrBusy = errors.New("actors: the channel's <-chan view is receiving")

	// errZero is what the methods of a zero or nil Mailbox, Chan, Future
	// or System return: only their constructors make usable ones.
	errZero = fmt.Errorf("%w: a zero or nil Mailbox, Chan, Future or System (make one with NewMailbox, NewChan, NewSystem, NewFuture)", ErrBadArg)
)
