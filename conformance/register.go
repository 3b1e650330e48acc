package conformance

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

// registerSource writes, from a kernel, word 9 of PE peer's copy of a
// registered buffer with the device API's p: symmetric pointers reach
// registered buffers as they reach allocations.
const registerSource = `#include "symchan.cuh"
extern "C" __global__ void reg_p(const symchan_heap *h, unsigned long long *buf, int peer) {
	symchan_uint64_p(h, buf + 9, 77 + symchan_my_pe(h), peer);
	symchan_quiet();
}
`

// Foreign buffers made symmetric (nvshmemx_buffer_register_symmetric):
// each PE registers a device allocation of its own made with CUDA's
// virtual memory management; a put-with-signal from Go, a get and a
// kernel's p reach the other PE's buffer, whose owner then reads the
// bytes at its own address. Free refuses the registered Sym, a buffer
// from cuMemAlloc and calls that differ between PEs are refused on every
// PE, and after UnregisterSymmetric the Sym is dead. Where a backend does
// not register (the host backend, whose partitions are host memory),
// every PE gets errors.ErrUnsupported. AllocRegistered does the
// allocation and registration in one call, and its release undoes both.
func (ck *kit) testRegisterSymmetric(t *testing.T) {
	const n = 1024
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		if !pgas.CanRegister(pe) {
			_, err := pgas.RegisterSymmetric[uint64](ctx, pe, 1, n)
			if !errors.Is(err, errors.ErrUnsupported) {
				return fmt.Errorf("RegisterSymmetric on the %s backend: %v, want errors.ErrUnsupported", ck.backend(), err)
			}
			if _, _, err := pgas.AllocRegistered[uint64](ctx, pe, n); !errors.Is(err, errors.ErrUnsupported) {
				return fmt.Errorf("AllocRegistered on the %s backend: %v, want errors.ErrUnsupported", ck.backend(), err)
			}
			return nil
		}
		g := must(pe.GPU())
		me, peer := pe.ID(), 1-pe.ID()
		dc := g.Context()
		win, err := dc.AllocVMM(n * 8)
		if err != nil {
			return err
		}
		defer dc.FreeVMM(win)
		buf := win.Base()
		pattern := make([]byte, n*8)
		for i := range n {
			binary.LittleEndian.PutUint64(pattern[8*i:], uint64(me*100000+i))
		}
		check(dc.CopyIn(buf, pattern))
		s, err := pgas.RegisterSymmetric[uint64](ctx, pe, buf, n)
		if err != nil {
			return err
		}
		sig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		check(pe.Barrier(ctx))
		// PE 0 puts 8 words into PE 1's buffer with a signal; PE 1 gets 4
		// of PE 0's.
		if me == 0 {
			check(pgas.PutSignal(pe, s.Slice(0, 8), seq(8, func(i int) uint64 { return uint64(7000 + i) }), sig, 1, pgas.SignalSet, peer))
		} else {
			got := make([]uint64, 4)
			check(pgas.Get(pe, got, s.Slice(100, 104), peer))
			if want := seq(4, func(i int) uint64 { return uint64(peer*100000 + 100 + i) }); fmt.Sprint(got) != fmt.Sprint(want) {
				return fmt.Errorf("Get of PE 0's registered buffer: %v, want %v", got, want)
			}
			if _, err := pgas.Wait(ctx, pe, pgas.WaitAll, pgas.WaitSet[uint64]{Ivars: sig, Cmp: pgas.CmpEQ, Value: 1, From: []int{0}}); err != nil {
				return err
			}
		}
		// A kernel's p through the device API, each PE on the other.
		prog := must(kernels.Compile("register.cu", registerSource, kernels.CompileOptions{CacheDir: t.TempDir()}))
		mod := must(g.Load(prog))
		check(pgas.Launch(pe, mod, "reg_p", device.D1(1), device.D1(1), 0, g.HeapDescriptor(), s, peer))
		check(g.Stream().Sync())
		check(pe.Barrier(ctx))
		// The owner reads its buffer at its own address.
		mine := make([]byte, n*8)
		check(dc.CopyOut(mine, buf))
		word := func(i int) uint64 { return binary.LittleEndian.Uint64(mine[8*i:]) }
		for i := range n {
			want := uint64(me*100000 + i)
			switch {
			case me == 1 && i < 8:
				want = uint64(7000 + i)
			case i == 9:
				want = uint64(77 + peer)
			}
			if word(i) != want {
				return fmt.Errorf("PE %d: word %d of its registered buffer, read at its own address, is %d, want %d", me, i, word(i), want)
			}
		}
		if err := pgas.Free(ctx, pe, s); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("Free of a registered Sym: %v, want ErrBadArg", err)
		}
		if err := pgas.UnregisterSymmetric(ctx, pe, sig); !errors.Is(err, pgas.ErrBadArg) {
			return fmt.Errorf("UnregisterSymmetric of an allocation: %v, want ErrBadArg", err)
		}
		// Calls that differ (the count) fail on every PE, and leave
		// nothing registered.
		if _, err := pgas.RegisterSymmetric[uint64](ctx, pe, buf, n-me); !errors.Is(err, pgas.ErrCollectiveMismatch) {
			return fmt.Errorf("RegisterSymmetric of %d elements on PE 0 and %d on PE 1: %v, want ErrCollectiveMismatch", n, n-1, err)
		}
		// Memory from cuMemAlloc cannot be mapped: every PE's call fails.
		plainBuf := must(dc.Alloc(n * 8))
		defer dc.Free(plainBuf)
		if _, err := pgas.RegisterSymmetric[uint64](ctx, pe, plainBuf, n); err == nil {
			return errors.New("RegisterSymmetric of memory from cuMemAlloc succeeded; want an error")
		}
		check(pgas.UnregisterSymmetric(ctx, pe, s))
		if err := pgas.Put(pe, s.Slice(0, 1), []uint64{1}, peer); !errors.Is(err, pgas.ErrBadSym) {
			return fmt.Errorf("Put to an unregistered Sym: %v, want ErrBadSym", err)
		}
		// The span is free again: the same buffer registers anew.
		again := must(pgas.RegisterSymmetric[uint64](ctx, pe, buf, n))
		check(pgas.UnregisterSymmetric(ctx, pe, again))
		// In one call: allocated, registered, reached by the other PE,
		// released; a count that differs fails on every PE.
		own, release, err := pgas.AllocRegistered[uint64](ctx, pe, n)
		if err != nil {
			return fmt.Errorf("AllocRegistered: %w", err)
		}
		check(pgas.Put(pe, own.Slice(3, 4), []uint64{uint64(500 + me)}, peer))
		check(pe.Barrier(ctx))
		if got := read(pe, own.Slice(3, 4)); got[0] != uint64(500+peer) {
			return fmt.Errorf("AllocRegistered buffer: word 3 is %d, want %d put by PE %d", got[0], 500+peer, peer)
		}
		check(pe.Barrier(ctx)) // both have read before either releases
		check(release(ctx))
		if _, _, err := pgas.AllocRegistered[uint64](ctx, pe, n-me); !errors.Is(err, pgas.ErrCollectiveMismatch) {
			return fmt.Errorf("AllocRegistered of %d elements on PE 0 and %d on PE 1: %v, want ErrCollectiveMismatch", n, n-1, err)
		}
		return pe.Barrier(ctx)
	})
}
