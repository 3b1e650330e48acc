package conformance

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// needGPUs skips t unless the backend's PEs are GPUs and n of them can
// run. (Partitions a GPU cannot address, as under the nvshmem backend's
// ForceRemote, the tests' kernels reach through NVSHMEM: symchan.cuh.)
func (ck *kit) needGPUs(t *testing.T, n int) {
	t.Helper()
	ck.needPEs(t, n)
	if why := ck.notGPUs(t, n); why != "" {
		t.Skip(why) // on the test's goroutine
	}
}

// notGPUs runs a world of n PEs and says why they are not GPUs, "" where
// every one is.
func (ck *kit) notGPUs(t *testing.T, n int) string {
	t.Helper()
	var mu sync.Mutex
	var why string
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		_, err := pe.GPU()
		if errors.Is(err, pgas.ErrNotGPU) {
			err = fmt.Errorf("the %s backend's PEs are not GPUs", ck.backend())
		}
		if err != nil {
			mu.Lock()
			why = err.Error()
			mu.Unlock()
		}
		return nil
	})
	return why
}

// Stream-ordered put-with-signal and wait, queued behind other work: PE 0
// puts a device buffer to PE 1 and signals; PE 1's stream waits for the
// signal, then copies what arrived, and the host checks it.
func (ck *kit) testOnStream(t *testing.T) {
	ck.needGPUs(t, 2)
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		src := must(pgas.AllocZeroed[uint64](ctx, pe, 512))
		dst := must(pgas.AllocZeroed[uint64](ctx, pe, 512))
		out := must(pgas.AllocZeroed[uint64](ctx, pe, 512))
		sig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		g := must(pe.GPU())
		st, err := g.Context().NewStream()
		if err != nil {
			return err
		}
		defer st.Destroy()
		if pe.ID() == 1 {
			// Queue the wait and the copy behind it before PE 0 sends.
			if err := g.SignalWaitOnStream(st, sig.Offset(), 7); err != nil {
				return err
			}
			if err := st.CopyPeer(g.Addr(1, out.Offset()), g.Context(), g.Addr(1, dst.Offset()), g.Context(), dst.Bytes()); err != nil {
				return err
			}
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if pe.ID() == 0 {
			vals := make([]uint64, 512)
			for i := range vals {
				vals[i] = uint64(i) * 3
			}
			if err := pgas.Put(pe, src, vals, 0); err != nil {
				return err
			}
			if err := pe.Quiet(); err != nil {
				return err
			}
			if err := g.PutSignalOnStream(st, 1, dst.Offset(), g.Addr(0, src.Offset()), src.Bytes(), sig.Offset(), 7, pgas.SignalSet); err != nil {
				return err
			}
		}
		if err := st.Sync(); err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if pe.ID() == 1 {
			got := make([]byte, out.Bytes())
			if err := st.CopyOut(got, g.Addr(1, out.Offset())); err != nil {
				return err
			}
			for i := range 512 {
				if v := binary.LittleEndian.Uint64(got[8*i:]); v != uint64(i)*3 {
					t.Errorf("word %d after the stream wait: %d, want %d", i, v, i*3)
					break
				}
			}
		}
		return nil
	})
}
