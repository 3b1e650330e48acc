package pgas

import (
	"strconv"
	"testing"
)

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4096", 4096, true},
		{"1K", 1 << 10, true},
		{"64k", 64 << 10, true},
		{"512M", 512 << 20, true},
		{"2G", 2 << 30, true},
		{"1GiB", 1 << 30, true},
		{"3mb", 3 << 20, true},
		{"1T", 1 << 40, true},
		{" 8M ", 8 << 20, true},
		{"", 0, false},
		{"M", 0, false},
		{"0", 0, false},
		{"-1G", 0, false},
		{"1.5G", 0, false},
		{"12X", 0, false},
		{"9223372036854775807", 1<<63 - 1, true},
		{"9223372036854775808", 0, false},
		{"8388608T", 0, false},
		{"8388607T", 8388607 << 40, true},
	}
	for _, c := range cases {
		got, err := ParseSize(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

// FuzzParseSize: never panics; accepted sizes are positive and round-trip
// through their decimal form.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1", "512M", "2G", "1GiB", "0", "-1", "99999999999999999999", "8388608T", "kb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err != nil {
			return
		}
		if n <= 0 {
			t.Fatalf("ParseSize(%q) = %d, accepted a non-positive size", s, n)
		}
		if m, err := ParseSize(strconv.FormatInt(n, 10)); err != nil || m != n {
			t.Fatalf("ParseSize(%q) = %d, but its decimal form parses to %d, %v", s, n, m, err)
		}
	})
}
