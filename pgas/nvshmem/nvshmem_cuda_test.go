//go:build cuda

package nvshmem_test

// These tests run as one process per PE under a launcher:
//
//	symrun -n 2 ./nvshmem.test -test.v
//
// Every process runs every test in the same order, each test one world;
// checks happen inside the PE function, which returns the error.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/pgas/bootstrap"
	"github.com/symchan/symchan/pgas/nvshmem"
	"github.com/symchan/symchan/signals"
)

func world(t *testing.T, fn func(ctx context.Context, pe *pgas.PE) error) {
	t.Helper()
	if _, err := bootstrap.FromEnv(); errors.Is(err, bootstrap.ErrNoLauncher) {
		t.Skip("run under symrun, mpirun or srun")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := pgas.Run(ctx, pgas.Config{Backend: "nvshmem", HeapSize: 64 << 20}, fn); err != nil {
		t.Fatal(err)
	}
}

func TestPutSignalRing(t *testing.T) {
	world(t, putSignalRing)
}

// Processes the test starts itself, with no launcher, form one nvshmem
// world from a unique id (bootstrap.NewUniqueID in this process, handed to
// the children in their environment; bootstrap.Join and Backend.Job in
// each), and pass a put-with-signal around their ring.
func TestUniqueIDWorld(t *testing.T) {
	const envUID, envRank, procs = "SYMCHAN_TEST_NVSHMEM_UID", "SYMCHAN_TEST_NVSHMEM_UID_RANK", 2
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if id := os.Getenv(envUID); id != "" { // a child
		rank, _ := strconv.Atoi(os.Getenv(envRank))
		job, err := bootstrap.Join(ctx, bootstrap.UniqueID(id), rank, procs)
		if err != nil {
			t.Fatal(err)
		}
		if err := pgas.Run(ctx, pgas.Config{Driver: nvshmem.Backend{Job: &job}, HeapSize: 64 << 20}, putSignalRing); err != nil {
			t.Fatal(err)
		}
		return
	}
	if _, err := bootstrap.FromEnv(); !errors.Is(err, bootstrap.ErrNoLauncher) {
		t.Skip("starts its own processes: run without a launcher")
	}
	id, err := bootstrap.NewUniqueID(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for r := range procs {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestUniqueIDWorld$", "-test.v")
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		cmd.Env = append(os.Environ(), envUID+"="+string(id), envRank+"="+strconv.Itoa(r))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for r, cmd := range cmds {
		if err := cmd.Wait(); err != nil || !strings.Contains(outs[r].String(), "--- PASS: TestUniqueIDWorld") {
			t.Errorf("process %d: %v\n%s", r, err, outs[r])
		}
	}
}

// putSignalRing puts a message with a signal to the right neighbour and
// checks the one from the left.
func putSignalRing(ctx context.Context, pe *pgas.PE) error {
	n, me := pe.NumPEs(), pe.ID()
	buf, err := pgas.AllocZeroed[int64](ctx, pe, 4)
	if err != nil {
		return err
	}
	sig, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
	if err != nil {
		return err
	}
	msg := []int64{int64(me), int64(me) * 10, -1, 42}
	if err := pgas.PutSignal(pe, buf, msg, sig, 7, pgas.SignalSet, (me+1)%n); err != nil {
		return err
	}
	if err := signals.WaitUntil(ctx, pe, sig, pgas.CmpEQ, 7); err != nil {
		return err
	}
	got := make([]int64, 4)
	if err := pgas.Get(pe, got, buf, me); err != nil {
		return err
	}
	left := int64((me + n - 1) % n)
	if got[0] != left || got[1] != left*10 || got[2] != -1 || got[3] != 42 {
		return fmt.Errorf("PE %d got %v from its left neighbour %d", me, got, left)
	}
	return nil
}

func TestPutGetSizes(t *testing.T) {
	world(t, func(ctx context.Context, pe *pgas.PE) error {
		n, me := pe.NumPEs(), pe.ID()
		const max = 9 << 20 // beyond the staging buffer
		buf, err := pgas.AllocZeroed[byte](ctx, pe, max)
		if err != nil {
			return err
		}
		for _, size := range []int{1, 8, 4096, 1 << 20, max} {
			data := make([]byte, size)
			for i := range data {
				data[i] = byte(i*7 + size + me)
			}
			if err := pgas.Put(pe, buf.Slice(0, size), data, (me+1)%n); err != nil {
				return err
			}
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			got := make([]byte, size)
			if err := pgas.Get(pe, got, buf.Slice(0, size), me); err != nil {
				return err
			}
			left := (me + n - 1) % n
			for i := range got {
				if got[i] != byte(i*7+size+left) {
					return fmt.Errorf("size %d: byte %d is %d", size, i, got[i])
				}
			}
			// And read the right neighbour's copy remotely.
			if err := pgas.Get(pe, got, buf.Slice(0, size), (me+1)%n); err != nil {
				return err
			}
			if !bytes.Equal(got, data) {
				return fmt.Errorf("size %d: remote Get differs", size)
			}
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

func TestAtomicsCollectivesWaits(t *testing.T) {
	world(t, func(ctx context.Context, pe *pgas.PE) error {
		n, me := pe.NumPEs(), pe.ID()
		ctr, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		for range 10 {
			if _, err := pgas.AtomicFetchAdd(pe, ctr, 1, 0); err != nil {
				return err
			}
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if v, err := pgas.AtomicFetch(pe, ctr, 0); err != nil || v != uint64(10*n) {
			return fmt.Errorf("counter %d, %v; want %d", v, err, 10*n)
		}
		src, err := pgas.Alloc[int64](ctx, pe, 1)
		if err != nil {
			return err
		}
		dst, err := pgas.Alloc[int64](ctx, pe, 1)
		if err != nil {
			return err
		}
		if err := pgas.P(pe, src, int64(me+1), me); err != nil {
			return err
		}
		if err := pgas.ReduceAll(ctx, pe.TeamWorld(), pgas.ReduceSum, dst, src, 1); err != nil {
			return err
		}
		if v, err := pgas.G(pe, dst, me); err != nil || v != int64(n*(n+1)/2) {
			return fmt.Errorf("sum %d, %v", v, err)
		}
		words, err := pgas.AllocZeroed[uint64](ctx, pe, 64)
		if err != nil {
			return err
		}
		if err := pgas.SignalOp(pe, words.Index(me+3), 5, pgas.SignalAdd, (me+1)%n); err != nil {
			return err
		}
		idx := make([]int, 64)
		k, err := signals.WaitUntilSome(ctx, pe, words, idx, nil, pgas.CmpGE, 5)
		if err != nil || k != 1 || idx[0] != (me+n-1)%n+3 {
			return fmt.Errorf("wait_until_some: %d %v, %v", k, idx[:k], err)
		}
		return nil
	})
}

func TestChanPingPong(t *testing.T) {
	world(t, func(ctx context.Context, pe *pgas.PE) error {
		ch, err := actors.NewChan[uint64](ctx, pe)
		if err != nil {
			return err
		}
		me := pe.ID()
		if me > 1 {
			return nil
		}
		for i := range uint64(300) { // more than the slots: credits flow
			if me == 0 {
				if err := ch.Send(ctx, 1, i); err != nil {
					return err
				}
			}
			v, err := ch.Recv(ctx)
			if err != nil {
				return err
			}
			if v != i {
				return fmt.Errorf("PE %d: message %d is %d", me, i, v)
			}
			if me == 1 {
				if err := ch.Send(ctx, 0, v); err != nil {
					return err
				}
			}
		}
		return nil
	})
}
