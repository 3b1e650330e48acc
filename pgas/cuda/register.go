//go:build cuda

package cuda

import (
	"fmt"

	"github.com/symchan/symchan/device"
)

// RegisterSpan is driver.RegisterTransport's: past the heap, in every
// partition's window.
func (t *transport) RegisterSpan() (lo, hi, align int64) { return t.regLo, t.regHi, t.gran }

// Register maps the device memory at buf, the start of an allocation of
// PE me's GPU made with CUDA's virtual memory management, at off of me's
// partition, where every GPU of the world reaches it as it reaches the
// heap.
func (t *transport) Register(me int, off int64, buf uintptr, n int64) (int64, error) {
	g := t.gpus[me]
	if err := g.win.MapShared(off, device.Ptr(buf), n, t.ordinals); err != nil {
		return 0, fmt.Errorf("cuda backend: %w", err)
	}
	t.regMu.Lock()
	defer t.regMu.Unlock()
	if t.mapped == nil {
		t.mapped = make(map[[2]int64]int64)
	}
	t.mapped[[2]int64{int64(me), off}] = n
	return off, nil
}

// Unregister unmaps what Register mapped at off of me's partition.
func (t *transport) Unregister(me int, off, n int64) error {
	t.regMu.Lock()
	defer t.regMu.Unlock()
	k := [2]int64{int64(me), off}
	if t.mapped[k] != n {
		return fmt.Errorf("cuda backend: no registered buffer of %d bytes at offset %d of PE %d", n, off, me)
	}
	delete(t.mapped, k)
	return t.gpus[me].win.Unmap(off, n)
}
