package pgas

import (
	"context"
	"errors"
	"fmt"
)

// An Array asks AllocAll for one symmetric array; ArrayOf makes it.
type Array interface {
	check() error
	alloc(ctx context.Context, p *PE) error
	free(ctx context.Context, p *PE) error
}

// arrayOf is the Array of n elements of T, stored at dst.
type arrayOf[T any] struct {
	dst *Sym[T]
	n   int
}

// ArrayOf asks AllocAll for a symmetric array of n elements of T, to be
// stored at dst.
func ArrayOf[T any](dst *Sym[T], n int) Array { return arrayOf[T]{dst, n} }

func (a arrayOf[T]) check() error {
	if a.dst == nil {
		return fmt.Errorf("%w: ArrayOf with a nil destination", ErrBadArg)
	}
	return nil
}

func (a arrayOf[T]) alloc(ctx context.Context, p *PE) error {
	s, err := AllocZeroed[T](ctx, p, a.n)
	if err == nil {
		*a.dst = s
	}
	return err
}

func (a arrayOf[T]) free(ctx context.Context, p *PE) error {
	err := Free(ctx, p, *a.dst)
	*a.dst = Sym[T]{}
	return err
}

// AllocAll allocates the symmetric array of each of arrays, zeroed, in
// order, and stores each where it was asked for: a typical setup's
// allocations in one call, of any element types,
//
//	var src, dst pgas.Sym[float32]
//	var sig pgas.Sym[uint64]
//	err := pgas.AllocAll(ctx, pe, pgas.ArrayOf(&src, n), pgas.ArrayOf(&dst, n), pgas.ArrayOf(&sig, 1))
//
// It is AllocZeroed once per array, and as collective: every PE asks for
// arrays of the same types and sizes in the same order. Where one fails
// (on every PE alike: a collective allocation fails everywhere or
// nowhere), the ones before it are freed and zeroed, and the error names
// the array. A nil Array or destination fails before anything is
// allocated.
func AllocAll(ctx context.Context, p *PE, arrays ...Array) error {
	for i, a := range arrays {
		if a == nil {
			return fmt.Errorf("%w: AllocAll: array %d is nil", ErrBadArg, i)
		}
		if err := a.check(); err != nil {
			return fmt.Errorf("AllocAll: array %d: %w", i, err)
		}
	}
	for i, a := range arrays {
		if err := a.alloc(ctx, p); err != nil {
			errs := []error{fmt.Errorf("AllocAll: array %d: %w", i, err)}
			for j := i - 1; j >= 0; j-- {
				errs = append(errs, arrays[j].free(ctx, p))
			}
			return errors.Join(errs...)
		}
	}
	return nil
}
