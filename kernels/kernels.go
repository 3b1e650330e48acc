// Package kernels holds symchan's CUDA C sources, their PTX (generated with
// nvcc on a GPU machine by scripts/gpu-ptx.sh and committed beside them)
// and the header-only device API, symchan.cuh, that our kernels and users'
// kernels include.
//
// The cuda backend JIT-loads PTX() into every GPU's context. For kernel
// work without rebuilding Go binaries, SYMCHAN_PTX names a PTX file to use
// instead of the embedded one (regenerate with scripts/gpu-ptx.sh on the
// GPU machine, point SYMCHAN_PTX at it, run the tests there).
package kernels

import (
	_ "embed"
	"fmt"
	"os"
)

//go:embed symchan.ptx
var symchanPTX string

// Source is symchan.cu, and Header the device API symchan.cuh, for users
// who build their kernels against the same definitions.
var (
	//go:embed symchan.cu
	Source string
	//go:embed symchan.cuh
	Header string
)

// EnvPTX names a PTX file that replaces the embedded one.
const EnvPTX = "SYMCHAN_PTX"

// PTX returns the PTX of symchan.cu: the file named by SYMCHAN_PTX when
// set, else the embedded one.
func PTX() (string, error) {
	path := os.Getenv(EnvPTX)
	if path == "" {
		return symchanPTX, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("kernels: %s: %w", EnvPTX, err)
	}
	return string(b), nil
}

// Kernel names in symchan.cu.
const (
	Atomic                = "symchan_atomic"
	Wait                  = "symchan_wait"
	Agent                 = "symchan_agent"
	Copy                  = "symchan_copy"
	JacobiInit            = "jacobi_init"
	JacobiSweep           = "jacobi_sweep"
	JacobiSweep4          = "jacobi_sweep4"
	ServiceJacobiSweep    = "service_jacobi_sweep"
	PingPong              = "bench_pingpong"
	PutBlock              = "bench_put_block"
	MailboxEcho           = "mailbox_echo"
	MailboxFanIn          = "mailbox_fanin"
	MailboxEchoBlock      = "mailbox_echo_block"
	FutureServe           = "future_serve"
	ActorEcho             = "actor_echo"
	ActorRing             = "actor_ring"
	TestPutSignalVariants = "test_put_signal_variants"
	TestWaits             = "test_waits"
	TestRoutines          = "test_routines"
)
