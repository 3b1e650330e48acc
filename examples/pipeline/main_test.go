package main

import (
	"bytes"
	"strings"
	"testing"
)

// On the host backend there is no kernel to run: pipeline says it needs a
// GPU backend and exits 1. (It runs on GPUs in scripts/gpu-run.sh.)
func TestPipelineNeedsGPU(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-backend", "host", "-pes", "2", "-n", "64", "-chunks", "4"}, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "needs a GPU backend") {
		t.Errorf("stderr does not say a GPU backend is needed: %s", errb.String())
	}
}

func TestPipelineBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-n", "0"}, {"-chunks", "0"}, {"-n", "4", "-chunks", "5"}, {"-pes", "-1"}, {"-nosuch"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
