//go:build cuda

package device

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"
)

func contexts(t testing.TB) []*Context {
	t.Helper()
	n, err := Count()
	if err != nil {
		t.Fatal(err)
	}
	var cs []*Context
	for i := range n {
		c, err := NewContext(i)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
		t.Cleanup(func() { c.Close() })
	}
	return cs
}

// Host → GPU 0 → (peer) GPU 1 → host, bytes intact, and no device memory
// left behind.
func TestCopyRoundTrip(t *testing.T) {
	cs := contexts(t)
	const n = 4 << 20
	want := make([]byte, n)
	for i := range want {
		want[i] = byte(i*7 + 3)
	}
	free0, _, err := cs[0].MemInfo()
	if err != nil {
		t.Fatal(err)
	}
	a, err := cs[0].Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs[0].CopyIn(a, want); err != nil {
		t.Fatal(err)
	}
	last := cs[len(cs)-1]
	b := a
	if len(cs) > 1 {
		for _, c := range cs[1:] {
			if err := c.EnablePeer(cs[0]); err != nil {
				t.Fatal(err)
			}
			if err := cs[0].EnablePeer(c); err != nil {
				t.Fatal(err)
			}
		}
		if err := cs[0].EnablePeer(last); err != nil { // twice: not an error
			t.Fatal(err)
		}
		if b, err = last.Alloc(n); err != nil {
			t.Fatal(err)
		}
		if err := CopyPeer(b, last, a, cs[0], n); err != nil {
			t.Fatal(err)
		}
	}
	got := make([]byte, n)
	if err := last.CopyOut(got, b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("bytes changed on the way")
	}
	if b != a {
		if err := last.Free(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := cs[0].Free(a); err != nil {
		t.Fatal(err)
	}
	if free1, _, _ := cs[0].MemInfo(); free1 != free0 {
		t.Errorf("GPU 0 free memory %d before, %d after", free0, free1)
	}
	if _, err := cs[0].Alloc(0); err == nil {
		t.Error("Alloc(0): no error")
	}
}

// TestPeerBandwidth measures cuMemcpyPeer GPU 0 → GPU 1, the bandwidth
// anchor of the GPU benchmarks: median of 20 copies after 3 of warm-up.
func TestPeerBandwidth(t *testing.T) {
	cs := contexts(t)
	if len(cs) < 2 {
		t.Skip("needs 2 GPUs") // the 1-GPU run has no peer
	}
	for _, c := range cs[1:] {
		if err := c.EnablePeer(cs[0]); err != nil {
			t.Fatal(err)
		}
		if err := cs[0].EnablePeer(c); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%10s %12s %10s", "bytes", "median", "GB/s")
	for _, n := range []int64{8, 64 << 10, 1 << 20, 16 << 20, 256 << 20} {
		src, err := cs[0].Alloc(n)
		if err != nil {
			t.Fatal(err)
		}
		dst, err := cs[1].Alloc(n)
		if err != nil {
			t.Fatal(err)
		}
		var ts []time.Duration
		for i := range 23 {
			start := time.Now()
			if err := CopyPeer(dst, cs[1], src, cs[0], n); err != nil {
				t.Fatal(err)
			}
			if i >= 3 {
				ts = append(ts, time.Since(start))
			}
		}
		slices.Sort(ts)
		med := ts[len(ts)/2]
		t.Logf("%10d %12v %10s", n, med, fmt.Sprintf("%.1f", float64(n)/float64(med.Nanoseconds())))
		cs[0].Free(src)
		cs[1].Free(dst)
	}
}
