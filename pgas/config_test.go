package pgas

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/symchan/symchan/pgas/driver"
	"github.com/symchan/symchan/pgas/host"
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
		// Blocking, where neither sets it, is autoBlocking's (tested below).
		{"defaults", Config{}, nil, Config{Backend: DefaultBackend, HeapSize: DefaultHeapSize, Blocking: autoBlocking(0, 8, processors())}, ""},
		{"environment fills zero fields", Config{},
			map[string]string{EnvBackend: "host", EnvPEs: " 3 ", EnvSymmetricSize: "512M", EnvBlocking: " Park "},
			Config{Backend: "host", PEs: 3, HeapSize: 512 << 20, Blocking: BlockPark}, ""},
		{"config wins over environment", Config{Backend: "b", PEs: 2, HeapSize: 1 << 20, Blocking: BlockSpin},
			map[string]string{EnvBackend: "host", EnvPEs: "3", EnvSymmetricSize: "512M", EnvBlocking: "park"},
			Config{Backend: "b", PEs: 2, HeapSize: 1 << 20, Blocking: BlockSpin}, ""},
		{"empty variables count as unset", Config{PEs: 2},
			map[string]string{EnvBackend: "", EnvPEs: "", EnvSymmetricSize: "", EnvBlocking: ""},
			Config{Backend: DefaultBackend, PEs: 2, HeapSize: DefaultHeapSize, Blocking: autoBlocking(2, 8, processors())}, ""},
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
		{"force remote from the environment", Config{PEs: 2}, map[string]string{EnvForceRemote: " true "},
			Config{Backend: DefaultBackend, PEs: 2, HeapSize: DefaultHeapSize, Blocking: autoBlocking(2, 8, processors()), ForceRemote: true}, ""},
		{"force remote: the field wins over 0", Config{PEs: 2, ForceRemote: true}, map[string]string{EnvForceRemote: "0"},
			Config{Backend: DefaultBackend, PEs: 2, HeapSize: DefaultHeapSize, Blocking: autoBlocking(2, 8, processors()), ForceRemote: true}, ""},
		{"bad force remote", Config{}, map[string]string{EnvForceRemote: "yes please"}, Config{}, EnvForceRemote},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range []string{EnvBackend, EnvPEs, EnvSymmetricSize, EnvBlocking, EnvForceRemote} {
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

// PEs spin only where each has a processor of its own; the host
// backend's default count stands in for 0.
func TestAutoBlocking(t *testing.T) {
	cases := []struct {
		pes, procs int
		want       Blocking
	}{
		{1, 1, BlockSpin},
		{2, 2, BlockSpin},
		{2, 8, BlockSpin},
		{3, 2, BlockPark},
		{64, 16, BlockPark},
		{0, 2, BlockPark}, // the host backend's 8
		{0, 8, BlockSpin},
	}
	for _, c := range cases {
		if got := autoBlocking(c.pes, 8, c.procs); got != c.want {
			t.Errorf("autoBlocking(%d PEs, %d processors) = %v, want %v", c.pes, c.procs, got, c.want)
		}
	}
}

// openCounter is an unregistered backend value: the host backend, counting
// its opens.
type openCounter struct {
	host.Backend
	opens *int
}

func (o openCounter) Open(ctx context.Context, cfg driver.Config) (driver.Transport, error) {
	*o.opens++
	return o.Backend.Open(ctx, cfg)
}

// A Config's Driver is the backend, registered or not, whatever Backend
// and SYMCHAN_BACKEND name; Backend then names it in messages; its default
// PE count (driver.DefaultSizer) sizes the automatic Blocking.
func TestConfigDriverByValue(t *testing.T) {
	t.Setenv(EnvBackend, "no-such-backend")
	t.Setenv(EnvBlocking, "") // the automatic choice, whatever the run's
	var opens int
	cases := []struct {
		name, backend, want string
	}{
		{"named by its type", "", "pgas.openCounter"},
		{"named by Backend", "mine", "mine"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{Driver: openCounter{opens: &opens}, Backend: c.backend, PEs: 2, HeapSize: 1 << 20}
			r, err := cfg.Resolve()
			if err != nil || r.Backend != c.want || r.Blocking != autoBlocking(2, 8, processors()) {
				t.Fatalf("Resolve: %+v, %v; want Backend %q", r, err, c.want)
			}
			before := opens
			err = Run(context.Background(), cfg, func(ctx context.Context, pe *PE) error { return pe.Barrier(ctx) })
			if err != nil || opens != before+1 {
				t.Fatalf("Run: %v, %d opens", err, opens-before)
			}
		})
	}
}
