package pgas

import (
	"fmt"

	"github.com/symchan/symchan/pgas/driver"
)

// Non-blocking fetching atomics (shmem_atomic_fetch_*_nbi). Each starts
// the atomic and returns; *fetch holds the previous value once p.Quiet
// returns, and the caller must not read or write *fetch before then.
// On the current backends the atomic completes before the call returns
// (the spec allows completion at any point up to Quiet), so they order
// like their blocking forms; programs must not rely on that.

// AtomicFetchNBI atomically loads s's first element on PE pe into *fetch.
func AtomicFetchNBI[T Extended](p *PE, fetch *T, s Sym[T], pe int) error {
	return extendedNBI(p, fetch, s, pe, driver.OpFetch, 0)
}

// AtomicSwapNBI atomically stores v and fetches the previous value.
func AtomicSwapNBI[T Extended](p *PE, fetch *T, s Sym[T], v T, pe int) error {
	return extendedNBI(p, fetch, s, pe, driver.OpSwap, v)
}

// AtomicCompareSwapNBI stores v if the word equals cond, and fetches the
// previous value either way.
func AtomicCompareSwapNBI[T Word](p *PE, fetch *T, s Sym[T], cond, v T, pe int) error {
	return wordNBI(p, fetch, s, pe, driver.OpCompareSwap, v, cond)
}

// AtomicFetchIncNBI atomically adds 1 and fetches the previous value.
func AtomicFetchIncNBI[T Word](p *PE, fetch *T, s Sym[T], pe int) error {
	return wordNBI(p, fetch, s, pe, driver.OpFetchAdd, 1, 0)
}

// AtomicFetchAddNBI atomically adds v and fetches the previous value.
func AtomicFetchAddNBI[T Word](p *PE, fetch *T, s Sym[T], v T, pe int) error {
	return wordNBI(p, fetch, s, pe, driver.OpFetchAdd, v, 0)
}

// AtomicFetchAndNBI atomically replaces the word w with w & v and fetches w.
func AtomicFetchAndNBI[T Word](p *PE, fetch *T, s Sym[T], v T, pe int) error {
	return wordNBI(p, fetch, s, pe, driver.OpFetchAnd, v, 0)
}

// AtomicFetchOrNBI atomically replaces the word w with w | v and fetches w.
func AtomicFetchOrNBI[T Word](p *PE, fetch *T, s Sym[T], v T, pe int) error {
	return wordNBI(p, fetch, s, pe, driver.OpFetchOr, v, 0)
}

// AtomicFetchXorNBI atomically replaces the word w with w ^ v and fetches w.
func AtomicFetchXorNBI[T Word](p *PE, fetch *T, s Sym[T], v T, pe int) error {
	return wordNBI(p, fetch, s, pe, driver.OpFetchXor, v, 0)
}

var errNilFetch = fmt.Errorf("%w: nil fetch pointer", ErrBadArg)

func extendedNBI[T Extended](p *PE, fetch *T, s Sym[T], pe int, op driver.AtomicOp, v T) error {
	if fetch == nil {
		return errNilFetch
	}
	old, err := extendedOp(p, s, pe, op, v)
	if err == nil {
		*fetch = old
	}
	return err
}

func wordNBI[T Word](p *PE, fetch *T, s Sym[T], pe int, op driver.AtomicOp, v, cond T) error {
	if fetch == nil {
		return errNilFetch
	}
	old, err := atomicOp(p, s, pe, op, v, cond)
	if err == nil {
		*fetch = old
	}
	return err
}
