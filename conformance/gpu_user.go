package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

// userSource is a user's program, compiled at run time: it includes the
// device API and takes symmetric arrays, as pgas.Launch passes them (this
// PE's copy), turning them into offsets for symchan.cuh's routines.
const userSource = `#include "symchan.cuh"

// fill writes pattern(i) = i*3 + pe into a, this PE's copy of a Sym.
extern "C" __global__ void user_fill(const symchan_heap *h, unsigned long long *a, int n) {
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
		a[i] = (unsigned long long)i * 3 + h->pe;
}

// put_signal puts n words of src into dst on PE peer, then sets its sig
// to value: one put-with-signal of the device API, in NVSHMEM's terms.
extern "C" __global__ void user_put_signal(const symchan_heap *h, unsigned long long *dst, const unsigned long long *src,
                                          unsigned long long *sig, int n, int peer, unsigned long long value) {
	if (blockIdx.x != 0 || threadIdx.x != 0) return;
	symchan_putmem_signal(h, dst, src, (symchan_u64)n * 8, sig, value, SYMCHAN_SIGNAL_SET, peer);
}

// terms runs the word routines in NVSHMEM's terms against PE peer: a
// fetch-add on its counter, a p to its word and a g back, a compare-swap
// that fails and one that succeeds, a signal add; out gets what they return.
extern "C" __global__ void user_terms(const symchan_heap *h, unsigned long long *counter, unsigned long long *word,
                                     unsigned long long *sig, unsigned long long *out, int peer) {
	if (blockIdx.x != 0 || threadIdx.x != 0) return;
	out[0] = symchan_uint64_atomic_fetch_add(h, counter, 5, peer);
	symchan_uint64_p(h, word, 11 + symchan_my_pe(h), peer);
	symchan_quiet();
	out[1] = symchan_uint64_g(h, word, peer);
	out[2] = symchan_n_pes(h);
	out[3] = symchan_uint64_atomic_compare_swap(h, counter, 99, 1, peer); // fails: counter is 5
	out[4] = symchan_uint64_atomic_compare_swap(h, counter, 5, 6, peer);
	symchan_signal(h, sig, 3, SYMCHAN_SIGNAL_ADD, peer);
}
`

