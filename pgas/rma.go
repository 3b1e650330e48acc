package pgas

import "fmt"

// checkRMA validates the common arguments of a one-sided operation.
func (p *PE) checkRMA(r *allocRec, pe int) error {
	if p.rmaOK(r, pe) {
		return nil
	}
	return p.rmaErr(r, pe)
}

// rmaOK reports whether checkRMA passes: the common case, inlined where a
// message's path checks (the reason is made only when there is one).
func (p *PE) rmaOK(r *allocRec, pe int) bool {
	return p != nil && uint(pe) < uint(p.w.n) && !p.w.closed.Load() && p.symOK(r)
}

// rmaErr says what is wrong with the arguments checkRMA refused.
func (p *PE) rmaErr(r *allocRec, pe int) error {
	if err := p.check(); err != nil {
		return err
	}
	if err := p.checkPE(pe); err != nil {
		return err
	}
	return p.checkSym(r)
}

func checkFits(op string, n, room int) error {
	if n > room {
		return fmt.Errorf("%w: %s of %d elements into/from a Sym of %d", ErrBadSize, op, n, room)
	}
	return nil
}

// Put copies src into dst's first len(src) elements on PE pe (shmem_put).
// It returns once src may be reused; delivery is complete at the latest
// after Quiet or a barrier.
func Put[T any](p *PE, dst Sym[T], src []T, pe int) error {
	return rma(p, opPut, dst, src, pe)
}

// PutNBI is Put that may return before src may be reused: src must stay
// unchanged until p.Quiet returns (shmem_put_nbi).
func PutNBI[T any](p *PE, dst Sym[T], src []T, pe int) error {
	return rma(p, opPutNBI, dst, src, pe)
}

// Get copies the first len(dst) elements of src on PE pe into dst
// (shmem_get). It returns when dst holds them.
func Get[T any](p *PE, dst []T, src Sym[T], pe int) error {
	return rma(p, opGet, src, dst, pe)
}

// GetNBI is Get that may return before dst is filled: dst is valid after
// p.Quiet returns (shmem_get_nbi).
func GetNBI[T any](p *PE, dst []T, src Sym[T], pe int) error {
	return rma(p, opGetNBI, src, dst, pe)
}

// The contiguous RMA routines, named as errors name them.
type rmaOp string

const (
	opPut    rmaOp = "Put"
	opPutNBI rmaOp = "PutNBI"
	opGet    rmaOp = "Get"
	opGetNBI rmaOp = "GetNBI"
)

// rma is the one path of Put, PutNBI, Get and GetNBI: the checks, then
// the transport's routine between sym's hold and release.
func rma[T any](p *PE, op rmaOp, sym Sym[T], local []T, pe int) error {
	if err := p.checkRMA(sym.rec, pe); err != nil {
		return err
	}
	if err := checkFits(string(op), len(local), sym.n); err != nil || len(local) == 0 {
		return err
	}
	if err := sym.rec.hold(); err != nil {
		return err
	}
	defer sym.rec.release()
	tr, b := p.w.tr, asBytes(local)
	switch op {
	case opPut:
		return tr.Put(p.id, pe, sym.off, b)
	case opPutNBI:
		return tr.PutNBI(p.id, pe, sym.off, b)
	case opGet:
		return tr.Get(p.id, pe, sym.off, b)
	default:
		return tr.GetNBI(p.id, pe, sym.off, b)
	}
}

// P stores v into dst's first element on PE pe (shmem_p).
func P[T any](p *PE, dst Sym[T], v T, pe int) error {
	return Put(p, dst, []T{v}, pe)
}

// G loads src's first element from PE pe (shmem_g).
func G[T any](p *PE, src Sym[T], pe int) (T, error) {
	var v [1]T
	err := Get(p, v[:], src, pe)
	return v[0], err
}

// PutSym copies src, this PE's copy of a symmetric array, into dst on PE
// pe (shmem_put with a symmetric source). No host memory is involved, so
// on device backends the data moves device to device.
func PutSym[T any](p *PE, dst, src Sym[T], pe int) error {
	return copySym(p, dst, pe, src, p.id, 1, 1, src.n, "PutSym")
}

// GetSym copies PE pe's copy of src into dst, this PE's copy of a
// symmetric array (shmem_get into a symmetric destination).
func GetSym[T any](p *PE, dst, src Sym[T], pe int) error {
	return copySym(p, dst, p.id, src, pe, 1, 1, dst.n, "GetSym")
}

// copySym copies n elements between two PEs' copies of symmetric arrays:
// from src on srcPE, sst apart, into dst on dstPE, tst apart. Contiguous,
// it is one copy of the transport (device to device on GPU backends);
// strided, one per element.
func copySym[T any](p *PE, dst Sym[T], dstPE int, src Sym[T], srcPE int, tst, sst, n int, op string) error {
	if err := checkCopy(p, dst, dstPE, src, srcPE, tst, sst, n, op); err != nil || n == 0 {
		return err
	}
	if err := dst.rec.hold(); err != nil {
		return err
	}
	defer dst.rec.release()
	if err := src.rec.hold(); err != nil {
		return err
	}
	defer src.rec.release()
	return copySpans(dst.off, src.off, tst, sst, n, sizeOf[T](), func(d, s, b int64) error {
		return p.w.tr.Copy(p.id, dstPE, d, srcPE, s, b)
	})
}

// checkCopy checks a copy of n elements between two PEs' copies of
// symmetric arrays (copySym's and the stream forms' arguments).
func checkCopy[T any](p *PE, dst Sym[T], dstPE int, src Sym[T], srcPE int, tst, sst, n int, op string) error {
	if err := p.checkRMA(dst.rec, dstPE); err != nil {
		return err
	}
	if err := p.checkRMA(src.rec, srcPE); err != nil {
		return err
	}
	if err := checkStrided(op, tst, sst, n, dst.n, src.n); err != nil || n == 0 {
		return err
	}
	esz := sizeOf[T]()
	if dstPE == srcPE && dst.off < src.off+int64(covered(n, sst))*esz && src.off < dst.off+int64(covered(n, tst))*esz {
		return fmt.Errorf("%w: %s: source and destination overlap", ErrBadArg, op)
	}
	return nil
}

// copySpans moves n elements of esz bytes, taken sst apart from srcOff
// and placed tst apart from dstOff, with cp: one span when both strides
// are 1, else a span per element.
func copySpans(dstOff, srcOff int64, tst, sst, n int, esz int64, cp func(dstOff, srcOff, bytes int64) error) error {
	if tst == 1 && sst == 1 {
		return cp(dstOff, srcOff, int64(n)*esz)
	}
	for i := range n {
		if err := cp(dstOff+int64(i*tst)*esz, srcOff+int64(i*sst)*esz, esz); err != nil {
			return err
		}
	}
	return nil
}
