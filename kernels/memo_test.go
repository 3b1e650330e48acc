package kernels

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The in-process cache gives back what was built, builds a key once
// however many callers ask for it at once (each gets the result, an error
// included), keeps no failure, and starts again empty once full rather
// than growing without bound.
func TestPTXMemo(t *testing.T) {
	var m ptxMemo
	var builds atomic.Int32
	slow := func() (string, error) {
		builds.Add(1)
		time.Sleep(20 * time.Millisecond) // the others arrive while it builds
		return "ptx a", nil
	}
	var wg sync.WaitGroup
	got := make([]string, 16)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = m.do("a", slow)
		}()
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Errorf("16 concurrent first calls built %d times, want once", n)
	}
	for i, ptx := range got {
		if ptx != "ptx a" {
			t.Errorf("caller %d got %q", i, ptx)
		}
	}
	if ptx, err := m.do("a", func() (string, error) { return "", errors.New("built again") }); err != nil || ptx != "ptx a" {
		t.Errorf("a memoised key: %q, %v; want the PTX built before", ptx, err)
	}

	fail := errors.New("NVRTC refused it")
	if _, err := m.do("b", func() (string, error) { return "", fail }); !errors.Is(err, fail) {
		t.Errorf("a failed build: %v, want its error", err)
	}
	if ptx, err := m.do("b", func() (string, error) { return "ptx b", nil }); err != nil || ptx != "ptx b" {
		t.Errorf("after a failed build: %q, %v; want a new build", ptx, err)
	}

	for i := range compiledMax {
		_, _ = m.do(fmt.Sprint(i), func() (string, error) { return "x", nil })
	}
	if _, err := m.do("a", func() (string, error) { return "", errors.New("rebuilt") }); err == nil {
		t.Error("a full memo kept its first program: it grows without bound")
	}
	if n := len(m.ptx); n > compiledMax {
		t.Fatalf("memo holds %d programs, more than %d", n, compiledMax)
	}
}
