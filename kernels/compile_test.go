//go:build !cuda

package kernels

import (
	"errors"
	"strings"
	"testing"

	"github.com/symchan/symchan/device"
)

// Without the cuda tag there is no NVRTC: Compile says so, naming the
// build tag, whether or not it must ask the GPU for its architecture; a
// bad program name is refused first.
func TestCompileWithoutCUDA(t *testing.T) {
	cases := []struct {
		name, prog string
		opts       CompileOptions
		want       error
	}{
		{"architecture from the GPU", "user.cu", CompileOptions{}, device.ErrNoCUDA},
		{"architecture given", "user.cu", CompileOptions{Arch: "compute_90", CacheDir: "-"}, device.ErrNoCUDA},
		{"bad name", "a/b.cu", CompileOptions{Arch: "compute_90"}, nil},
		{"empty name", "", CompileOptions{Arch: "compute_90"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Compile(c.prog, `#include "symchan.cuh"`, c.opts)
			switch {
			case err == nil:
				t.Fatal("Compile succeeded without CUDA")
			case c.want != nil && !errors.Is(err, c.want):
				t.Fatalf("Compile: %v, want %v", err, c.want)
			case c.want != nil && !strings.Contains(err.Error(), "-tags cuda"):
				t.Fatalf("Compile: %v: does not say how to build with CUDA", err)
			case c.want == nil && !strings.Contains(err.Error(), "program name"):
				t.Fatalf("Compile(%q): %v, want the name refused", c.prog, err)
			}
		})
	}
}
