package host

import (
	"cmp"
	"context"
	"math"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/symchan/symchan/internal/sysmem"
	"github.com/symchan/symchan/pgas/driver"
)

// The host's any-wait scans report, from Start round, the first word that
// satisfies the comparison as the word's own type orders it: checked
// against a plain typed scan for 64- and 32-bit, signed and unsigned
// words, every comparison and every start, with and without a mask.
func TestHostAnyScan(t *testing.T) {
	const n = 12
	tr, err := Backend{}.Open(context.Background(), driver.Config{PEs: 1, HeapSize: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	h := tr.(*hostTransport)
	edges := []uint64{0, 1, 2, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1<<63 - 1, 1 << 63, ^uint64(0), ^uint64(1)}
	// holdsTyped is the spec's comparison on the words' own type.
	holdsTyped := func(k driver.Kind, c driver.Cmp, w, v uint64) bool {
		var d int
		switch k {
		case driver.KindInt64:
			d = cmp.Compare(int64(w), int64(v))
		case driver.KindUint64:
			d = cmp.Compare(w, v)
		case driver.KindInt32:
			d = cmp.Compare(int32(w), int32(v))
		default:
			d = cmp.Compare(uint32(w), uint32(v))
		}
		return map[driver.Cmp]bool{driver.CmpEQ: d == 0, driver.CmpNE: d != 0, driver.CmpGT: d > 0, driver.CmpGE: d >= 0, driver.CmpLT: d < 0, driver.CmpLE: d <= 0}[c]
	}
	rng := uint64(1)
	next := func() uint64 { rng = rng*6364136223846793005 + 1442695040888963407; return rng >> 33 }
	for _, k := range []driver.Kind{driver.KindInt64, driver.KindUint64, driver.KindInt32, driver.KindUint32} {
		for c := driver.CmpEQ; c <= driver.CmpLE; c++ {
			for trial := range 20 {
				words := make([]uint64, n)
				for i := range words {
					words[i] = edges[next()%uint64(len(edges))]
					if k.Size() == 4 {
						words[i] = uint64(uint32(words[i]))
					}
				}
				v := edges[next()%uint64(len(edges))]
				var status []int
				if trial%2 == 1 {
					status = make([]int, n)
					status[next()%n] = 1
				}
				off := int64(4096)
				for i, w := range words {
					if k.Size() == 8 {
						*(*uint64)(unsafe.Pointer(&h.heaps[0][off+int64(i)*8])) = w
					} else {
						*(*uint32)(unsafe.Pointer(&h.heaps[0][off+int64(i)*4])) = uint32(w)
					}
				}
				for start := range n {
					want := driver.NoIndex
					for j := range n {
						i := (start + j) % n
						if (status == nil || status[i] == 0) && holdsTyped(k, c, words[i], v) {
							want = i
							break
						}
					}
					req := driver.WaitRequest{Mode: driver.WaitAny, Test: true, Kind: k, Off: off, N: n, Status: status, Cmp: c, Value: v, Start: start}
					if k.Size() == 4 {
						req.Value = uint64(uint32(v))
					}
					r, err := h.Wait(context.Background(), 0, nil, req)
					if err != nil || r.N != want {
						t.Fatalf("%v words %v, %v %#x from %d (mask %v): index %d, %v; want %d", k, words, c, v, start, status, r.N, err, want)
					}
				}
			}
		}
	}
}

func TestCheckHostFits(t *testing.T) {
	cases := []struct {
		n        int
		size     int64
		mem      int64
		ok       bool
		mentions string
	}{
		{8, 128 << 20, 24 << 30, true, ""},
		{8, 128 << 20, 0, true, ""}, // memory unknown: only overflow is checked
		{8, 4 << 30, 24 << 30, false, "SYMCHAN_SYMMETRIC_SIZE"},
		{65536, 1 << 20, 24 << 30, false, "SYMCHAN_PES"},
		{3, math.MaxInt64 / 2, 0, false, "overflows"},
		// The heaps alone (8 GiB) fit; with what each PE costs besides, not.
		{65536, 128 << 10, 17 << 29, false, "per PE"},
	}
	for _, c := range cases {
		err := checkHostFits(c.n, c.size, c.mem)
		if (err == nil) != c.ok || (err != nil && !strings.Contains(err.Error(), c.mentions)) {
			t.Errorf("checkHostFits(%d, %d, %d) = %v", c.n, c.size, c.mem, err)
		}
	}
}

// The partitions lie outside the Go heap: a world of large heaps adds
// nothing to what the garbage collector manages, and pages never touched
// cost no memory.
func TestHeapOutsideGoHeap(t *testing.T) {
	if !heapOutsideGo {
		t.Skip("partitions are Go memory where mmap is not at hand")
	}
	var before, during runtime.MemStats
	runtime.ReadMemStats(&before)
	tr, err := Backend{}.Open(context.Background(), driver.Config{PEs: 4, HeapSize: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	for pe := range 4 {
		if err := tr.Put(pe, pe, 0, make([]byte, 1<<20)); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&during)
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	if grew := int64(during.HeapSys) - int64(before.HeapSys); grew > 256<<20 {
		t.Errorf("the Go heap grew by %s for 4 partitions of 1 GiB", sysmem.Format(grew))
	}
}
