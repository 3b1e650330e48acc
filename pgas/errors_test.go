package pgas

import (
	"errors"
	"strings"
	"testing"
)

// Errors that carry user data keep to one line, newlines escaped; the
// data itself stays in their fields.
func TestErrorTextsAreOneLine(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"panic value", NewPanicError("a\nb", ""), `panic: a\nb`},
		{"panic elsewhere", NewPanicError(errors.Join(errors.New("x"), errors.New("y")), "PE.Go"), `panic in PE.Go: x\ny`},
		{"remote", &RemoteError{Msg: "line 1\r\nline 2"}, `line 1\r\nline 2 (in its own process)`},
		{"PE's joined errors", &PEError{PE: 3, Err: errors.Join(errors.New("x"), errors.New("y"))}, `pgas: PE 3 failed: x\ny`},
		{"collective", &CollectiveError{Op: "barrier", Seq: 2, Size: 4, PE: 1, Reason: "it failed: a\nb"}, `ended by PE 1: it failed: a\nb; the team is broken`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.err.Error()
			if strings.ContainsAny(got, "\n\r") || !strings.Contains(got, tc.want) {
				t.Errorf("Error() = %q, want one line holding %q", got, tc.want)
			}
		})
	}
	if v := NewPanicError("a\nb", "").Value; v != "a\nb" {
		t.Errorf("PanicError.Value = %q, want the value itself", v)
	}
}
