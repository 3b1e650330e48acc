// Package conformance is symchan's test kit for backends, in the spirit of
// testing/fstest: the conformance suite of pgas and signals (the semantics
// of OpenSHMEM 1.5 and NVSHMEM as symchan promises them, including failure,
// cancellation and bad input), the actors suite (Mailbox, Chan, Future on
// top of pgas) and, on backends whose PEs are GPUs, the GPU API (pgas.GPU).
// Every backend of symchan passes the very same tests; a third-party
// backend imports this package from a test of its own:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, conformance.Options{Backend: "mybackend"})
//	}
//
// The suites use only the public API. They start worlds of up to 64 PEs
// with 4 MiB heaps, and take about ten seconds on the host backend.
// SYMCHAN_SOAK=1 makes the actors soak send 10 million messages instead of
// 200 000 (20 000 with testing.Short).
package conformance

import (
	"testing"
)

// Options describe the backend under test.
type Options struct {
	// Backend is the registered backend name (pgas.Register).
	Backend string
	// MaxPEs is the most PEs a world of the backend can have on this
	// machine (the GPU count, for one PE per GPU); tests that need more
	// are skipped. Zero means no limit.
	MaxPEs int
	// Procs is the number of processes that run the suite at once, one
	// PE each, for backends whose PEs are processes (a launcher starts one
	// test binary per PE: symrun -n 2 ./tests.test). Every process runs
	// every test, hosting its own PE of each world; tests that need other
	// world sizes, or every PE in one process, are skipped. Zero or one:
	// the PEs share this process.
	Procs int
	// LargeWorlds adds worlds of 128 and 1024 PEs to the GPU tests of
	// device mailboxes and kernel actors (PEs sharing the GPUs on the
	// cuda backend): nothing on the device side is bounded by a PE count.
	// Such a world takes about 4 GiB of GPU memory. It adds a world of
	// 512 PEs to CollectivesAtScale.
	LargeWorlds bool
	// HostMemory says the backend's partitions are memory of this process
	// (pgas.PE.HostMemory, pgas.Local), as the host backend's are.
	HostMemory bool
	// CostlyWorlds says a world's start costs a backend's start (GPU
	// contexts, NVSHMEM): tests that start hundreds of worlds start fewer.
	CostlyWorlds bool
	// FaultWorlds is how many worlds RandomFaults runs (0: 300, 100 with
	// -test.short, 30 with CostlyWorlds), of 2 to 16 PEs, and with
	// LargeWorlds up to 10 more of 512 PEs (RandomFaults/512); FaultSeed
	// replays the world of that seed alone (0: worlds from a seed of the
	// clock, printed).
	FaultWorlds int
	FaultSeed   uint64
}

// A test is one test of a suite: a method of the kit, which carries the
// backend under test.
type test struct {
	name string
	fn   func(ck *kit, t *testing.T)
}

// kit is one Run's state: the backend under test and its options.
type kit struct{ Options }

// Run runs every suite against the backend o names, each test as a subtest
// of t named after its suite ("PGAS/PutGet", "Actors/ChanRing",
// "GPU/OnStream").
func Run(t *testing.T, o Options) {
	RunPGAS(t, o)
	RunActors(t, o)
	RunGPU(t, o)
}

// RunPGAS runs the conformance suite of pgas and signals.
func RunPGAS(t *testing.T, o Options) { runSuite(t, o, "PGAS", pgasTests) }

// RunActors runs the actors suite.
func RunActors(t *testing.T, o Options) { runSuite(t, o, "Actors", actorsTests) }

// RunGPU runs the tests of the GPU API (pgas.GPU); each is skipped on a
// backend whose PEs are not GPUs.
func RunGPU(t *testing.T, o Options) { runSuite(t, o, "GPU", gpuTests) }

func runSuite(t *testing.T, o Options, name string, tests []test) {
	t.Helper()
	if o.Backend == "" {
		t.Fatal("conformance: Options.Backend is empty")
	}
	ck := &kit{o}
	t.Run(name, func(t *testing.T) {
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) { tc.fn(ck, t) })
		}
	})
}
