package conformance

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

// backend is the backend under test.
func (ck *kit) backend() string { return ck.Backend }

// maxPEs is the most PEs the backend under test can start.
func (ck *kit) maxPEs() int {
	if ck.MaxPEs == 0 {
		return math.MaxInt
	}
	return ck.MaxPEs
}

// needPEs skips t when the backend cannot start n PEs (one PE per GPU on
// the cuda backend: a machine has so many; exactly one per process on
// the nvshmem backend).
func (ck *kit) needPEs(t testing.TB, n int) {
	t.Helper()
	if p := ck.procs(); p > 1 && n != p {
		t.Skipf("needs %d PEs; this run has %d processes, one PE each", n, p)
	}
	if m := ck.maxPEs(); n > m {
		t.Skipf("needs %d PEs; Options.MaxPEs is %d", n, m)
	}
}

// upToPEs is the world size of a test that runs on any number of PEs from
// 2 and wants n: the processes of a multi-process run, else n or as many
// as the backend can start.
func (ck *kit) upToPEs(n int) int {
	if p := ck.procs(); p > 1 {
		return p
	}
	return max(2, min(n, ck.maxPEs()))
}

// worldSizes is sizes, and with Options.LargeWorlds the large worlds too.
func (ck *kit) worldSizes(sizes ...int) []int {
	if ck.LargeWorlds {
		sizes = append(sizes, 128, 1024)
	}
	return sizes
}

// large reports whether a world of n PEs is one of the large ones, whose
// tests send fewer messages through smaller mailboxes: the mailbox of a
// 1024-PE world holds n·k slots on every PE.
func large(n int) bool { return n > 64 }

// procs is the number of processes the suite runs in at once, one PE each
// (Options.Procs); 1 for backends whose PEs share one process.
func (ck *kit) procs() int { return max(ck.Procs, 1) }

// perProcess is the size of a test's world: n where PEs share a process,
// else one PE per process of the run.
func (ck *kit) perProcess(n int) int {
	if p := ck.procs(); p > 1 {
		return p
	}
	return n
}

// oneProcess skips t when its PEs run in several processes: a context
// cancelled in one process ends only that process's PEs. (A PE's failure
// does reach the others: driver.FailureNotifier.)
func (ck *kit) oneProcess(t testing.TB) {
	t.Helper()
	if ck.procs() > 1 {
		t.Skip("needs every PE in this process (a context's cancellation does not cross processes)")
	}
}

// testHeap is the heap per PE of the suite's worlds: small, so that tests
// of 64 PEs stay cheap.
const testHeap = 4 << 20

// run runs fn on n PEs of the backend under test and fails t on error.
func (ck *kit) run(t testing.TB, n int, fn func(ctx context.Context, pe *pgas.PE) error) {
	t.Helper()
	if err := ck.runErr(t, n, fn); err != nil {
		t.Fatal(err)
	}
}

// runErr is run returning the joined error, for tests of failures.
func (ck *kit) runErr(t testing.TB, n int, fn func(ctx context.Context, pe *pgas.PE) error) error {
	t.Helper()
	ck.needPEs(t, n)
	limit := 60 * time.Second
	if large(n) {
		limit = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	return pgas.Run(ctx, pgas.Config{Backend: ck.backend(), PEs: n, HeapSize: testHeap}, fn)
}

// must turns a value and error into the value, failing the PE on error.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// check panics on err: inside a PE function a panic fails the run with the
// PE's id and stack, which is what a test wants to see.
func check(err error) {
	if err != nil {
		panic(err)
	}
}

// contains reports whether err's text holds text.
func contains(err error, text string) bool {
	return err != nil && strings.Contains(err.Error(), text)
}

// progress logs what every 10 s while a test runs, when on: a large
// world's test that runs out of time then shows how far it got. The
// returned func stops it.
func progress(t testing.TB, on bool, what func() string) (stop func()) {
	if !on {
		return func() {}
	}
	done := make(chan struct{})
	tick := time.NewTicker(10 * time.Second)
	go func() {
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				t.Logf("progress: %s", what())
			}
		}
	}()
	return func() { tick.Stop(); close(done) }
}

// read is PE pe's copy of s.
func read[T any](pe *pgas.PE, s pgas.Sym[T]) []T {
	v := make([]T, s.Len())
	check(pgas.Get(pe, v, s, pe.ID()))
	return v
}

// findings collects what PE me's checks found amiss, so that a test
// reports every difference at once rather than the first.
type findings struct {
	me   int
	errs []error
}

// expect records a difference between got and want (compared as printed)
// in what name names.
func (f *findings) expect(name string, got, want any) {
	if fmt.Sprint(got) != fmt.Sprint(want) {
		f.add(fmt.Errorf("PE %d: %s = %v, want %v", f.me, name, got, want))
	}
}

// add records err.
func (f *findings) add(err error) { f.errs = append(f.errs, err) }

// err is every difference found, or nil.
func (f *findings) err() error { return errors.Join(f.errs...) }

// compile compiles a test's kernel source at run time (kernels.Compile)
// into a cache of the test's own, failing the test on an error.
func compile(t *testing.T, name, src string) kernels.Program {
	t.Helper()
	prog, err := kernels.Compile(name, src, kernels.CompileOptions{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return prog
}
