package tests

import (
	"flag"
	"math"
	"os"
	"strconv"
	"testing"

	"github.com/symchan/symchan/conformance"
	// The suites run on any registered backend; the GPU ones are real in
	// binaries built with -tags cuda.
	_ "github.com/symchan/symchan/pgas/cuda"
	_ "github.com/symchan/symchan/pgas/nvshmem"
)

// The fault-injection runs' flags (conformance.Options.FaultWorlds,
// FaultSeed).
var (
	longFaults  = flag.Bool("long", false, "run thousands of random fault-injection worlds, not hundreds")
	faultSeed   = flag.Uint64("faultseed", 0, "replay the random fault-injection world of this seed alone")
	faultWorlds = flag.Int("faultworlds", 0, "run this many random fault-injection worlds")
)

// options reads the backend under test from the environment (see the
// package doc) and the flags.
func options(t *testing.T) conformance.Options {
	o := conformance.Options{Backend: os.Getenv("SYMCHAN_TEST_BACKEND")}
	if o.Backend == "" {
		o.Backend = "host"
	}
	// What the backends are: the host's partitions are this process's
	// memory and its worlds cheap; the GPU backends' are neither.
	o.HostMemory = o.Backend == "host"
	o.CostlyWorlds = !o.HostMemory
	o.FaultWorlds, o.FaultSeed = *faultWorlds, *faultSeed
	if *longFaults && o.FaultWorlds == 0 {
		o.FaultWorlds = 5000
	}
	o.MaxPEs = envCount(t, "SYMCHAN_TEST_MAX_PES", math.MaxInt)
	o.Procs = envCount(t, "SYMCHAN_TEST_PROCS", 1)
	o.LargeWorlds = os.Getenv("SYMCHAN_TEST_LARGE_WORLDS") == "1"
	return o
}

// envCount reads a positive integer from the environment variable name,
// def when it is unset; anything else fails t.
func envCount(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// TestConformance runs the suites: TestConformance/PGAS/PutGet,
// TestConformance/Actors/ChanRing, TestConformance/GPU/OnStream, ...
func TestConformance(t *testing.T) { conformance.Run(t, options(t)) }
