package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/symchan/symchan/actors"
)

func TestRingRuns(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-pes", "3", "-size", "8,4K,64K", "-laps", "5"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := out.String()
	for _, want := range []string{"ring: 3 PEs on the host backend", "hop median", "\n         8       15 ", "\n     65536       15 "} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	// The first size's untimed warm-up pass prints no row.
	if n := strings.Count(got, "\n         8 "); n != 1 {
		t.Errorf("%d rows for size 8, want 1:\n%s", n, got)
	}
}

func TestRingNoWarmup(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-pes", "2", "-size", "8", "-laps", "4", "-warmup=false"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "\n         8        8 ") {
		t.Errorf("output lacks the row of 8 hops:\n%s", out.String())
	}
}

// One PE passes the message to itself.
func TestRingOnePE(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-pes", "1", "-size", "8,1K", "-laps", "3"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

func TestRingBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-laps", "0"},
		{"-pes", "-1"},
		{"-size", "12X"},
		{"-size", "0"},
		{"-size", "9000000000000000000"}, // its heap would overflow
		{"-actors", "robots"},
		{"-actors", "kernel", "-backend", "host"}, // kernel actors need GPUs
		{"-actors", "mixed", "-backend", "host"},
		{"-kernel-blocks", "-1"},

		{"-nosuchflag"},
		{"extra"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if !strings.Contains(errb.String(), "usage: ring") {
			t.Errorf("%v: no usage message: %q", args, errb.String())
		}
	}
}

func TestRingUnknownBackend(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-backend", "nosuch", "-laps", "1"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "nosuch") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// What cannot fit the machine is an error naming the knob, not a crash.
func TestRingTooLarge(t *testing.T) {
	for _, args := range [][]string{
		{"-size", "1T", "-laps", "1"},
		{"-pes", "65536", "-laps", "1"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 1 || !strings.Contains(errb.String(), "lower") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

// The backend comes from SYMCHAN_BACKEND when -backend is not given, and
// the table names the one that ran.
func TestRingBackendFromEnvironment(t *testing.T) {
	t.Setenv("SYMCHAN_BACKEND", "host")
	var out, errb bytes.Buffer
	if code := run([]string{"-backend", "", "-pes", "2", "-size", "8", "-laps", "2"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "on the host backend") {
		t.Errorf("output: %s", out.String())
	}
	t.Setenv("SYMCHAN_BACKEND", "nosuch")
	if code := run([]string{"-laps", "1"}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "nosuch") {
		t.Errorf("SYMCHAN_BACKEND=nosuch: exit %d, stderr %q", code, errb.String())
	}
}

// hop's layout is ring_hop's in kernels/symchan.cu, which kernel actors
// read and write: Go and kernel PEs pass the same bytes.
func TestHopLayoutMatchesKernel(t *testing.T) {
	var h hop
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"size of hop", unsafe.Sizeof(h), 48},
		{"Round", unsafe.Offsetof(h.Round), 0},
		{"Size", unsafe.Offsetof(h.Size), 8},
		{"CRC", unsafe.Offsetof(h.CRC), 16},
		{"Data.PE", unsafe.Offsetof(h.Data) + unsafe.Offsetof(h.Data.PE), 24},
		{"Data.Off", unsafe.Offsetof(h.Data) + unsafe.Offsetof(h.Data.Off), 32},
		{"Data.Len", unsafe.Offsetof(h.Data) + unsafe.Offsetof(h.Data.Len), 40},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, ring_hop has %d", c.name, c.got, c.want)
		}
	}
}

// Which PEs are kernels in each -actors mode.
func TestIsKernel(t *testing.T) {
	for _, c := range []struct {
		mode string
		want []bool // PEs 0…3
	}{
		{actorsGo, []bool{false, false, false, false}},
		{actorsKernel, []bool{true, true, true, true}},
		{actorsMixed, []bool{false, true, false, true}},
	} {
		for pe, want := range c.want {
			if got := isKernel(c.mode, pe); got != want {
				t.Errorf("isKernel(%s, %d) = %v", c.mode, pe, got)
			}
		}
	}
}

// A kernel's failure code becomes an error saying which check failed,
// still wrapping the KernelError.
func TestRingKernelError(t *testing.T) {
	for _, c := range []struct {
		code uint64
		want string
	}{
		{1003, "hop of lap 13 out of order"},
		{2040, "a message of 40 bytes is not a hop"},
		{5, "failed with code 5"},
	} {
		err := ringKernelError(1, 10, &actors.KernelError{PE: 1, Code: c.code})
		var ke *actors.KernelError
		if !strings.Contains(err.Error(), c.want) || !errors.As(err, &ke) {
			t.Errorf("code %d: %v, want it to say %q", c.code, err, c.want)
		}
	}
}
