package pgas_test

import (
	"testing"

	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas"
)

// Every exported method of a zero (or nil) Stream and Team returns an
// error or a documented zero answer: a caller's mistake stays the caller's.
func TestZeroValuesAnswer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		v     any
		nilOK []string
	}{
		{"Stream", &pgas.Stream{}, nil},
		{"nil Stream", (*pgas.Stream)(nil), nil},
		{"Team", &pgas.Team{}, nil},
		{"nil Team", (*pgas.Team)(nil), nil},
	} {
		t.Run(tc.name, func(t *testing.T) { testhelp.ZeroMethods(t, tc.v, tc.nilOK...) })
	}
}
