package kernels

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed PTX must come from the committed sources: its first line
// records their sha256 (scripts/gpu-ptx.sh writes it).
func TestPTXMatchesSources(t *testing.T) {
	h := sha256.New()
	for _, f := range []string{"symchan.cuh", "symchan.cu"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h.Write(b)
	}
	want := hex.EncodeToString(h.Sum(nil))
	first, _, _ := strings.Cut(symchanPTX, "\n")
	if !strings.Contains(first, "sources sha256 "+want) {
		t.Fatalf("symchan.ptx is stale: sources hash %s, PTX header %q; run scripts/gpu-ptx.sh on a GPU machine", want, first)
	}
}

func TestPTXDefinesKernels(t *testing.T) {
	for _, k := range []string{Atomic, Wait, JacobiInit, JacobiSweep, JacobiSweep4, PingPong, PutBlock, MailboxEcho, TestPutSignalVariants, TestWaits} {
		if !strings.Contains(symchanPTX, ".entry "+k+"(") {
			t.Errorf("symchan.ptx has no kernel %s", k)
		}
	}
}

func TestPTXOverride(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.ptx")
	if err := os.WriteFile(path, []byte("// test"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvPTX, path)
	if got, err := PTX(); err != nil || got != "// test" {
		t.Fatalf("PTX() = %q, %v", got, err)
	}
	t.Setenv(EnvPTX, filepath.Join(t.TempDir(), "missing.ptx"))
	if _, err := PTX(); err == nil {
		t.Fatal("PTX() with a missing override file: no error")
	}
}
