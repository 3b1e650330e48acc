//go:build cuda

package device

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Without the NVRTC library a compile fails with an error that names it
// and EnvNVRTC, the variable that points at it; it is not a crash. NVRTC
// loads once per process, so the test runs itself with EnvNVRTC naming a
// file that does not exist.
func TestCompilePTXWithoutNVRTC(t *testing.T) {
	const missing = "/nonexistent/libnvrtc.so"
	if os.Getenv(EnvNVRTC) == missing {
		_, err := CompilePTX("extern \"C\" __global__ void k() {}\n", CompileOptions{Name: "k.cu"})
		if err == nil || !strings.Contains(err.Error(), EnvNVRTC) || !strings.Contains(err.Error(), missing) {
			t.Fatalf("CompilePTX without NVRTC: %v, want an error naming %s and %s", err, EnvNVRTC, missing)
		}
		if _, _, err := NVRTCVersion(); err == nil {
			t.Fatal("NVRTCVersion without NVRTC: no error")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestCompilePTXWithoutNVRTC$", "-test.v")
	cmd.Env = append(os.Environ(), EnvNVRTC+"="+missing)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: TestCompilePTXWithoutNVRTC") {
		t.Fatalf("the run without NVRTC: %v\n%s", err, out)
	}
}
