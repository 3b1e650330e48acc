package errtext

import (
	"strings"
	"testing"
)

func TestOneLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"boom", "boom"},
		{`a\b`, `a\b`}, // one line already: left as it is
		{"first line\nsecond line", `first line\nsecond line`},
		{"a\r\nb\\c", `a\r\nb\\c`},
		{"\n", `\n`},
	} {
		if got := OneLine(tc.in); got != tc.want {
			t.Errorf("OneLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzOneLine(f *testing.F) {
	f.Add("a\nb")
	f.Add(`x\ny`)
	f.Fuzz(func(t *testing.T, s string) {
		got := OneLine(s)
		if strings.ContainsAny(got, "\n\r") {
			t.Fatalf("OneLine(%q) = %q has a line break", s, got)
		}
		if !strings.ContainsAny(s, "\n\r") && got != s {
			t.Fatalf("OneLine(%q) = %q changed a one-line text", s, got)
		}
	})
}
