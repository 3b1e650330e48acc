package conformance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// slowFillSource's kernel takes ns nanoseconds before it fills a with v,
// v+1, …: a stream that does not wait for it reads zeros.
const slowFillSource = `extern "C" __global__ void slow_fill(long long *a, int n, long long v, unsigned long long ns) {
	unsigned long long t0, t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
	do
		asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	while (t - t0 < ns);
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		a[i] = v + i;
}
`

// Host memory and ordering on a stream, on every backend: each member
// copies a host slice into its copy of a symmetric array on its stream
// (small, as stream writes on a GPU, and large, through pinned memory),
// changes the slice at once (the copy read it when queued), completes and
// synchronises (QuietOnStream, BarrierOnStream), gets its neighbour's
// copy on the stream and copies it out to host memory, then syncs the
// team on the stream (TeamSyncOnStream); after Sync the host slices hold
// the neighbour's values. On a GPU, a kernel queued with Launch on the
// PE's own stream runs before the stream's later work once the stream
// waits for it (Stream.WaitLaunched): the kernel takes 50 ms before it
// fills an array that the stream copies out at once. Bad input fails.
func (ck *kit) testStreamHostMemory(t *testing.T) {
	npes := ck.upToPEs(4)
	ck.run(t, npes, func(ctx context.Context, pe *pgas.PE) error {
		me, next := pe.ID(), (pe.ID()+1)%npes
		world := pe.TeamWorld()
		st := must(pgas.NewStream(pe))
		defer st.Close(ctx)
		val := func(q, i int) int64 { return int64(q)<<32 | int64(i) }
		for _, n := range []int{4, 1000} {
			buf := must(pgas.AllocZeroed[int64](ctx, pe, n))
			got := must(pgas.AllocZeroed[int64](ctx, pe, n))
			src := seq(n, func(i int) int64 { return val(me, i) })
			out := make([]int64, n)
			check(pgas.CopyInOnStream(st, buf, src))
			clear(src) // read when queued
			check(pgas.QuietOnStream(st))
			check(pgas.BarrierOnStream(st, world))
			check(pgas.GetOnStream(st, got, buf, next))
			check(pgas.CopyOutOnStream(st, out, got))
			check(pgas.TeamSyncOnStream(st, world))
			if err := st.Sync(ctx); err != nil {
				return fmt.Errorf("%d elements: Sync: %w", n, err)
			}
			if want := seq(n, func(i int) int64 { return val(next, i) }); !slices.Equal(out, want) {
				return fmt.Errorf("%d elements: copied out %v…, want %v…", n, out[:min(n, 4)], want[:min(n, 4)])
			}
			check(pe.Barrier(ctx)) // nobody reads buf any more
			check(pgas.Free(ctx, pe, got))
			check(pgas.Free(ctx, pe, buf))
		}
		small := must(pgas.AllocZeroed[int64](ctx, pe, 2))
		for _, bad := range []struct {
			name      string
			err, want error
		}{
			{"CopyInOnStream past the array", pgas.CopyInOnStream(st, small, make([]int64, 3)), pgas.ErrBadSize},
			{"CopyOutOnStream past the array", pgas.CopyOutOnStream(st, make([]int64, 3), small), pgas.ErrBadSize},
			{"CopyInOnStream of a zero Sym", pgas.CopyInOnStream(st, pgas.Sym[int64]{}, make([]int64, 1)), pgas.ErrBadSym},
			{"QuietOnStream on a nil stream", pgas.QuietOnStream(nil), pgas.ErrBadArg},
			{"TeamSyncOnStream of a nil team", pgas.TeamSyncOnStream(st, nil), pgas.ErrBadArg},
		} {
			if !errors.Is(bad.err, bad.want) {
				return fmt.Errorf("%s: %v, want %v", bad.name, bad.err, bad.want)
			}
		}
		g, err := pe.GPU()
		if errors.Is(err, pgas.ErrNotGPU) {
			return st.WaitLaunched() // nothing to wait for
		}
		if err != nil {
			return err
		}
		const n = 512
		mod := must(g.Load(compile(t, "slow.cu", slowFillSource)))
		data := must(pgas.AllocZeroed[int64](ctx, pe, n))
		check(pgas.Launch(pe, mod, "slow_fill", device.D1(1), device.D1(256), 0, data, n, val(me, 7), uint64(50*time.Millisecond)))
		out := make([]int64, n)
		check(st.WaitLaunched())
		check(pgas.CopyOutOnStream(st, out, data))
		if err := st.Sync(ctx); err != nil {
			return fmt.Errorf("after WaitLaunched: Sync: %w", err)
		}
		if want := seq(n, func(i int) int64 { return val(me, 7) + int64(i) }); !slices.Equal(out, want) {
			return fmt.Errorf("after WaitLaunched: copied out %v…, want the launched kernel's %v…", out[:4], want[:4])
		}
		return g.Stream().Sync()
	})
}
