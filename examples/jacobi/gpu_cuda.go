//go:build cuda

package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/examples/jacobi/jacobicu"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

func init() {
	engines["cuda"] = gpuEngine
	engines["nvshmem"] = gpuEngine
}

// rowsPerStrip is how many rows each thread of the sweep kernel walks.
const rowsPerStrip = 32

// gpuEngine runs every sweep on the GPU: one jacobi_sweep launch per
// sweep on the PE's stream does the sweep, the device-initiated halo
// put-with-signal and, at its start, the wait for the neighbours' halos;
// the host only queues launches and, every 100 sweeps and at the end,
// reduces the norms across PEs.
func gpuEngine(ctx context.Context, pe *pgas.PE, s *state) error {
	g, err := pe.GPU()
	if err != nil {
		return err
	}
	return sweepOnGPU(ctx, pe, s, g)
}

func sweepOnGPU(ctx context.Context, pe *pgas.PE, s *state, g pgas.GPU) error {
	// The sweeps get a stream of their own: the host routines of the norm
	// reductions (on the PE's stream) must not queue behind them, or the
	// GPU would idle while the host reduces.
	st, err := g.Context().NewStream()
	if err != nil {
		return err
	}
	defer st.Destroy()
	prog, err := kernels.Compile("jacobi.cu", jacobicu.Source, kernels.CompileOptions{})
	if err != nil {
		return err
	}
	mod, err := g.Load(prog)
	if err != nil {
		return err
	}
	initK, err := mod.Function(jacobicu.KernelInit)
	if err != nil {
		return err
	}
	// Four columns per thread in 16-byte accesses where the row allows.
	vec4 := s.kernel == "vec4" || (s.kernel == "auto" && s.p.nx%4 == 0)
	if s.kernel == "vec4" && s.p.nx%4 != 0 {
		return fmt.Errorf("jacobi: -kernel vec4 needs nx divisible by 4, not %d", s.p.nx)
	}
	name, cols := jacobicu.KernelSweep, s.p.nx-2
	if vec4 {
		name, cols = jacobicu.KernelSweep4, s.p.nx/4
	}
	sweepK, err := mod.Function(name)
	if err != nil {
		return err
	}
	nx, rows := s.p.nx, s.chunk+2
	me := pe.ID()
	for _, m := range []pgas.Sym[float32]{s.a, s.an} {
		if err := st.Launch(initK, device.D1(1024), device.D1(256), 0,
			uint64(g.Addr(me, m.Offset())), uint64(nx), uint64(rows), uint64(s.start-1), uint64(s.p.ny)); err != nil {
			return err
		}
	}
	scratch, err := g.Context().Alloc(int64(8 * (s.p.niter + 2)))
	if err != nil {
		return err
	}
	defer g.Context().Free(scratch)
	cnt, norms := scratch, scratch+8 // two u32 counters, then a double per sweep
	if err := st.Memset(scratch, 0, int64(8*(s.p.niter+2))); err != nil {
		return err
	}
	if err := st.Sync(); err != nil {
		return err
	}
	if err := pe.Barrier(ctx); err != nil {
		return err
	}
	// Norms are read one block of 100 sweeps behind the launches, on a
	// second stream after an event, so the GPU's queue never runs dry.
	side, err := g.Context().NewStream()
	if err != nil {
		return err
	}
	defer side.Destroy()
	type block struct {
		from, to int
		ev       *device.Event
	}
	var pending []block
	defer func() {
		for _, b := range pending {
			b.ev.Destroy()
		}
	}()
	settle := func(b block) (bool, error) {
		defer b.ev.Destroy()
		if err := b.ev.Sync(); err != nil {
			return false, err
		}
		raw := make([]byte, 8*(b.to-b.from+1))
		if err := side.CopyOut(raw, norms+device.Ptr(8*b.from)); err != nil {
			return false, err
		}
		var ks []int
		var partial []float64
		for j := b.from; j <= b.to; j++ {
			if s.p.due(j) {
				ks = append(ks, j)
				partial = append(partial, math.Float64frombits(binary.LittleEndian.Uint64(raw[8*(j-b.from):])))
			}
		}
		return s.reduceNorms(ctx, pe, ks, partial)
	}
	grid := device.Dim3{X: (cols + 255) / 256, Y: (s.chunk + rowsPerStrip - 1) / rowsPerStrip}
	nbrs := uint64(s.top) | uint64(s.bot)<<32
	t0 := time.Now()
	from, k, conv := 1, 1, false
	for ; k <= s.p.niter && !conv; k++ {
		r, w := s.a, s.an
		if k%2 == 0 {
			r, w = s.an, s.a
		}
		norm := uint64(0)
		if s.p.due(k) {
			norm = uint64(norms) + uint64(8*k)
		}
		if err := st.Launch(sweepK, grid, device.D1(256), 0, uint64(g.HeapDescriptor()), uint64(g.Addr(me, r.Offset())),
			uint64(g.Addr(me, w.Offset())), uint64(w.Offset()),
			uint64(nx), uint64(s.chunk), uint64(s.l.chunk(s.top)), uint64(k), nbrs, uint64(s.sig.Offset()), uint64(cnt), norm); err != nil {
			return err
		}
		if k%100 != 0 && k != s.p.niter {
			continue
		}
		ev, err := g.Context().NewEvent()
		if err != nil {
			return err
		}
		if err := ev.Record(st); err != nil {
			return err
		}
		pending = append(pending, block{from, k, ev})
		from = k + 1
		// A norm at or below the tolerance stops the run at the next
		// block boundary: up to 199 sweeps after it fell.
		for len(pending) > 1 || (k == s.p.niter && len(pending) > 0) {
			b := pending[0]
			pending = pending[1:]
			c, err := settle(b)
			if err != nil {
				return err
			}
			conv = conv || c
		}
	}
	k--
	for len(pending) > 0 {
		b := pending[0]
		pending = pending[1:]
		if _, err := settle(b); err != nil {
			return err
		}
	}
	if err := st.Sync(); err != nil {
		return err
	}
	return s.done(ctx, pe, min(k, s.p.niter), t0)
}
