package actors_test

import (
	"testing"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/internal/testhelp"
)

// Every exported method of a zero (or nil) System, Mailbox, Chan and
// Future returns an error or a documented zero answer, never a panic.
func TestZeroValuesAnswer(t *testing.T) {
	testhelp.ZeroValues(t,
		testhelp.Zero{Name: "System", V: &actors.System{}},
		testhelp.Zero{Name: "nil System", V: (*actors.System)(nil)},
		testhelp.Zero{Name: "Mailbox", V: &actors.Mailbox{}},
		testhelp.Zero{Name: "nil Mailbox", V: (*actors.Mailbox)(nil)},
		testhelp.Zero{Name: "Chan", V: &actors.Chan[uint64]{}},
		testhelp.Zero{Name: "nil Chan", V: (*actors.Chan[uint64])(nil)},
		testhelp.Zero{Name: "Future", V: &actors.Future[uint64]{}},
		testhelp.Zero{Name: "nil Future", V: (*actors.Future[uint64])(nil)},
	)
}
