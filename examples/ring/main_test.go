package main

import (
	"bytes"
	"strings"
	"testing"
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
