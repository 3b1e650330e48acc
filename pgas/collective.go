package pgas

import (
	"context"
	"fmt"
	"math"
	"unsafe"

	"github.com/symchan/symchan/internal/abi"
)

// On the host backend collectives are built from Get/Put and team
// synchronisations (dissemination barriers: ⌈log₂ P⌉ rounds of one word
// each), so every backend could run them unchanged: two synchronisations
// around each member's own reads, one round of data whatever P (the reads
// are P Gets from shared memory, not P rounds). On the GPU backends the
// blocking collectives run on the device instead, one launch each
// (collective_device.go). Each member writes only its own partition,
// reading the others', which keeps the result identical (bit for bit,
// floats included) on every member.

//
// A collective whose arguments are invalid on some member still runs its
// first synchronisation, which tells every member: all return an error
// and the team stays usable. One that fails between its synchronisations
// ends the next one for all (Team.abortNext): the team is broken.

// checkSyms validates the Syms of a collective on t's PE.
func (t *Team) checkSyms(recs ...*allocRec) error {
	for _, r := range recs {
		if err := t.pe.checkSym(r); err != nil {
			return err
		}
	}
	return nil
}

// pull copies src on PE from into dst on p, through buf.
func pull[T any](p *PE, dst, src Sym[T], buf []T, from int) error {
	if err := Get(p, buf, src, from); err != nil {
		return err
	}
	return Put(p, dst, buf, p.id)
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
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
// on every member, root included (shmem_broadcast). On the GPU backends it
// is one launch on the device; on the host, two synchronisations of
// ⌈log₂ P⌉ rounds around each member's read of the root's src.
func Broadcast[T any](ctx context.Context, t *Team, dst, src Sym[T], n, root int) error {
	if err := t.check(); err != nil {
		return err
	}
	bad := broadcastArgs(t, dst, src, n, root)
	if t.onGPU() {
		nb := int64(n) * sizeOf[T]()
		return t.deviceCollective(ctx, devColl{sk: syncBroadcast, kind: abi.CollBroadcast, dst: dst.off, src: src.off, n: nb, arg: uint64(root), moved: nb}, bad)
	}
	p := t.pe
	// Pull from the root once every member has entered (its src is ready,
	// and no one still reads a dst about to change).
	if err := t.barrierArgs(ctx, syncBroadcast, bad, moveArgs[T](n, root)); err != nil {
		return err
	}
	if n > 0 {
		buf := make([]T, n)
		if err := pull(p, dst, src, buf, t.members[root]); err != nil {
			return t.abortNext(syncBroadcast, err)
		}
	}
	// src on the root may change once everyone has copied.
	return t.barrier(ctx, syncBroadcast, nil)
}

// broadcastArgs checks Broadcast's arguments on t's PE.
func broadcastArgs[T any](t *Team, dst, src Sym[T], n, root int) error {
	bad := firstErr(t.checkSyms(dst.rec, src.rec), needLen("broadcast dst", dst.n, n), needLen("broadcast src", src.n, n))
	if bad == nil && uint(root) >= uint(len(t.members)) {
		bad = badPE(root, len(t.members))
	}
	return bad
}

// ReduceOp is a reduction operator of ReduceAll.
type ReduceOp uint8

// Reduction operators. ReduceAnd, ReduceOr and ReduceXor apply to integer
// types only.
const (
	ReduceSum ReduceOp = iota + 1
	ReduceProd
	ReduceMin
	ReduceMax
	ReduceAnd
	ReduceOr
	ReduceXor
)

// String returns the constant's name ("ReduceSum", "ReduceMax", …).
func (op ReduceOp) String() string {
	if op >= ReduceSum && op <= ReduceXor {
		return [...]string{"ReduceSum", "ReduceProd", "ReduceMin", "ReduceMax", "ReduceAnd", "ReduceOr", "ReduceXor"}[op-1]
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
// and writes the result into dst on every member (shmem_reduce, to all):
// on the GPU backends one launch on the device (rank r folds the r-th
// segment of every member's src), on the host two synchronisations of
// ⌈log₂ P⌉ rounds around each member's reads of every src.
// dst and src are the same elements or do not overlap. Members combine in
// rank order, so every member gets the same bits.
func ReduceAll[T Number](ctx context.Context, t *Team, op ReduceOp, dst, src Sym[T], n int) error {
	if err := t.check(); err != nil {
		return err
	}
	if t.onGPU() {
		bad := firstErr(reduceArgs(t, dst, src, n), reduceOpArg[T](op))
		return t.deviceCollective(ctx, devColl{sk: syncReduce, kind: abi.CollReduce, dst: dst.off, src: src.off, n: int64(n),
			arg: uint64(op) | uint64(deviceElem(elemCode[T]()))<<8, moved: int64(n) * sizeOf[T]()}, bad)
	}
	return reduceAll(ctx, t, op, dst, src, n, reduceOpArg[T](op), func(acc, v []T) { combine(op, acc, v) })
}

// reduceOpArg checks that op applies to T.
func reduceOpArg[T Number](op ReduceOp) error {
	switch {
	case op < ReduceSum || op > ReduceXor:
		return fmt.Errorf("%w: reduction %v", ErrBadArg, op)
	case op >= ReduceAnd && isFloat[T]():
		return fmt.Errorf("%w: %v reduction of a floating-point type", ErrBadArg, op)
	}
	return nil
}

// reduceArgs checks a reduction's Syms and count on t's PE: dst and src
// hold n elements, and are the same elements or do not overlap (a member
// folds a segment of every member's src into every member's dst, on
// every path: a partial overlap would read what it already wrote).
func reduceArgs[T any](t *Team, dst, src Sym[T], n int) error {
	err := firstErr(t.checkSyms(dst.rec, src.rec), needLen("reduce dst", dst.n, n), needLen("reduce src", src.n, n))
	if err == nil && dst.off != src.off && overlaps(dst.Slice(0, n), src.Slice(0, n)) {
		err = fmt.Errorf("%w: reduce dst and src overlap without being the same elements", ErrBadArg)
	}
	return err
}

// Complex is an element type of ReduceAllComplex.
type Complex interface {
	~complex64 | ~complex128
}

// ReduceAllComplex is ReduceAll for complex numbers (the spec's complexf
// and complexd reductions), with ReduceSum or ReduceProd, the only
// operators the spec defines on them. It is a function of its own because
// Go's ordering (min and max) does not apply to complex types.
func ReduceAllComplex[T Complex](ctx context.Context, t *Team, op ReduceOp, dst, src Sym[T], n int) error {
	var bad error
	if op != ReduceSum && op != ReduceProd {
		bad = fmt.Errorf("%w: %v reduction of a complex type (ReduceSum and ReduceProd only)", ErrBadArg, op)
	}
	return reduceAll(ctx, t, op, dst, src, n, bad, func(acc, v []T) {
		for i := range acc {
			if op == ReduceSum {
				acc[i] += v[i]
			} else {
				acc[i] *= v[i]
			}
		}
	})
}

// reduceAll runs a to-all reduction with op that folds each member's src
// into an accumulator with combine, in rank order; bad is the caller's
// argument error, if any.
func reduceAll[T any](ctx context.Context, t *Team, op ReduceOp, dst, src Sym[T], n int, bad error, combine func(acc, v []T)) error {
	if err := t.check(); err != nil {
		return err
	}
	bad = firstErr(reduceArgs(t, dst, src, n), bad)
	p := t.pe
	args := collArgs{count: int64(n), root: -1, op: int64(op), elem: elemCode[T](), tst: -1, sst: -1}
	if t.onGPU() {
		// ReduceAllComplex: agreed on the device (as a reduction with no
		// root, as ReduceAll's there), then combined here.
		a := args
		a.root = 0
		if err := t.deviceCollective(ctx, agreeColl(syncReduce, abi.CollReduce, a), bad); err != nil {
			return err
		}
	}
	if err := t.barrierArgs(ctx, syncReduce, bad, args); err != nil {
		return err
	}
	acc, buf := make([]T, n), make([]T, n)
	for r, m := range t.members {
		if err := Get(p, buf, src, m); err != nil {
			return t.abortNext(syncReduce, err)
		}
		if r == 0 {
			copy(acc, buf)
			continue
		}
		combine(acc, buf)
	}
	// Everyone has read every src before anyone overwrites its dst (they
	// may be the same memory).
	if err := t.barrier(ctx, syncReduce, nil); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	return Put(p, dst, acc, p.id)
}

func combine[T Number](op ReduceOp, acc, v []T) {
	switch op {
	case ReduceSum:
		for i := range acc {
			acc[i] += v[i]
		}
	case ReduceProd:
		for i := range acc {
			acc[i] *= v[i]
		}
	case ReduceMin:
		for i := range acc {
			acc[i] = min(acc[i], v[i])
		}
	case ReduceMax:
		for i := range acc {
			acc[i] = max(acc[i], v[i])
		}
	default:
		for i := range acc {
			acc[i] = bitwise(op, acc[i], v[i])
		}
	}
}

// bitwise applies ReduceAnd/ReduceOr/ReduceXor to integer values through
// their bits (Go has no bitwise operators on a type set that includes
// floats).
func bitwise[T Number](op ReduceOp, a, b T) T {
	x, y := toBits(a), toBits(b)
	var r uint64
	switch op {
	case ReduceAnd:
		r = x & y
	case ReduceOr:
		r = x | y
	case ReduceXor:
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
// n × NumPEs() elements and must not overlap src. It runs as Broadcast
// does (one launch on the GPU backends).
func FCollect[T any](ctx context.Context, t *Team, dst, src Sym[T], n int) error {
	return exchange(ctx, t, syncFCollect, dst, src, 1, 1, n, 1, func(int) int { return 0 })
}

// AllToAll sends block j (n elements at j·n) of src on every member to
// member j, where it lands as block i of dst for sender rank i
// (shmem_alltoall). dst and src need n × NumPEs() elements each and must
// not overlap. It runs as Broadcast does (one launch on the GPU backends).
func AllToAll[T any](ctx context.Context, t *Team, dst, src Sym[T], n int) error {
	return AllToAlls(ctx, t, dst, src, 1, 1, n)
}

// AllToAlls is AllToAll over strided data (shmem_alltoalls): the block
// member i sends member j is the n elements of src at j·n·sst, sst·… apart,
// and it lands in dst at i·n·tst, tst apart. Strides count elements and are
// at least 1. dst and src must not overlap. With strides other than 1 it
// moves its data from the host on every backend (after an agreement on
// the device on the GPU backends).
func AllToAlls[T any](ctx context.Context, t *Team, dst, src Sym[T], tst, sst, n int) error {
	return exchange(ctx, t, syncAllToAll, dst, src, tst, sst, n, t.NumPEs(), func(int) int { return t.rank })
}

// exchange fills block r of dst on each member (n elements, tst apart,
// from element r·n·tst) with n elements, sst apart, of member r's src from
// its block srcAt(r) (element srcAt(r)·n·sst); src holds srcBlocks blocks.
// With unit strides each block is one Get and one Put.
func exchange[T any](ctx context.Context, t *Team, kind syncKind, dst, src Sym[T], tst, sst, n, srcBlocks int, srcAt func(r int) int) error {
	if err := t.check(); err != nil {
		return err
	}
	bad := exchangeArgs(t, kind, dst, src, tst, sst, n, srcBlocks)
	p := t.pe
	var args collArgs
	if tst == 1 && sst == 1 {
		args = moveArgs[T](n, -1) // bytes, as on a stream and in a kernel
	} else {
		args = collArgs{count: int64(n), root: -1, op: -1, elem: elemCode[T](), tst: int64(tst), sst: int64(sst)}
	}
	if t.onGPU() {
		if tst == 1 && sst == 1 {
			nb := int64(n) * sizeOf[T]()
			c := devColl{sk: kind, kind: abi.CollFCollect, dst: dst.off, src: src.off, n: nb, moved: nb * int64(len(t.members))}
			if kind == syncAllToAll {
				c.kind = abi.CollAllToAll
			}
			return t.deviceCollective(ctx, c, bad)
		}
		// Strided: agreed on the device, then moved from here.
		if err := t.deviceCollective(ctx, agreeColl(kind, hostKind(kind), args), bad); err != nil {
			return err
		}
	}
	if err := t.barrierArgs(ctx, kind, bad, args); err != nil {
		return err
	}
	if n > 0 {
		buf := make([]T, n)
		for r, m := range t.members {
			if err := iget(p, buf, src.Slice(srcAt(r)*n*sst, src.n), 1, sst, n, m); err != nil {
				return t.abortNext(kind, err)
			}
			if err := iput(p, dst.Slice(r*n*tst, dst.n), buf, tst, 1, n, p.id, false); err != nil {
				return t.abortNext(kind, err)
			}
		}
	}
	return t.barrier(ctx, kind, nil)
}

// exchangeArgs checks the arguments of an exchange on t's PE.
func exchangeArgs[T any](t *Team, kind syncKind, dst, src Sym[T], tst, sst, n, srcBlocks int) error {
	what := kind.String()
	size := len(t.members)
	bad := t.checkSyms(dst.rec, src.rec)
	if bad == nil && n > 0 && n > math.MaxInt/size {
		bad = fmt.Errorf("%w: %s count %d × %d members overflows", ErrBadSize, what, n, size)
	}
	if bad == nil {
		bad = checkStrided(what, tst, sst, n, math.MaxInt, math.MaxInt) // the strides and n alone
	}
	if bad == nil {
		bad = firstErr(fitsStrided(what, "destination", n*size, tst, dst.n), fitsStrided(what, "source", n*srcBlocks, sst, src.n))
	}
	if bad == nil && overlaps(dst, src) {
		bad = fmt.Errorf("%w: %s dst and src overlap", ErrBadArg, what)
	}
	return bad
}
