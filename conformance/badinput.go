package conformance

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// Bad input returns a clear error and writes nothing.
func (ck *kit) testBadInput(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		data := must(pgas.AllocZeroed[uint64](ctx, pe, 8))
		sig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		if pe.ID() == 1 {
			return pe.Barrier(ctx)
		}
		nine := make([]uint64, 9)
		for i := range nine {
			nine[i] = 0xdead
		}
		cases := []struct {
			name string
			err  error
			want error
		}{
			{"put to PE -1", pgas.Put(pe, data, nine[:1], -1), pgas.ErrBadPE},
			{"put to PE 2", pgas.Put(pe, data, nine[:1], 2), pgas.ErrBadPE},
			{"get from PE 7", pgas.Get(pe, nine[:1], data, 7), pgas.ErrBadPE},
			{"atomic on PE 2", pgas.AtomicInc(pe, data, 2), pgas.ErrBadPE},
			{"signal to PE 2", pgas.SignalOp(pe, sig, 1, pgas.SignalSet, 2), pgas.ErrBadPE},
			{"put past the end", pgas.Put(pe, data, nine, 1), pgas.ErrBadSize},
			{"put past a slice", pgas.Put(pe, data.Slice(6, 8), nine[:3], 1), pgas.ErrBadSize},
			{"nbi put past the end", pgas.PutNBI(pe, data, nine, 1), pgas.ErrBadSize},
			{"get past the end", pgas.Get(pe, nine, data, 1), pgas.ErrBadSize},
			{"put-signal past the end", pgas.PutSignal(pe, data, nine, sig, 1, pgas.SignalSet, 1), pgas.ErrBadSize},
			{"signal inside the data", pgas.PutSignal(pe, data, nine[:8], data.Index(3), 1, pgas.SignalSet, 1), pgas.ErrBadArg},
			{"signal on the data's first word", pgas.PutSignal(pe, data.Slice(2, 8), nine[:1], data.Index(2), 1, pgas.SignalSet, 1), pgas.ErrBadArg},
			{"bad signal op", pgas.PutSignal(pe, data, nine[:1], sig, 1, pgas.SigOp(0), 1), pgas.ErrBadArg},
			{"zero signal Sym", pgas.PutSignal(pe, data, nine[:1], pgas.Sym[uint64]{}, 1, pgas.SignalSet, 1), pgas.ErrBadSym},
			{"atomic on an empty Sym", pgas.AtomicInc(pe, data.Slice(0, 0), 1), pgas.ErrBadSize},
		}
		for _, c := range cases {
			if !errors.Is(c.err, c.want) {
				return fmt.Errorf("%s: got %v, want %v", c.name, c.err, c.want)
			}
		}
		check(pe.Barrier(ctx))
		got := make([]uint64, 8)
		check(pgas.Get(pe, got, data, 1))
		for i, v := range got {
			if v != 0 {
				return fmt.Errorf("a rejected call wrote word %d on PE 1: %#x", i, v)
			}
		}
		if v := must(pgas.G(pe, sig, 1)); v != 0 {
			return fmt.Errorf("a rejected call wrote the signal: %d", v)
		}
		return nil
	})
}

func (ck *kit) testRunBadConfig(t *testing.T) {
	cases := []pgas.Config{
		{Backend: "no-such-backend", PEs: 2},
		{Backend: ck.backend(), PEs: -1},
		{Backend: ck.backend(), PEs: 2, HeapSize: -5},
		{Backend: ck.backend(), PEs: 2, HeapSize: 100},
	}
	for _, c := range cases {
		err := pgas.Run(context.Background(), c, func(context.Context, *pgas.PE) error {
			t.Errorf("config %+v: the PE function ran", c)
			return nil
		})
		if err == nil {
			t.Errorf("config %+v: no error", c)
		}
	}
}

func (ck *kit) testRunEnvironment(t *testing.T) {
	n := ck.perProcess(min(3, ck.maxPEs()))
	t.Setenv(pgas.EnvPEs, strconv.Itoa(n))
	t.Setenv(pgas.EnvSymmetricSize, "1M")
	t.Setenv(pgas.EnvBackend, ck.backend())
	err := pgas.Run(context.Background(), pgas.Config{}, func(ctx context.Context, pe *pgas.PE) error {
		if pe.NumPEs() != n || pe.World().Config().HeapSize != 1<<20 {
			return fmt.Errorf("env not applied: %d PEs, config %+v", pe.NumPEs(), pe.World().Config())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][2]string{{pgas.EnvPEs, "zero"}, {pgas.EnvPEs, "-2"}, {pgas.EnvSymmetricSize, "12X"}, {pgas.EnvSymmetricSize, "-1G"}} {
		t.Setenv(bad[0], bad[1])
		if err := pgas.Run(context.Background(), pgas.Config{}, func(context.Context, *pgas.PE) error { return nil }); err == nil {
			t.Errorf("%s=%s accepted", bad[0], bad[1])
		}
		t.Setenv(pgas.EnvPEs, strconv.Itoa(n))
		t.Setenv(pgas.EnvSymmetricSize, "1M")
	}
}
