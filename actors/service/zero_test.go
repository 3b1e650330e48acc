package service_test

import (
	"testing"

	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/internal/testhelp"
)

// Every exported method of a zero (or nil) Service returns an error or a
// documented zero answer, never a panic.
func TestZeroValuesAnswer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		v     any
		nilOK []string
	}{
		{"Service", &service.Service[int, int]{}, []string{"Err"}},
		{"nil Service", (*service.Service[int, int])(nil), []string{"Err"}},
	} {
		t.Run(tc.name, func(t *testing.T) { testhelp.ZeroMethods(t, tc.v, tc.nilOK...) })
	}
}
