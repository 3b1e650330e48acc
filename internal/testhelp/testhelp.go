// Package testhelp holds what the tests of several packages share.
package testhelp

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// NoGoroutineLeak waits up to five seconds for the number of goroutines
// to come back to before, and fails t, with every goroutine's stack, if
// it does not.
func NoGoroutineLeak(t testing.TB, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Errorf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// NoLeakOverCycles runs cycle once to warm up (pools, lazily made state),
// then 100 times (20 with -short), and fails t if goroutines are left
// behind or the Go heap's live bytes grew by more than heapGrowth.
func NoLeakOverCycles(t testing.TB, heapGrowth int64, cycle func()) {
	t.Helper()
	cycles := 100
	if testing.Short() {
		cycles = 20
	}
	cycle()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	goroutines := runtime.NumGoroutine()
	for range cycles {
		cycle()
	}
	NoGoroutineLeak(t, goroutines)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > heapGrowth {
		t.Errorf("the Go heap grew by %d bytes over %d cycles", grew, cycles)
	}
}

// Buffer is a bytes.Buffer that several goroutines may write at once (a
// logger's output, a child process's).
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// WaitFor polls cond every millisecond until it holds, and fails t at
// once, naming what it waited for, if it does not within 20 seconds.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 20 s for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// EnvPTXStrict, set to anything (as .ci/run sets it, and as a CI
// variable does), makes CheckPTX fail on stale PTX; without it a stale
// file skips the check with a message, so that a contributor without a
// GPU can change CUDA C and run the tests.
const EnvPTXStrict = "SYMCHAN_PTX_STRICT"

// CheckPTX fails t unless ptx, the committed PTX file named name, records
// in its first line (scripts/gpu-ptx.sh writes it) the SourcesHash of the
// files sources, in that order (paths from the test's folder): PTX that
// the CUDA C it comes from has moved on from. Comments and layout do not
// count. Outside CI (EnvPTXStrict) stale PTX skips t instead, saying how
// to regenerate it.
func CheckPTX(t testing.TB, name, ptx string, sources ...string) {
	t.Helper()
	want, err := SourcesHash(sources...)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(ptx, "\n")
	if strings.Contains(first, "sources sha256 "+want) {
		return
	}
	msg := fmt.Sprintf("%s is stale: its sources hash to %s, its header says %q; regenerate it with scripts/gpu-ptx.sh on a GPU machine (or any .gpu/gpu-run.sh mode there, which leaves every program's PTX in $OUT/ptx.tgz)", name, want, first)
	if os.Getenv(EnvPTXStrict) == "" && os.Getenv("CI") == "" {
		t.Skip(msg + "; skipped outside CI (" + EnvPTXStrict + " unset)")
	}
	t.Error(msg)
}
