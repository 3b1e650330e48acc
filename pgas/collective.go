package pgas

import (
	"context"
	"fmt"
	"unsafe"
)

// Collectives are built from Get/Put and team barriers, so every backend
// runs them unchanged. Each member writes only its own partition, reading
// the others', which keeps the result identical (bit for bit, floats
// included) on every member.

func (t *Team) checkColl(recs ...*allocRec) error {
	if err := t.check(); err != nil {
		return err
	}
	for _, r := range recs {
		if err := t.pe.checkSym(r); err != nil {
			return err
		}
	}
	return nil
}

func needLen(what string, have, want int) error {
	if want < 0 {
		return fmt.Errorf("%w: %s count %d", ErrBadSize, what, want)
	}
	if have < want {
		return fmt.Errorf("%w: %s needs %d elements, Sym has %d", ErrBadSize, what, want, have)
	}
	return nil
}

// Broadcast copies the first n elements of src on team rank root into dst
// on every member, root included (shmem_broadcast).
func Broadcast[T any](ctx context.Context, t *Team, dst, src Sym[T], n, root int) error {
	if err := t.checkColl(dst.rec, src.rec); err != nil {
		return err
	}
	if err := needLen("broadcast dst", dst.n, n); err != nil {
		return err
	}
	if err := needLen("broadcast src", src.n, n); err != nil {
		return err
	}
	if uint(root) >= uint(len(t.members)) {
		return badPE(root, len(t.members))
	}
	p := t.pe
	// Pull from the root once every member has entered (its src is ready,
	// and no one still reads a dst about to change).
	if err := t.Barrier(ctx); err != nil {
		return err
	}
	if n > 0 {
		buf := make([]T, n)
		if err := Get(p, buf, src, t.members[root]); err != nil {
			return err
		}
		if err := Put(p, dst, buf, p.id); err != nil {
			return err
		}
	}
	// src on the root may change once everyone has copied.
	return t.Barrier(ctx)
}

// ReduceOp is a reduction operator of ReduceAll.
type ReduceOp uint8

// Reduction operators. And, Or and Xor apply to integer types only.
const (
	Sum ReduceOp = iota + 1
	Prod
	Min
	Max
	And
	Or
	Xor
)

// String returns the constant's name ("Sum", "Max", …).
func (op ReduceOp) String() string {
	if op >= Sum && op <= Xor {
		return [...]string{"Sum", "Prod", "Min", "Max", "And", "Or", "Xor"}[op-1]
	}
	return fmt.Sprintf("ReduceOp(%d)", uint8(op))
}

// Number is an element type of ReduceAll.
type Number interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 |
		~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr |
		~float32 | ~float64
}

func isFloat[T Number]() bool {
	var one T = 1
	return one/2 != 0
}

// ReduceAll combines the first n elements of src over all members with op
// and writes the result into dst on every member (shmem_reduce, to all).
// dst and src may be the same Sym. Members combine in rank order, so every
// member gets the same bits.
func ReduceAll[T Number](ctx context.Context, t *Team, op ReduceOp, dst, src Sym[T], n int) error {
	if err := t.checkColl(dst.rec, src.rec); err != nil {
		return err
	}
	if op < Sum || op > Xor {
		return fmt.Errorf("%w: reduction %v", ErrBadArg, op)
	}
	if op >= And && isFloat[T]() {
		return fmt.Errorf("%w: %v reduction of a floating-point type", ErrBadArg, op)
	}
	if err := needLen("reduce dst", dst.n, n); err != nil {
		return err
	}
	if err := needLen("reduce src", src.n, n); err != nil {
		return err
	}
	p := t.pe
	if err := t.Barrier(ctx); err != nil {
		return err
	}
	acc, buf := make([]T, n), make([]T, n)
	for r, m := range t.members {
		if err := Get(p, buf, src, m); err != nil {
			return err
		}
		if r == 0 {
			copy(acc, buf)
			continue
		}
		combine(op, acc, buf)
	}
	// Everyone has read every src before anyone overwrites its dst (they
	// may be the same memory).
	if err := t.Barrier(ctx); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return Put(p, dst, acc, p.id)
}

