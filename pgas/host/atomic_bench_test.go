package host

import (
	"testing"
	"unsafe"

	"github.com/symchan/symchan/pgas/driver"
)

// BenchmarkAtomicOps: the host backend's atomics on an uncontended word,
// 8 and 4 bytes (atomicOp folds the two sizes into one switch).
func BenchmarkAtomicOps(b *testing.B) {
	var buf [16]byte
	p := unsafe.Pointer(&buf[0])
	for _, c := range []struct {
		name string
		op   driver.AtomicOp
	}{{"fetchadd", driver.OpFetchAdd}, {"cswap", driver.OpCompareSwap}, {"fetch", driver.OpFetch}} {
		b.Run(c.name+"/64", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				atomicOp(c.op, p, 8, uint64(i), 3)
			}
		})
		b.Run(c.name+"/32", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				atomicOp(c.op, p, 4, uint64(i), 3)
			}
		})
	}
}
