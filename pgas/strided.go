package pgas

import (
	"errors"
	"fmt"
	"math"

	"github.com/symchan/symchan/pgas/driver"
)

// Strided RMA (shmem_iput / shmem_iget). Strides count elements, as the
// spec's do; Go's form takes only strides ≥ 1 where C takes any ptrdiff_t:
// a Sym and a slice have no elements before their first, and a stride of
// 0 would make every element land on one (a put with no defined result).

// IPut copies n elements of src, taken at stride sst (src[0], src[sst], …),
// into dst on PE pe at stride tst (dst[0], dst[tst], …) (shmem_iput). It
// returns once src may be reused; delivery is complete at the latest after
// Quiet or a barrier.
func IPut[T any](p *PE, dst Sym[T], src []T, tst, sst, n, pe int) error {
	return iput(p, dst, src, tst, sst, n, pe, false)
}

// IPutNBI is IPut that may return before src may be reused: src must stay
// unchanged until p.Quiet returns (shmem_iput_nbi, an NVSHMEM and
// OpenSHMEM 1.6 routine).
func IPutNBI[T any](p *PE, dst Sym[T], src []T, tst, sst, n, pe int) error {
	return iput(p, dst, src, tst, sst, n, pe, true)
}

// IGet copies n elements of src on PE pe, taken at stride sst, into dst at
// stride tst (shmem_iget). It returns when dst holds them.
func IGet[T any](p *PE, dst []T, src Sym[T], tst, sst, n, pe int) error {
	return iget(p, dst, src, tst, sst, n, pe)
}

// IGetNBI is IGet that may return before dst is filled: dst is valid after
// p.Quiet returns (shmem_iget_nbi). The current backends fill dst before
// it returns.
func IGetNBI[T any](p *PE, dst []T, src Sym[T], tst, sst, n, pe int) error {
	return iget(p, dst, src, tst, sst, n, pe)
}

// checkStrided validates a strided transfer of n elements at strides tst
// (into a container of tlen elements) and sst (out of one of slen).
func checkStrided(op string, tst, sst, n, tlen, slen int) error {
	switch {
	case n < 0:
		return fmt.Errorf("%w: %s: nelems %d is negative", ErrBadSize, op, n)
	case tst < 1:
		return fmt.Errorf("%w: %s: destination stride %d (must be ≥ 1)", ErrBadArg, op, tst)
	case sst < 1:
		return fmt.Errorf("%w: %s: source stride %d (must be ≥ 1)", ErrBadArg, op, sst)
	}
	return firstErr(fitsStrided(op, "destination", n, tst, tlen), fitsStrided(op, "source", n, sst, slen))
}

// fitsStrided checks that n elements st apart fit in have elements of the
// side named.
func fitsStrided(op, side string, n, st, have int) error {
	if n <= 0 || covered(n, st) <= have {
		return nil
	}
	return fmt.Errorf("%w: %s of %d elements at %s stride %d needs %v elements, %s has %d", ErrBadSize, op, n, side, st, coveredText(n, st), side, have)
}

// covered is the number of elements n elements at stride st cover, or
// MaxInt when that overflows.
func covered(n, st int) int {
	if n-1 > (math.MaxInt-1)/st {
		return math.MaxInt
	}
	return (n-1)*st + 1
}

func coveredText(n, st int) any {
	if s := covered(n, st); s != math.MaxInt {
		return s
	}
	return "more than MaxInt"
}

func iput[T any](p *PE, dst Sym[T], src []T, tst, sst, n, pe int, nbi bool) error {
	if err := p.checkRMA(dst.rec, pe); err != nil {
		return err
	}
	if err := checkStrided("IPut", tst, sst, n, dst.n, len(src)); err != nil || n == 0 {
		return err
	}
	if tst == 1 {
		return putAt(p, dst, gather(src, sst, n), pe, nbi)
	}
	if err := dst.rec.hold(); err != nil {
		return err
	}
	defer dst.rec.release()
	esz := sizeOf[T]()
	packed := asBytes(gather(src, sst, n))
	if st, ok := p.w.tr.(driver.StridedTransport); ok {
		if err := st.PutStrided(p.id, pe, dst.off, int64(tst)*esz, esz, n, packed, nbi); !errors.Is(err, errors.ErrUnsupported) {
			return err
		}
	}
	for i := range n {
		b := packed[int64(i)*esz : int64(i+1)*esz]
		if err := p.w.tr.Put(p.id, pe, dst.off+int64(i*tst)*esz, b); err != nil {
			return err
		}
	}
	return nil
}

// putAt is Put or PutNBI of contiguous src.
func putAt[T any](p *PE, dst Sym[T], src []T, pe int, nbi bool) error {
	if nbi {
		return PutNBI(p, dst, src, pe)
	}
	return Put(p, dst, src, pe)
}

// gather returns src[0], src[st], … (n of them): src itself when st is 1.
func gather[T any](src []T, st, n int) []T {
	if st == 1 {
		return src[:n]
	}
	out := make([]T, n)
	for i := range out {
		out[i] = src[i*st]
	}
	return out
}

func iget[T any](p *PE, dst []T, src Sym[T], tst, sst, n, pe int) error {
	if err := p.checkRMA(src.rec, pe); err != nil {
		return err
	}
	if err := checkStrided("IGet", tst, sst, n, len(dst), src.n); err != nil || n == 0 {
		return err
	}
	packed := dst[:n]
	if tst != 1 {
		packed = make([]T, n)
	}
	if sst == 1 {
		if err := Get(p, packed, src, pe); err != nil {
			return err
		}
	} else if err := igetPacked(p, packed, src, sst, pe); err != nil {
		return err
	}
	if tst != 1 {
		for i, v := range packed {
			dst[i*tst] = v
		}
	}
	return nil
}

// igetPacked reads len(packed) elements of src at stride sst into packed.
func igetPacked[T any](p *PE, packed []T, src Sym[T], sst, pe int) error {
	if err := src.rec.hold(); err != nil {
		return err
	}
	defer src.rec.release()
	esz := sizeOf[T]()
	b := asBytes(packed)
	if st, ok := p.w.tr.(driver.StridedTransport); ok {
		if err := st.GetStrided(p.id, pe, src.off, int64(sst)*esz, esz, len(packed), b); !errors.Is(err, errors.ErrUnsupported) {
			return err
		}
	}
	for i := range packed {
		if err := p.w.tr.Get(p.id, pe, src.off+int64(i*sst)*esz, b[int64(i)*esz:int64(i+1)*esz]); err != nil {
			return err
		}
	}
	return nil
}
