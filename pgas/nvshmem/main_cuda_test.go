//go:build cuda

package nvshmem

import (
	"fmt"
	"os"
	"testing"
)

// TestMain ends NVSHMEM once every test has run (see Finalize).
func TestMain(m *testing.M) {
	code := m.Run()
	if err := Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = max(code, 1)
	}
	os.Exit(code)
}
