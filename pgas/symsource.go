package pgas

import "fmt"

// Routines whose source (or, for gets, destination) is this PE's copy of a
// symmetric array rather than a Go slice, as NVSHMEM's take any address of
// the calling PE: no host memory is involved, so on GPU backends the bytes
// move device to device with no staging copy. PutSym and GetSym are the
// blocking contiguous forms (rma.go). The NBI forms may complete before
// they return (the current backends do), so their completion rule is
// NVSHMEM's: after Quiet.

// PutSymNBI is PutSym that may return before the transfer is complete:
// src must stay unchanged, and dst is delivered, once p.Quiet returns
// (nvshmem_putmem_nbi with a symmetric source).
func PutSymNBI[T any](p *PE, dst, src Sym[T], pe int) error {
	return copySym(p, dst, pe, src, p.id, src.n, "PutSymNBI")
}

// GetSymNBI is GetSym that may return before dst is filled: dst holds the
// data once p.Quiet returns (nvshmem_getmem_nbi into a symmetric
// destination).
func GetSymNBI[T any](p *PE, dst, src Sym[T], pe int) error {
	return copySym(p, dst, p.id, src, pe, dst.n, "GetSymNBI")
}

// PutSignalSym copies src, this PE's copy of a symmetric array, into dst
// on PE pe, then updates sig's first word there with op and val
// (nvshmem_putmem_signal with a symmetric source): a PE that observes the
// signal update also sees the data. The signal word must not overlap the
// data.
func PutSignalSym[T any](p *PE, dst, src Sym[T], sig Sym[uint64], val uint64, op SigOp, pe int) error {
	return putSignalSym(p, dst, src, sig, val, op, pe, "PutSignalSym")
}

// PutSignalSymNBI is PutSignalSym that may return before the transfer is
// complete: src must stay unchanged until p.Quiet returns
// (nvshmem_putmem_signal_nbi with a symmetric source).
func PutSignalSymNBI[T any](p *PE, dst, src Sym[T], sig Sym[uint64], val uint64, op SigOp, pe int) error {
	return putSignalSym(p, dst, src, sig, val, op, pe, "PutSignalSymNBI")
}

// putSignalSym is the data's copy, a fence, and the signal: the fence
// orders the signal's delivery after the data's, which is what makes the
// data visible to a PE that sees the signal.
func putSignalSym[T any](p *PE, dst, src Sym[T], sig Sym[uint64], val uint64, op SigOp, pe int, name string) error {
	if !op.Valid() {
		return fmt.Errorf("%w: %s: signal operation %v", ErrBadArg, name, op)
	}
	if err := p.checkRMA(sig.rec, pe); err != nil {
		return fmt.Errorf("%s's signal: %w", name, err)
	}
	if sig.n < 1 {
		return fmt.Errorf("%w: %s: empty signal Sym", ErrBadSize, name)
	}
	nb := int64(min(src.n, dst.n)) * sizeOf[T]()
	if sig.off < dst.off+nb && dst.off < sig.off+8 {
		return fmt.Errorf("%w: %s: signal word at offset %d overlaps the data [%d, %d)", ErrBadArg, name, sig.off, dst.off, dst.off+nb)
	}
	if err := copySym(p, dst, pe, src, p.id, src.n, name); err != nil {
		return err
	}
	if err := p.Fence(); err != nil {
		return err
	}
	return SignalOp(p, sig, val, op, pe)
}

// IPutSym copies n elements of src, this PE's copy of a symmetric array,
// taken at stride sst, into dst on PE pe at stride tst (shmem_iput with a
// symmetric source). It returns once src may be reused; delivery is
// complete at the latest after Quiet or a barrier.
func IPutSym[T any](p *PE, dst, src Sym[T], tst, sst, n, pe int) error {
	return stridedSym(p, dst, pe, src, p.id, tst, sst, n, "IPutSym")
}

// IGetSym copies n elements of src on PE pe, taken at stride sst, into
// dst, this PE's copy of a symmetric array, at stride tst (shmem_iget into
// a symmetric destination). It returns when dst holds them.
func IGetSym[T any](p *PE, dst, src Sym[T], tst, sst, n, pe int) error {
	return stridedSym(p, dst, p.id, src, pe, tst, sst, n, "IGetSym")
}

// stridedSym copies element by element between two PEs' copies, one
// device-to-device copy each on GPU backends.
func stridedSym[T any](p *PE, dst Sym[T], dstPE int, src Sym[T], srcPE int, tst, sst, n int, name string) error {
	if err := p.checkRMA(dst.rec, dstPE); err != nil {
		return err
	}
	if err := p.checkRMA(src.rec, srcPE); err != nil {
		return err
	}
	if err := checkStrided(name, tst, sst, n, dst.n, src.n); err != nil || n == 0 {
		return err
	}
	esz := sizeOf[T]()
	if dstPE == srcPE && dst.off < src.off+int64(covered(n, sst))*esz && src.off < dst.off+int64(covered(n, tst))*esz {
		return fmt.Errorf("%w: %s: source and destination overlap", ErrBadArg, name)
	}
	if err := dst.rec.hold(); err != nil {
		return err
	}
	defer dst.rec.release()
	if err := src.rec.hold(); err != nil {
		return err
	}
	defer src.rec.release()
	for i := range n {
		if err := p.w.tr.Copy(p.id, dstPE, dst.off+int64(i*tst)*esz, srcPE, src.off+int64(i*sst)*esz, esz); err != nil {
			return err
		}
	}
	return nil
}
