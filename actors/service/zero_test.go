package service_test

import (
	"testing"

	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/internal/testhelp"
)

// Every exported method of a zero (or nil) Service returns an error or a
// documented zero answer (Err: nil, as for a Service that never stopped),
// never a panic.
func TestZeroValuesAnswer(t *testing.T) {
	testhelp.ZeroValues(t,
		testhelp.Zero{Name: "Service", V: &service.Service[int, int]{}, NilOK: []string{"Err"}},
		testhelp.Zero{Name: "nil Service", V: (*service.Service[int, int])(nil), NilOK: []string{"Err"}},
	)
}
