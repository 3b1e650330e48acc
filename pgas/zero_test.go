package pgas_test

import (
	"testing"

	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas"
)

// Every exported method of a zero (or nil) Stream and Team returns an
// error or a documented zero answer: a caller's mistake stays the caller's.
func TestZeroValuesAnswer(t *testing.T) {
	testhelp.ZeroValues(t,
		testhelp.Zero{Name: "Stream", V: &pgas.Stream{}},
		testhelp.Zero{Name: "nil Stream", V: (*pgas.Stream)(nil)},
		testhelp.Zero{Name: "Team", V: &pgas.Team{}},
		testhelp.Zero{Name: "nil Team", V: (*pgas.Team)(nil)},
	)
}
