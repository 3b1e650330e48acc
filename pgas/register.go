package pgas

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/internal/plain"
)

// RegisterSymmetric collectively makes an existing device allocation
// symmetric (nvshmemx_buffer_register_symmetric): every PE passes buf, the
// start of an allocation of its own GPU made with CUDA's virtual memory
// management (device.Context.AllocVMM, or cuMemCreate and cuMemMap by
// another library in the process), and the same n. It returns a Sym of n
// elements of T that every routine takes as it takes an allocation's:
// its bytes are buf's, mapped into each PE's partition past the heap at
// the same offset on every PE, so that other PEs and kernels
// (pgas.Launch, symchan.cuh's routines) reach them. buf stays the caller's:
// it must outlive the registration, and UnregisterSymmetric ends it (Free
// refuses a registered Sym).
//
// The GPU backends register (the nvshmem backend through NVSHMEM's own
// nvshmemx_buffer_register_symmetric, which maps the buffer into every
// process, so the buffer must be exportable as AllocVMM's is); the host
// backend, whose partitions are host memory, answers
// errors.ErrUnsupported. When an argument is bad, a PE's buffer cannot be
// mapped, or the PEs' calls differ, every PE gets an error and nothing
// stays registered.
func RegisterSymmetric[T any](ctx context.Context, p *PE, buf device.Ptr, n int) (Sym[T], error) {
	if err := p.check(); err != nil {
		return Sym[T]{}, err
	}
	typ := reflect.TypeFor[T]()
	esize := int64(typ.Size())
	rt := p.w.rt
	var bad error
	var lo, hi, align int64
	switch {
	case rt == nil:
		bad = fmt.Errorf("pgas: RegisterSymmetric on the %s backend: %w", p.w.cfg.Backend, errors.ErrUnsupported)
	case !plain.Is(typ):
		bad = fmt.Errorf("%w: element type %v holds pointers or is not fixed-size", ErrBadArg, typ)
	case buf == 0:
		bad = fmt.Errorf("%w: RegisterSymmetric of a nil buffer", ErrBadArg)
	case n <= 0 || esize == 0 || int64(n) > math.MaxInt64/esize:
		bad = fmt.Errorf("%w: RegisterSymmetric of %d elements of %d bytes", ErrBadSize, n, esize)
	default:
		// Before any backend sees it: NVSHMEM's own check of a buffer
		// that is not VMM memory never returns.
		if g, err := p.GPU(); err != nil {
			bad = err
		} else if err := g.Context().CheckVMM(buf); err != nil {
			bad = fmt.Errorf("%w: RegisterSymmetric: %w", ErrBadArg, err)
		}
		lo, hi, align = rt.RegisterSpan()
	}
	nbytes := int64(n) * esize
	mapped := (nbytes + align - 1) &^ (align - 1) // align: a power of two (a granularity)
	p.mu.Lock()
	defer p.mu.Unlock()
	off := int64(-1)
	if bad == nil {
		if p.regs.size == 0 {
			p.regs.init(lo, hi)
		}
		if off, bad = p.regs.alloc(mapped, align); bad != nil {
			bad = fmt.Errorf("%w: RegisterSymmetric of %d bytes: the %d bytes a PE's partition has for registered buffers are taken (the cuda backend's Backend.RegisterBytes sets them)",
				ErrHeapExhausted, nbytes, hi-lo)
		}
	}
	release := func() {
		if off >= 0 {
			p.regs.free(off, mapped)
		}
	}
	// The same call on every PE, then the mapping on each, then an
	// agreement that each mapped (a PE whose buffer was refused must not
	// leave the others with a half-registered Sym).
	if err := p.agree(ctx, [4]uint64{opRegister, uint64(n), uint64(esize), 0}); err != nil || bad != nil {
		release()
		return Sym[T]{}, firstErr(err, bad)
	}
	at, mapErr := rt.Register(p.id, off, uintptr(buf), mapped)
	if mapErr == nil && at != off {
		// The backend placed it (NVSHMEM): the span's bytes move there.
		p.regs.free(off, mapped)
		if off = at; !p.regs.take(at, mapped) {
			mapErr = errors.Join(fmt.Errorf("pgas: RegisterSymmetric: the backend mapped the buffer at offset %d, outside its span [%d, %d) or over another buffer", at, lo, hi),
				rt.Unregister(p.id, at, mapped))
			off = -1
		}
	}
	ok := uint64(1)
	if mapErr != nil {
		ok, at = 0, 0
	}
	// Every PE's mapping, at one offset on all.
	if err := p.agree(ctx, [4]uint64{opRegistered, ok, uint64(at), 0}); err != nil || mapErr != nil {
		if mapErr == nil {
			err = errors.Join(err, rt.Unregister(p.id, off, mapped))
		}
		release()
		return Sym[T]{}, firstErr(mapErr, err)
	}
	rec := p.track(off, mapped, n)
	rec.registered = true
	return Sym[T]{rec: rec, off: off, n: n}, nil
}

// UnregisterSymmetric collectively ends s's registration
// (nvshmemx_buffer_unregister_symmetric): s must be a whole Sym from
// RegisterSymmetric, the same on every PE. Using s afterwards is an error;
// the buffers stay their owners'.
func UnregisterSymmetric[T any](ctx context.Context, p *PE, s Sym[T]) error {
	return p.retireWhole(ctx, "UnregisterSymmetric", s.rec, s.off, s.n, opUnregister, func() error {
		return p.w.rt.Unregister(p.id, s.rec.off, s.rec.size) // a registered rec: rt is not nil
	})
}

// CanRegister reports whether p's backend registers device memory
// (RegisterSymmetric): the GPU backends do.
func CanRegister(p *PE) bool { return p != nil && p.w.rt != nil }

// AllocRegistered is AllocVMM and RegisterSymmetric in one collective
// call: n elements of T of device memory of p's GPU, allocated with
// CUDA's virtual memory management outside the heap and registered, as a
// Sym. release, collective too, unregisters it and then frees the memory;
// a release that fails to unregister leaves the memory allocated (the
// other PEs may still map it). Errors are RegisterSymmetric's, the same
// on every PE: where one PE cannot allocate, every PE's call fails and
// nothing stays allocated. The host backend answers errors.ErrUnsupported.
func AllocRegistered[T any](ctx context.Context, p *PE, n int) (s Sym[T], release func(context.Context) error, err error) {
	esize := sizeOf[T]()
	if !CanRegister(p) || n <= 0 || esize == 0 || int64(n) > math.MaxInt64/esize {
		_, err := RegisterSymmetric[T](ctx, p, 0, n) // the same refusal on every PE
		return Sym[T]{}, nil, err
	}
	g, err := p.GPU()
	if err != nil {
		return Sym[T]{}, nil, err
	}
	dc := g.Context()
	var buf device.Ptr
	w, allocErr := dc.AllocVMM(int64(n) * esize)
	if allocErr == nil {
		buf = w.Base()
	}
	// A PE without memory registers a nil buffer: every PE's call fails.
	s, err = RegisterSymmetric[T](ctx, p, buf, n)
	if err != nil {
		if allocErr == nil {
			allocErr = dc.FreeVMM(w)
		}
		return Sym[T]{}, nil, errors.Join(err, allocErr)
	}
	release = func(ctx context.Context) error {
		if err := UnregisterSymmetric(ctx, p, s); err != nil {
			return err
		}
		return dc.FreeVMM(w)
	}
	return s, release, nil
}
