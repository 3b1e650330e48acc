//go:build !cuda

package device

import (
	"bytes"
	"os"
	"testing"

	"github.com/symchan/symchan/internal/stubgen"
)

// stubs_nocuda.go is what go generate makes of the *_cuda.go files today:
// without the tag, go doc shows the real API and docs.
func TestStubs(t *testing.T) {
	want, err := stubgen.Generate(".", "cuda", "ErrNoCUDA")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("stubs_nocuda.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("stubs_nocuda.go is stale: run go generate ./device")
	}
}
