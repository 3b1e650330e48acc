package tests

import (
	"fmt"
	"os"
	"testing"

	"github.com/symchan/symchan/pgas/nvshmem"
)

// TestMain ends NVSHMEM once every test has run, as a program should
// before it exits (under mpirun, NVSHMEM's MPI bootstrap needs it).
func TestMain(m *testing.M) {
	code := m.Run()
	if err := nvshmem.Finalize(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = max(code, 1)
	}
	os.Exit(code)
}
