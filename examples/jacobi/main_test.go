package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// reference is the standard single-array solver written out plainly: the
// problem as the issue states it, independent of the PE decomposition.
func reference(nx, ny, niter int) (norms map[int]float64, grid []float32) {
	a, an := make([]float32, nx*ny), make([]float32, nx*ny)
	for iy := range ny {
		v := float32(math.Sin(2 * math.Pi * float64(iy) / float64(ny-1)))
		a[iy*nx], a[iy*nx+nx-1], an[iy*nx], an[iy*nx+nx-1] = v, v, v, v
	}
	norms = map[int]float64{}
	for k := 1; k <= niter; k++ {
		var sum float64
		for iy := 1; iy < ny-1; iy++ {
			var rowSum float32
			for ix := 1; ix < nx-1; ix++ {
				v := 0.25 * (a[iy*nx+ix+1] + a[iy*nx+ix-1] + a[(iy+1)*nx+ix] + a[(iy-1)*nx+ix])
				an[iy*nx+ix] = v
				d := v - a[iy*nx+ix]
				rowSum += d * d
			}
			sum += float64(rowSum)
		}
		// Periodic halo rows: row 0 ← row ny-2, row ny-1 ← row 1.
		copy(an[1:nx-1], an[(ny-2)*nx+1:(ny-1)*nx-1])
		copy(an[(ny-1)*nx+1:ny*nx-1], an[nx+1:2*nx-1])
		norms[k] = math.Sqrt(sum)
		a, an = an, a
	}
	return norms, a
}

func TestSolveMatchesReference(t *testing.T) {
	const nx, ny, niter = 40, 37, 120
	wantNorms, wantGrid := reference(nx, ny, niter)
	for _, pes := range []int{1, 2, 5} {
		t.Run(fmt.Sprint(pes), func(t *testing.T) {
			res, err := solve(context.Background(), pgas.Config{Backend: "host", PEs: pes}, problem{nx: nx, ny: ny, niter: niter, nccheck: 1, tol: 1e-8}, true, "auto", nil)
			if err != nil {
				t.Fatal(err)
			}
			for k := 1; k <= niter; k++ {
				if g, w := res.norms[k], wantNorms[k]; math.Abs(g-w) > 1e-6*w {
					t.Fatalf("norm of sweep %d: %g, reference %g", k, g, w)
				}
			}
			var maxDiff float64
			for i := range wantGrid {
				maxDiff = max(maxDiff, math.Abs(float64(res.grid[i]-wantGrid[i])))
			}
			if maxDiff > 1e-6 {
				t.Fatalf("grid differs from the reference by %g", maxDiff)
			}
		})
	}
}

func TestLayoutCoversInterior(t *testing.T) {
	for _, tc := range []struct{ n, interior int }{{1, 10}, {2, 10}, {3, 10}, {4, 3}, {7, 100}} {
		l := layout{tc.n, tc.interior}
		next := 1
		for pe := range tc.n {
			if l.start(pe) != next {
				t.Fatalf("%+v: PE %d starts at row %d, want %d", tc, pe, l.start(pe), next)
			}
			next += l.chunk(pe)
		}
		if next != tc.interior+1 {
			t.Fatalf("%+v: rows 1..%d covered, want 1..%d", tc, next-1, tc.interior)
		}
	}
}

func TestJacobiCommand(t *testing.T) {
	img := filepath.Join(t.TempDir(), "field.png")
	var out, errb bytes.Buffer
	code := run([]string{"-nx", "64", "-ny", "48", "-niter", "200", "-nccheck", "10", "-pes", "3", "-verify", "-png", img}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := out.String()
	for _, want := range []string{"Jacobi relaxation: 64 x 48 mesh, 200 iterations", "\n  100, ", "\n  200, ", "3 PEs:", "single PE:", "parallel efficiency", "verify: OK"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	f, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := m.Bounds(); b.Dx() != 64 || b.Dy() != 48 {
		t.Fatalf("image %v, want 64 x 48", b)
	}
}

func TestJacobiBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-nx", "2"}, {"-niter", "0"}, {"-nccheck", "-1"}, {"-pes", "-2"}, {"-kernel", "fast"}, {"-what"}, {"x"},
		{"-nx", "3000000000", "-ny", "3000000000"}, {"-nx", "300000", "-ny", "300000"}, {"-png", "/no/such/folder/f.png"}, {"-png", "."}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: jacobi") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

func TestJacobiTooManyPEs(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-nx", "8", "-ny", "4", "-pes", "3", "-niter", "1"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "at least one") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}
