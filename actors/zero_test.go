package actors_test

import (
	"testing"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/internal/testhelp"
)

// Every exported method of a zero (or nil) System, Mailbox, Chan and
// Future returns an error or a documented zero answer, never a panic.
func TestZeroValuesAnswer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		v     any
		nilOK []string
	}{
		{"System", &actors.System{}, nil},
		{"nil System", (*actors.System)(nil), nil},
		{"Mailbox", &actors.Mailbox{}, nil},
		{"nil Mailbox", (*actors.Mailbox)(nil), nil},
		{"Chan", &actors.Chan[uint64]{}, nil},
		{"nil Chan", (*actors.Chan[uint64])(nil), nil},
		{"Future", &actors.Future[uint64]{}, nil},
		{"nil Future", (*actors.Future[uint64])(nil), nil},
	} {
		t.Run(tc.name, func(t *testing.T) { testhelp.ZeroMethods(t, tc.v, tc.nilOK...) })
	}
}
