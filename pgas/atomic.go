package pgas

import (
	"fmt"
	"unsafe"

	"github.com/symchan/symchan/pgas/driver"
)

// Word is a type atomics and point-to-point waits operate on: the spec's
// standard AMO types of 32 and 64 bits.
type Word interface {
	~int32 | ~uint32 | ~int64 | ~uint64
}

// Extended is a type AtomicFetch, AtomicSet and AtomicSwap (and their NBI
// forms) operate on: the standard AMO types of Word and the spec's extended
// AMO types float and double (float32, float64). The spec has no
// compare-swap or arithmetic on floating-point words, nor has symchan.
type Extended interface {
	Word | ~float32 | ~float64
}

// extendedOp performs op, one that moves bits without interpreting them
// (fetch, set, swap), on a word of type T.
func extendedOp[T Extended](p *PE, s Sym[T], pe int, op driver.AtomicOp, operand T) (T, error) {
	k := driver.KindUint64
	if sizeOf[T]() == 4 {
		k = driver.KindUint32
	}
	old, err := atomicAt(p, s.rec, s.off, s.n, pe, k, op, toBits(operand), 0)
	return fromBits[T](old), err
}

// atomicAt checks and runs one atomic on the word of kind k at off, the
// first element of a Sym of n elements, on PE pe.
func atomicAt(p *PE, r *allocRec, off int64, n, pe int, k driver.Kind, op driver.AtomicOp, operand, cond uint64) (uint64, error) {
	if err := p.checkRMA(r, pe); err != nil {
		return 0, err
	}
	if n < 1 {
		return 0, fmt.Errorf("%w: atomic on an empty Sym", ErrBadSize)
	}
	if err := r.hold(); err != nil {
		return 0, err
	}
	defer r.release()
	return p.w.tr.Atomic(p.id, pe, off, k, op, operand, cond)
}

// kindOf is the word kind of T.
func kindOf[T Word]() driver.Kind {
	var z T
	signed := z-1 < 0
	switch {
	case unsafe.Sizeof(z) == 4 && signed:
		return driver.KindInt32
	case unsafe.Sizeof(z) == 4:
		return driver.KindUint32
	case signed:
		return driver.KindInt64
	}
	return driver.KindUint64
}

// bitsOf carries v's bits in a uint64 (truncated back by Transports).
func bitsOf[T Word](v T) uint64 { return uint64(v) }

func atomicOp[T Word](p *PE, s Sym[T], pe int, op driver.AtomicOp, operand, cond T) (T, error) {
	old, err := atomicAt(p, s.rec, s.off, s.n, pe, kindOf[T](), op, bitsOf(operand), bitsOf(cond))
	return T(old), err
}

// AtomicFetch atomically loads s's first element on PE pe.
func AtomicFetch[T Extended](p *PE, s Sym[T], pe int) (T, error) {
	return extendedOp(p, s, pe, driver.OpFetch, 0)
}

// AtomicSet atomically stores v.
func AtomicSet[T Extended](p *PE, s Sym[T], v T, pe int) error {
	_, err := extendedOp(p, s, pe, driver.OpSet, v)
	return err
}

// AtomicSwap atomically stores v and returns the previous value.
func AtomicSwap[T Extended](p *PE, s Sym[T], v T, pe int) (T, error) {
	return extendedOp(p, s, pe, driver.OpSwap, v)
}

// AtomicCompareSwap stores v if the word equals cond, and returns the
// previous value either way.
func AtomicCompareSwap[T Word](p *PE, s Sym[T], cond, v T, pe int) (T, error) {
	return atomicOp(p, s, pe, driver.OpCompareSwap, v, cond)
}

// AtomicAdd atomically adds v (wrapping).
func AtomicAdd[T Word](p *PE, s Sym[T], v T, pe int) error {
	_, err := atomicOp(p, s, pe, driver.OpFetchAdd, v, 0)
	return err
}

// AtomicFetchAdd atomically adds v and returns the previous value.
func AtomicFetchAdd[T Word](p *PE, s Sym[T], v T, pe int) (T, error) {
	return atomicOp(p, s, pe, driver.OpFetchAdd, v, 0)
}

// AtomicInc atomically adds 1.
func AtomicInc[T Word](p *PE, s Sym[T], pe int) error { return AtomicAdd(p, s, 1, pe) }

// AtomicFetchInc atomically adds 1 and returns the previous value.
func AtomicFetchInc[T Word](p *PE, s Sym[T], pe int) (T, error) {
	return AtomicFetchAdd(p, s, 1, pe)
}

// AtomicAnd atomically replaces the word w with w & v.
func AtomicAnd[T Word](p *PE, s Sym[T], v T, pe int) error {
	_, err := atomicOp(p, s, pe, driver.OpFetchAnd, v, 0)
	return err
}

// AtomicFetchAnd is AtomicAnd returning the previous value.
func AtomicFetchAnd[T Word](p *PE, s Sym[T], v T, pe int) (T, error) {
	return atomicOp(p, s, pe, driver.OpFetchAnd, v, 0)
}

// AtomicOr atomically replaces the word w with w | v.
func AtomicOr[T Word](p *PE, s Sym[T], v T, pe int) error {
	_, err := atomicOp(p, s, pe, driver.OpFetchOr, v, 0)
	return err
}

// AtomicFetchOr is AtomicOr returning the previous value.
func AtomicFetchOr[T Word](p *PE, s Sym[T], v T, pe int) (T, error) {
	return atomicOp(p, s, pe, driver.OpFetchOr, v, 0)
}

// AtomicXor atomically replaces the word w with w ^ v.
func AtomicXor[T Word](p *PE, s Sym[T], v T, pe int) error {
	_, err := atomicOp(p, s, pe, driver.OpFetchXor, v, 0)
	return err
}

// AtomicFetchXor is AtomicXor returning the previous value.
func AtomicFetchXor[T Word](p *PE, s Sym[T], v T, pe int) (T, error) {
	return atomicOp(p, s, pe, driver.OpFetchXor, v, 0)
}
