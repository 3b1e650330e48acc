package pgas_test

import (
	"context"
	"fmt"

	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/signals"
)

// Each PE puts a message into its right neighbour's buffer with a signal,
// waits for its own signal, then reads what its left neighbour sent.
func ExampleRun() {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 4, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		var data pgas.Sym[float64]
		var sig pgas.Sym[uint64]
		if err := pgas.AllocAll(ctx, pe, pgas.ArrayOf(&data, 1024), pgas.ArrayOf(&sig, 1)); err != nil {
			return err
		}
		right := (pe.ID() + 1) % pe.NumPEs()
		msg := make([]float64, 1024)
		msg[0] = float64(pe.ID())
		if err := pgas.PutSignal(pe, data, msg, sig, 1, pgas.SignalSet, right); err != nil {
			return err
		}
		if err := signals.WaitUntil(ctx, pe, sig, pgas.CmpEQ, 1); err != nil {
			return err
		}
		got, err := pgas.G(pe, data, pe.ID())
		fmt.Printf("PE %d got %v from its left neighbour\n", pe.ID(), got)
		return err
	})
	if err != nil {
		fmt.Println(err)
	}
	// Unordered output:
	// PE 0 got 3 from its left neighbour
	// PE 1 got 0 from its left neighbour
	// PE 2 got 1 from its left neighbour
	// PE 3 got 2 from its left neighbour
}

// A reduction over all PEs, as Jacobi uses for its residual norm.
func ExampleReduceAll() {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 3, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		x, err := pgas.AllocZeroed[float64](ctx, pe, 1)
		if err != nil {
			return err
		}
		if err := pgas.P(pe, x, float64(pe.ID()+1), pe.ID()); err != nil {
			return err
		}
		if err := pgas.ReduceAll(ctx, pe.TeamWorld(), pgas.ReduceSum, x, x, 1); err != nil {
			return err
		}
		if pe.ID() == 0 {
			v, err := pgas.G(pe, x, 0)
			fmt.Println("sum:", v)
			return err
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: sum: 6
}

// A ring on streams: each PE enqueues a put-with-signal to its right
// neighbour and a wait for its own signal, then syncs once. On the GPU
// backends the routines run on a CUDA stream, in order with the kernels
// queued there (pgas.LaunchOnStream); here on a goroutine of each PE.
func ExampleNewStream() {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 3, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		st, err := pgas.NewStream(pe)
		if err != nil {
			return err
		}
		src, err := pgas.AllocZeroed[int64](ctx, pe, 1)
		if err != nil {
			return err
		}
		dst, err := pgas.AllocZeroed[int64](ctx, pe, 1)
		if err != nil {
			return err
		}
		sig, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		if err := pgas.P(pe, src, int64(10*pe.ID()), pe.ID()); err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		right := (pe.ID() + 1) % pe.NumPEs()
		if err := pgas.PutSignalOnStream(st, dst, src, sig, 1, pgas.SignalSet, right); err != nil {
			return err
		}
		if err := pgas.SignalWaitUntilOnStream(st, sig, pgas.CmpEQ, 1); err != nil {
			return err
		}
		if err := st.Sync(ctx); err != nil {
			return err
		}
		got, err := pgas.G(pe, dst, pe.ID())
		fmt.Printf("PE %d got %d\n", pe.ID(), got)
		if err != nil {
			return err
		}
		return st.Close(ctx)
	})
	if err != nil {
		fmt.Println(err)
	}
	// Unordered output:
	// PE 0 got 20
	// PE 1 got 0
	// PE 2 got 10
}

// A sum over the world on a stream: each PE queues the reduction and syncs
// once. On the GPU backends it runs on the device (symchan.cuh's team
// reduction, in one sequence with kernels' team collectives); here the
// stream runs ReduceAll.
func ExampleReduceAllOnStream() {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 4, HeapSize: 1 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		st, err := pgas.NewStream(pe)
		if err != nil {
			return err
		}
		x, err := pgas.AllocZeroed[float64](ctx, pe, 2)
		if err != nil {
			return err
		}
		if err := pgas.Put(pe, x, []float64{float64(pe.ID()), 1}, pe.ID()); err != nil {
			return err
		}
		if err := pgas.ReduceAllOnStream(st, pe.TeamWorld(), pgas.ReduceSum, x, x, 2); err != nil {
			return err
		}
		if err := st.Sync(ctx); err != nil {
			return err
		}
		got := make([]float64, 2)
		if err := pgas.Get(pe, got, x, pe.ID()); err != nil {
			return err
		}
		if pe.ID() == 0 {
			fmt.Println(got)
		}
		return st.Close(ctx)
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: [6 4]
}
