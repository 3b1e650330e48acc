//go:build cuda

package device

import "testing"

// Runs on a GPU machine: every GPU is described, and peer access between
// every pair is reported (and symmetric, as NVLink and PCIe P2P are).
func TestDevices(t *testing.T) {
	n, err := Count()
	if err != nil {
		t.Fatal(err)
	}
	if n < 1 {
		t.Fatal("no GPU")
	}
	for i := range n {
		info, err := Describe(i)
		if err != nil {
			t.Fatal(err)
		}
		if info.Name == "" || info.TotalMem <= 0 || info.Major < 1 {
			t.Errorf("GPU %d: %+v", i, info)
		}
		t.Logf("GPU %d: %s, %.1f GiB, sm_%d%d", i, info.Name, float64(info.TotalMem)/(1<<30), info.Major, info.Minor)
	}
	for a := range n {
		for b := range n {
			if a == b {
				continue
			}
			ab, err := CanAccessPeer(a, b)
			if err != nil {
				t.Fatal(err)
			}
			ba, _ := CanAccessPeer(b, a)
			if ab != ba {
				t.Errorf("peer access %d→%d %v but %d→%d %v", a, b, ab, b, a, ba)
			}
			t.Logf("peer access %d→%d: %v", a, b, ab)
		}
	}
	if _, err := Describe(n); err == nil {
		t.Errorf("Describe(%d) of %d GPUs: no error", n, n)
	}
}
