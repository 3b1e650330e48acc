package kernels

import (
	"fmt"
	"testing"
)

// The in-process cache gives back what was put, and starts again empty
// once full rather than growing without bound.
func TestPTXMemo(t *testing.T) {
	var m ptxMemo
	if _, ok := m.get("a"); ok {
		t.Fatal("an empty memo has a program")
	}
	m.put("a", "ptx a")
	if ptx, ok := m.get("a"); !ok || ptx != "ptx a" {
		t.Fatalf("get(a) = %q, %v; want the PTX put", ptx, ok)
	}
	for i := range compiledMax {
		m.put(fmt.Sprint(i), "x")
	}
	if _, ok := m.get("a"); ok {
		t.Fatal("a full memo kept its first program: it grows without bound")
	}
	if n := len(m.ptx); n > compiledMax {
		t.Fatalf("memo holds %d programs, more than %d", n, compiledMax)
	}
}