// A user's CUDA C, compiled with NVRTC at run time (cold, then from the
// cache), loaded on each PE's GPU and launched with Sym arguments: PE 0
// fills its copy of an array on the device and puts it to PE 1 with a
// put-with-signal of the device API; PE 1 waits for the signal from Go and
// finds the pattern. A program with an error gives NVRTC's log with the
// line.
func (ck *kit) testUserKernel(t *testing.T) {
	ck.needGPUs(t, 2)
	cache := t.TempDir()
	t0 := time.Now()
	prog, err := kernels.Compile("user.cu", userSource, kernels.CompileOptions{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	cold := time.Since(t0)
	t0 = time.Now()
	again, err := kernels.Compile("user.cu", userSource, kernels.CompileOptions{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	warm := time.Since(t0)
	if again.PTX != prog.PTX {
		t.Fatal("the cached program differs from the compiled one")
	}
	t.Logf("NVRTC compile of user.cu for the cuda backend: cold %v, cached %v", cold, warm)
	bad := "#include \"symchan.cuh\"\n\nextern \"C\" __global__ void broken() { undeclared_thing = 1; }\n"
	_, err = kernels.Compile("broken.cu", bad, kernels.CompileOptions{CacheDir: "-"})
	var ce *device.CompileError
	if !errors.As(err, &ce) || !strings.Contains(ce.Log, "broken.cu(3)") {
		t.Fatalf("a program with an error on line 3: %v, want a *device.CompileError whose log names broken.cu(3)", err)
	}
	// A second program of the same name is a program of its own: its
	// module is not the first one's.
	renamed, err := kernels.Compile("user.cu", "#include \"symchan.cuh\"\nextern \"C\" __global__ void user_mark(unsigned long long *a) { a[0] = 99; }\n", kernels.CompileOptions{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	if renamed.Key() == prog.Key() {
		t.Fatalf("two sources named user.cu share the key %q", prog.Key())
	}
	const n = 256
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		a := must(pgas.AllocZeroed[uint64](ctx, pe, n))
		sig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		g := must(pe.GPU())
		t0 := time.Now()
		mod, err := g.Load(prog) // on nvshmem: its variant compiled, cold, then linked
		if err != nil {
			return err
		}
		t.Logf("PE %d: Load of user.cu: %v", pe.ID(), time.Since(t0))
		if pe.ID() == 0 {
			if err := pgas.Launch(pe, mod, "user_fill", device.D1(2), device.D1(128), 0, g.HeapDescriptor(), a, n); err != nil {
				return err
			}
			// The put reads this PE's copy and writes PE 1's (same Sym).
			if err := pgas.Launch(pe, mod, "user_put_signal", device.D1(1), device.D1(32), 0, g.HeapDescriptor(), a, a, sig, n, 1, uint64(7)); err != nil {
				return err
			}
			if err := g.Stream().Sync(); err != nil {
				return err
			}
		} else {
			if _, err := pgas.Wait(ctx, pe, pgas.WaitAll, pgas.WaitSet[uint64]{Ivars: sig, Cmp: pgas.CmpEQ, Value: 7, From: []int{0}}); err != nil {
				return err
			}
			got := make([]uint64, n)
			if err := pgas.Get(pe, got, a, 1); err != nil {
				return err
			}
			for i, v := range got {
				if want := uint64(i*3 + 0); v != want {
					return fmt.Errorf("PE 1's a[%d] = %d, want %d (PE 0's pattern)", i, v, want)
				}
			}
		}
		other, err := g.Load(renamed)
		if err != nil {
			return err
		}
		// The word routines in NVSHMEM's terms, each PE on the other.
		counter := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		word := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		tsig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		out := must(pgas.AllocZeroed[uint64](ctx, pe, 5))
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		peer := 1 - pe.ID()
		if err := pgas.Launch(pe, mod, "user_terms", device.D1(1), device.D1(32), 0, g.HeapDescriptor(), counter, word, tsig, out, peer); err != nil {
			return err
		}
		if _, err := pgas.Wait(ctx, pe, pgas.WaitAll, pgas.WaitSet[uint64]{Ivars: tsig, Cmp: pgas.CmpEQ, Value: 3, From: []int{peer}}); err != nil {
			return err
		}
		if err := g.Stream().Sync(); err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		ret := make([]uint64, 5)
		if err := pgas.Get(pe, ret, out, pe.ID()); err != nil {
			return err
		}
		if want := []uint64{0, uint64(11 + pe.ID()), 2, 5, 5}; !slices.Equal(ret, want) {
			return fmt.Errorf("PE %d: the routines in NVSHMEM's terms returned %v, want %v", pe.ID(), ret, want)
		}
		mine := make([]uint64, 1)
		for _, c := range []struct {
			name string
			s    pgas.Sym[uint64]
			want uint64
		}{{"counter", counter, 6}, {"word", word, uint64(11 + peer)}} {
			if err := pgas.Get(pe, mine, c.s, pe.ID()); err != nil || mine[0] != c.want {
				return fmt.Errorf("PE %d: its %s is %d (%v), want %d", pe.ID(), c.name, mine[0], err, c.want)
			}
		}
		mark := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		if err := pgas.Launch(pe, other, "user_mark", device.D1(1), device.D1(1), 0, mark); err != nil {
			return fmt.Errorf("the second user.cu's kernel: %w", err)
		}
		if err := g.Stream().Sync(); err != nil {
			return err
		}
		got := make([]uint64, 1)
		if err := pgas.Get(pe, got, mark, pe.ID()); err != nil || got[0] != 99 {
			return fmt.Errorf("the second user.cu's kernel wrote %d (%v), want 99", got[0], err)
		}
		if err := pgas.Launch(pe, mod, "user_fill", device.D1(1), device.D1(32), 0, g.HeapDescriptor(), struct{}{}); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("Launch with a struct argument: %v, want ErrBadArg", err)
		}
		return pe.Barrier(ctx)
	})
}
