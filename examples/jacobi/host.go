package main

import (
	"context"
	"fmt"
	"time"

	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/signals"
)

// hostEngine runs the sweeps in Go on the PE's goroutine: sweep, put the
// first and last rows into the neighbours' halos with put-with-signal
// (signal = iteration), wait for both own halos with a wait-until-all.
func hostEngine(ctx context.Context, pe *pgas.PE, s *state) error {
	nx := s.p.nx
	rows := s.chunk + 2
	a, an := make([]float32, rows*nx), make([]float32, rows*nx)
	for r := range rows {
		b := boundary(s.start-1+r, s.p.ny)
		a[r*nx], a[r*nx+nx-1], an[r*nx], an[r*nx+nx-1] = b, b, b, b
	}
	if err := pgas.Put(pe, s.a, a, pe.ID()); err != nil {
		return err
	}
	if err := pgas.Put(pe, s.an, an, pe.ID()); err != nil {
		return err
	}
	// The sweeps work on the partition itself, where the neighbours'
	// halo rows land.
	la, err := pgas.Local(pe, s.a)
	if err != nil || la == nil {
		return fmt.Errorf("jacobi: the %s backend's heap is not host-addressable and it has no GPU engine", pe.World().Config().Backend)
	}
	ln, _ := pgas.Local(pe, s.an)
	a, an = la[:rows*nx], ln[:rows*nx]
	if err := pe.Barrier(ctx); err != nil {
		return err
	}
	t0 := time.Now()
	var ks []int
	var partial []float64
	k := 1
	for ; k <= s.p.niter; k++ {
		r, w, wsym := a, an, s.an
		if k%2 == 0 {
			r, w, wsym = an, a, s.a
		}
		if k > 1 {
			if err := signals.WaitUntilAll(ctx, pe, s.sig, nil, pgas.CmpGE, uint64(k-1)); err != nil {
				return err
			}
		}
		d2 := sweep(r, w, nx, s.chunk)
		topRow := (s.l.chunk(s.top) + 1) * nx
		if err := pgas.PutSignal(pe, wsym.Slice(topRow+1, topRow+nx-1), w[nx+1:2*nx-1], s.sig.Slice(1, 2), uint64(k), pgas.SignalSet, s.top); err != nil {
			return err
		}
		last := s.chunk * nx
		if err := pgas.PutSignal(pe, wsym.Slice(1, nx-1), w[last+1:last+nx-1], s.sig.Slice(0, 1), uint64(k), pgas.SignalSet, s.bot); err != nil {
			return err
		}
		if s.p.due(k) {
			ks, partial = append(ks, k), append(partial, d2)
			if len(ks) == 100 || k%100 == 0 || k == s.p.niter || k%s.p.nccheck == 0 {
				conv, err := s.reduceNorms(ctx, pe, ks, partial)
				if err != nil {
					return err
				}
				ks, partial = ks[:0], partial[:0]
				if conv {
					break
				}
			}
		}
	}
	return s.done(ctx, pe, min(k, s.p.niter), t0)
}

// sweep computes rows 1 … chunk of w from r and returns Σ(new-old)².
// Operand order is that of the standard solver (right, left, down, up),
// and of the GPU kernel, so grids agree bit for bit.
func sweep(r, w []float32, nx, chunk int) float64 {
	var d2 float64
	for iy := 1; iy <= chunk; iy++ {
		row, up, dn, out := r[iy*nx:(iy+1)*nx], r[(iy-1)*nx:iy*nx], r[(iy+1)*nx:(iy+2)*nx], w[iy*nx:(iy+1)*nx]
		var rowSum float32
		for ix := 1; ix < nx-1; ix++ {
			v := 0.25 * (row[ix+1] + row[ix-1] + dn[ix] + up[ix])
			out[ix] = v
			d := v - row[ix]
			rowSum += d * d
		}
		d2 += float64(rowSum)
	}
	return d2
}
