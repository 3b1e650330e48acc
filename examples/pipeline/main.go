// Command pipeline is an on-stream pipeline in NVSHMEM's style: a running
// sum flows along the PEs chunk by chunk, every step queued on each PE's
// pgas.Stream — wait for the chunk from the PE before, a kernel adds this
// PE's part to it, put it with a signal to the PE after — so that the host
// only enqueues, and syncs once, and PE i works on chunk c+1 while PE i+1
// works on chunk c. The last PE checks the sums. The kernel (pipeline.cu)
// is CUDA C compiled when the program runs (kernels.Compile).
//
//	SYMCHAN_CUDA_SHARE_GPUS=1 pipeline -backend cuda -pes 4   # built with -tags cuda
//	symrun -n 2 pipeline -backend nvshmem
//
// It needs a GPU backend: on the host backend it says so and exits 1.
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
	_ "github.com/symchan/symchan/pgas/cuda"
	_ "github.com/symchan/symchan/pgas/nvshmem"
)

//go:embed pipeline.cu
var source string

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command with its arguments and output streams; it returns
// the exit status: 2 for bad flags, 1 for a failed run.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pipeline", flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "", "pgas backend: cuda, or nvshmem (under symrun); default: $SYMCHAN_BACKEND, else host (which has no kernels)")
	pes := fs.Int("pes", 0, "number of PEs (0: the backend's default)")
	words := fs.Int("n", 1<<22, "64-bit words in the vector")
	chunks := fs.Int("chunks", 16, "chunks the vector flows in")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *words < 1 || *chunks < 1 || *chunks > *words || *pes < 0 {
		fmt.Fprintln(stderr, "pipeline: want 1 ≤ -chunks ≤ -n and -pes not negative")
		return 2
	}
	var compiled struct {
		once sync.Once
		prog kernels.Program
		err  error
	}
	err := pgas.Run(context.Background(), pgas.Config{Backend: *backend, PEs: *pes, HeapSize: int64(*words)*24 + 64<<20}, func(ctx context.Context, pe *pgas.PE) error {
		g, err := pe.GPU()
		if errors.Is(err, pgas.ErrNotGPU) {
			return fmt.Errorf("pipeline runs kernels: it needs a GPU backend (-backend cuda, or nvshmem under symrun): %w", err)
		}
		if err != nil {
			return err
		}
		compiled.once.Do(func() { compiled.prog, compiled.err = kernels.Compile("pipeline.cu", source, kernels.CompileOptions{}) })
		if compiled.err != nil {
			return compiled.err
		}
		mod, err := g.Load(compiled.prog)
		if err != nil {
			return err
		}
		took, err := flow(ctx, pe, mod, *words, *chunks)
		if err != nil || pe.ID() != pe.NumPEs()-1 {
			return err
		}
		fmt.Fprintf(stdout, "pipeline: %d PEs on the %s backend, %d words in %d chunks: sums as expected; %.3f ms (%.1f GB/s through each PE)\n",
			pe.NumPEs(), pe.World().Config().Backend, *words, *chunks, float64(took.Microseconds())/1e3, float64(*words)*8/took.Seconds()/1e9)
		return nil
	})
	if err != nil {
		fmt.Fprintln(stderr, "pipeline:", err)
		return 1
	}
	return 0
}

// flow runs the pipeline on pe: each chunk waits for the PE before, the
// kernel adds this PE's part, and the sum goes on to the PE after with a
// signal per chunk. It returns the time from the first enqueue to the
// last PE's sync; the last PE checks every sum.
func flow(ctx context.Context, pe *pgas.PE, mod *device.Module, words, chunks int) (time.Duration, error) {
	me, n := pe.ID(), pe.NumPEs()
	mine, err := pgas.Alloc[uint64](ctx, pe, words)
	if err != nil {
		return 0, err
	}
	in, err := pgas.Alloc[uint64](ctx, pe, words)
	if err != nil {
		return 0, err
	}
	out, err := pgas.Alloc[uint64](ctx, pe, words)
	if err != nil {
		return 0, err
	}
	sig, err := pgas.AllocZeroed[uint64](ctx, pe, chunks)
	if err != nil {
		return 0, err
	}
	part := make([]uint64, words)
	for j := range part {
		part[j] = uint64(me+1) * uint64(j+1)
	}
	if err := pgas.Put(pe, mine, part, me); err != nil {
		return 0, err
	}
	st, err := pgas.NewStream(pe)
	if err != nil {
		return 0, err
	}
	if err := pe.Barrier(ctx); err != nil {
		return 0, err
	}
	t0 := time.Now()
	for c := range chunks {
		lo, hi := c*words/chunks, (c+1)*words/chunks
		from := any(device.Ptr(0)) // the first PE adds to nothing
		if me > 0 {
			if err := pgas.SignalWaitUntilOnStream(st, sig.Index(c), pgas.CmpGE, 1); err != nil {
				return 0, err
			}
			from = in.Slice(lo, hi)
		}
		if err := pgas.LaunchOnStream(st, mod, "add", device.D1(min((hi-lo+255)/256, 1024)), device.D1(256), 0, out.Slice(lo, hi), from, mine.Slice(lo, hi), hi-lo); err != nil {
			return 0, err
		}
		if me < n-1 {
			if err := pgas.PutSignalOnStream(st, in.Slice(lo, hi), out.Slice(lo, hi), sig.Index(c), 1, pgas.SignalSet, me+1); err != nil {
				return 0, err
			}
		}
	}
	if err := st.Sync(ctx); err != nil {
		return 0, err
	}
	took := time.Since(t0)
	if err := st.Close(ctx); err != nil {
		return 0, err
	}
	if me < n-1 {
		return took, pe.Barrier(ctx)
	}
	if err := pgas.Get(pe, part, out, me); err != nil {
		return 0, err
	}
	for j, v := range part {
		if want := uint64(j+1) * uint64(n*(n+1)/2); v != want {
			return 0, fmt.Errorf("word %d: %d after %d PEs, want %d", j, v, n, want)
		}
	}
	return took, pe.Barrier(ctx)
}
