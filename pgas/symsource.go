package pgas

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
	return copySym(p, dst, pe, src, p.id, 1, 1, src.n, "PutSymNBI")
}

// GetSymNBI is GetSym that may return before dst is filled: dst holds the
// data once p.Quiet returns (nvshmem_getmem_nbi into a symmetric
// destination).
func GetSymNBI[T any](p *PE, dst, src Sym[T], pe int) error {
	return copySym(p, dst, p.id, src, pe, 1, 1, dst.n, "GetSymNBI")
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
	if err := checkSignal(p, name, sig, op, pe); err != nil {
		return err
	}
	if err := signalApart(name, sig, dst.off, int64(min(src.n, dst.n))*sizeOf[T]()); err != nil {
		return err
	}
	if err := copySym(p, dst, pe, src, p.id, 1, 1, src.n, name); err != nil {
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
	return copySym(p, dst, pe, src, p.id, tst, sst, n, "IPutSym")
}

// IGetSym copies n elements of src on PE pe, taken at stride sst, into
// dst, this PE's copy of a symmetric array, at stride tst (shmem_iget into
// a symmetric destination). It returns when dst holds them.
func IGetSym[T any](p *PE, dst, src Sym[T], tst, sst, n, pe int) error {
	return copySym(p, dst, p.id, src, pe, tst, sst, n, "IGetSym")
}
