package pgas

import (
	"runtime"
	"strconv"
	"strings"
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

func TestConfigResolve(t *testing.T) {
	cases := []struct {
		name    string
		cfg     Config
		env     map[string]string
		want    Config
		wantErr string // a substring; "" means success
	}{
		// With GOMAXPROCS 2 (set below): the host backend's 8 default PEs
		// and 3 PEs park, 2 PEs spin.
		{"defaults", Config{}, nil, Config{Backend: DefaultBackend, HeapSize: DefaultHeapSize, Blocking: BlockPark}, ""},
		{"environment fills zero fields", Config{},
			map[string]string{EnvBackend: "host", EnvPEs: " 3 ", EnvSymmetricSize: "512M"},
			Config{Backend: "host", PEs: 3, HeapSize: 512 << 20, Blocking: BlockPark}, ""},
		{"config wins over environment", Config{Backend: "b", PEs: 2, HeapSize: 1 << 20, Blocking: BlockPark},
			map[string]string{EnvBackend: "host", EnvPEs: "3", EnvSymmetricSize: "512M", EnvBlocking: "spin"},
			Config{Backend: "b", PEs: 2, HeapSize: 1 << 20, Blocking: BlockPark}, ""},
		{"PEs with a processor each spin", Config{PEs: 2}, nil, Config{Backend: DefaultBackend, PEs: 2, HeapSize: DefaultHeapSize, Blocking: BlockSpin}, ""},
		{"environment sets blocking", Config{}, map[string]string{EnvBlocking: " Spin "},
			Config{Backend: DefaultBackend, HeapSize: DefaultHeapSize, Blocking: BlockSpin}, ""},
		{"empty variables count as unset", Config{PEs: 2},
			map[string]string{EnvBackend: "", EnvPEs: "", EnvSymmetricSize: "", EnvBlocking: ""},
			Config{Backend: DefaultBackend, PEs: 2, HeapSize: DefaultHeapSize, Blocking: BlockSpin}, ""},
		{"bad blocking", Config{}, map[string]string{EnvBlocking: "poll"}, Config{}, EnvBlocking},
		{"bad blocking under a set field", Config{Blocking: BlockSpin}, map[string]string{EnvBlocking: "yes"}, Config{}, EnvBlocking},
		{"blocking out of range", Config{Blocking: BlockPark + 1}, nil, Config{}, "Blocking = Blocking(3)"},
		{"bad PEs", Config{}, map[string]string{EnvPEs: "four"}, Config{}, EnvPEs},
		{"zero PEs", Config{}, map[string]string{EnvPEs: "0"}, Config{}, EnvPEs},
		{"bad size", Config{}, map[string]string{EnvSymmetricSize: "2X"}, Config{}, EnvSymmetricSize},
		// A malformed variable is reported even where the Config's field wins.
		{"bad PEs under a set field", Config{PEs: 2}, map[string]string{EnvPEs: "-1"}, Config{}, EnvPEs},
		{"bad size under a set field", Config{HeapSize: 1 << 20}, map[string]string{EnvSymmetricSize: "1.5G"}, Config{}, EnvSymmetricSize},
		{"negative PEs", Config{PEs: -1}, nil, Config{}, "PEs = -1"},
		{"negative heap", Config{HeapSize: -1}, nil, Config{}, "HeapSize = -1"},
		{"heap below the minimum", Config{HeapSize: 1}, nil, Config{}, "below the minimum"},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range []string{EnvBackend, EnvPEs, EnvSymmetricSize, EnvBlocking} {
				t.Setenv(k, c.env[k]) // absent keys: "", which counts as unset
			}
			got, err := c.cfg.Resolve()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("Resolve() = %+v, %v; want an error naming %q", got, err, c.wantErr)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Resolve() = %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}