func combine[T Number](op ReduceOp, acc, v []T) {
	switch op {
	case Sum:
		for i := range acc {
			acc[i] += v[i]
		}
	case Prod:
		for i := range acc {
			acc[i] *= v[i]
		}
	case Min:
		for i := range acc {
			acc[i] = min(acc[i], v[i])
		}
	case Max:
		for i := range acc {
			acc[i] = max(acc[i], v[i])
		}
	default:
		for i := range acc {
			acc[i] = bitwise(op, acc[i], v[i])
		}
	}
}

// bitwise applies And/Or/Xor to integer values through their bits (Go
// has no bitwise operators on a type set that includes floats).
func bitwise[T Number](op ReduceOp, a, b T) T {
	x, y := toBits(a), toBits(b)
	var r uint64
	switch op {
	case And:
		r = x & y
	case Or:
		r = x | y
	case Xor:
		r = x ^ y
	}
	return fromBits[T](r)
}

func toBits[T Number](v T) uint64 {
	switch unsafe.Sizeof(v) {
	case 1:
		return uint64(*(*uint8)(unsafe.Pointer(&v)))
	case 2:
		return uint64(*(*uint16)(unsafe.Pointer(&v)))
	case 4:
		return uint64(*(*uint32)(unsafe.Pointer(&v)))
	}
	return *(*uint64)(unsafe.Pointer(&v))
}

func fromBits[T Number](u uint64) T {
	var v T
	switch unsafe.Sizeof(v) {
	case 1:
		*(*uint8)(unsafe.Pointer(&v)) = uint8(u)
	case 2:
		*(*uint16)(unsafe.Pointer(&v)) = uint16(u)
	case 4:
		*(*uint32)(unsafe.Pointer(&v)) = uint32(u)
	default:
		*(*uint64)(unsafe.Pointer(&v)) = u
	}
	return v
}

// FCollect concatenates the first n elements of src of every member, in
// rank order, into dst on every member (shmem_fcollect); dst needs
// n × NumPEs() elements and must not overlap src.
func FCollect[T any](ctx context.Context, t *Team, dst, src Sym[T], n int) error {
	return exchange(ctx, t, "fcollect", dst, src, n, n, func(int) int { return 0 })
}

// AllToAll sends block j (n elements at j·n) of src on every member to
// member j, where it lands as block i of dst for sender rank i
// (shmem_alltoall). dst and src need n × NumPEs() elements each and must
// not overlap.
func AllToAll[T any](ctx context.Context, t *Team, dst, src Sym[T], n int) error {
	return exchange(ctx, t, "alltoall", dst, src, n, n*t.NumPEs(), func(int) int { return t.rank * n })
}

// exchange fills block r of dst on each member with n elements read from
// member r's src at srcAt(r); src must hold srcNeed elements.
func exchange[T any](ctx context.Context, t *Team, what string, dst, src Sym[T], n, srcNeed int, srcAt func(r int) int) error {
	if err := t.checkColl(dst.rec, src.rec); err != nil {
		return err
	}
	size := len(t.members)
	if err := needLen(what+" dst", dst.n, n*size); err != nil {
		return err
	}
	if err := needLen(what+" src", src.n, srcNeed); err != nil {
		return err
	}
	if dst.rec == src.rec && dst.off < src.off+src.Bytes() && src.off < dst.off+dst.Bytes() {
		return fmt.Errorf("%w: %s dst and src overlap", ErrBadArg, what)
	}
	p := t.pe
	if err := t.Barrier(ctx); err != nil {
		return err
	}
	if n > 0 {
		buf := make([]T, n)
		for r, m := range t.members {
			at := srcAt(r)
			if err := Get(p, buf, src.Slice(at, at+n), m); err != nil {
				return err
			}
			if err := Put(p, dst.Slice(r*n, (r+1)*n), buf, p.id); err != nil {
				return err
			}
		}
	}
	return t.Barrier(ctx)
}
