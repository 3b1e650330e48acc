package main

import (
	"bytes"
	"strings"
	"testing"
)

// On the host backend every shape's round trips check out: uneven
// per-peer counts, a PE that receives nothing from some peer (few tokens,
// many experts), a single PE, topk equal to the world's experts, and
// tokens as wide as the metadata (whose layouts must not overlap).
func TestMoERoundTrips(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"three PEs", []string{"-pes", "3", "-tokens", "24", "-hidden", "64", "-topk", "4", "-experts", "2"}},
		{"sparse routes", []string{"-pes", "4", "-tokens", "1", "-hidden", "16", "-topk", "1", "-experts", "4"}},
		{"one PE", []string{"-pes", "1", "-tokens", "8", "-hidden", "32", "-topk", "2", "-experts", "3"}},
		{"every expert", []string{"-pes", "2", "-tokens", "5", "-hidden", "7", "-topk", "6", "-experts", "3"}},
		{"two values a token", []string{"-pes", "3", "-tokens", "16", "-hidden", "2", "-topk", "3", "-experts", "2"}},
		// The README's command: its default shape fits the default heap
		// (the experts' buffers hold what the routing sends, not every
		// PE's every copy).
		{"the README's four PEs", []string{"-pes", "4", "-iters", "0"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(append([]string{"-backend", "host", "-iters", "2"}, c.args...), &out, &errb); code != 0 {
				t.Fatalf("exit %d; stderr: %s", code, errb.String())
			}
			if !strings.Contains(out.String(), "every round trip as expected") {
				t.Errorf("output: %s", out.String())
			}
		})
	}
}

// The experts' arithmetic is exact: scaling by 2^(1+e%3) and back by the
// float value gives the same number, and zero stays zero.
func TestExpertIsExact(t *testing.T) {
	for pe := range 3 {
		for tok := range 50 {
			for j := range 40 {
				v := tokenValue(pe, tok, j)
				for e := range 6 {
					got, want := bf16(expert(e, v)), bf16(v)*float32(int(1)<<(1+e%3))
					if got != want {
						t.Fatalf("expert %d of %#04x: %v, want %v", e, v, got, want)
					}
				}
			}
		}
	}
}

func TestMoEBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"-tokens", "0"}, 2},
		{[]string{"-hidden", "0"}, 2},
		{[]string{"-topk", "0"}, 2},
		{[]string{"-experts", "0"}, 2},
		{[]string{"-iters", "-1"}, 2},
		{[]string{"-pes", "-1"}, 2},
		{[]string{"-nosuch"}, 2},
		{[]string{"-backend", "host", "-pes", "2", "-experts", "2", "-topk", "5"}, 1}, // more experts than the world has
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != c.code {
			t.Errorf("%v: exit %d, want %d; stderr: %s", c.args, code, c.code, errb.String())
		}
	}
}
