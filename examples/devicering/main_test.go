package main

import (
	"bytes"
	"strings"
	"testing"
)

// On the host backend there is no kernel to run: devicering says it needs
// a GPU backend and exits 1. (It runs on GPUs in scripts/gpu-run.sh.)
func TestDeviceRingNeedsGPU(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-backend", "host", "-pes", "2", "-laps", "3"}, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "needs a GPU backend") {
		t.Errorf("stderr does not say a GPU backend is needed: %s", errb.String())
	}
}

func TestDeviceRingBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-laps", "0"}, {"-pes", "-1"}, {"-nosuch"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
