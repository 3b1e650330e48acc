package pgas

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/symchan/symchan/internal/abi"
)

// Collectives reject members that disagree on their arguments. OpenSHMEM
// leaves a collective whose members pass different counts, roots,
// operators, element types or strides undefined (a member sums elements
// another never contributed); here every member fails with
// ErrCollectiveMismatch, naming the argument and the members, and the team
// stays usable.
//
// The check rides on the synchronisation each collective starts with: a
// member's arguments hash to 32 bits h, and the round words carry the
// union (OR) of h | ^h<<32 over the members seen, so after the last round
// every member holds the same union, in which some bit is set in both
// halves exactly when two members' h differ. Only then do the members
// read each other's arguments, which each wrote (non-blocking, into its
// own control slot) before the synchronisation, to say how they differ.

// collArgs are the arguments of a collective its members must agree on;
// a collective leaves out (as -1) those it does not take. Collectives that
// only move data (broadcast, fcollect, alltoall with unit strides) agree
// on bytes: count holds the bytes each member contributes and elem is -1,
// as on a GPU stream and in a kernel (symchan.cuh's *mem routines), so
// that one call meets the same verdict on every path (an int64 broadcast
// of 4 and an int32 one of 8 agree everywhere). Reductions agree on
// elements, their type and the operator.
type collArgs struct {
	count, root, op, elem, tst, sst int64
}

// moveArgs are the collArgs of a data-moving collective of n elements of
// T: its bytes, and root (-1 for none).
func moveArgs[T any](n, root int) collArgs {
	return collArgs{count: int64(n) * sizeOf[T](), root: int64(root), op: -1, elem: -1, tst: -1, sst: -1}
}

// collArgNames name collArgs's fields, in order, for the error; a
// data-moving collective's count is its bytes (argNames).
var collArgNames = [...]string{"count", "root", "operator", "element type", "destination stride", "source stride"}

// argNames are the names of the fields of the members' arguments all: the
// first is "bytes" where every member's is a byte count (no element type).
func argNames(all [][]int64) []string {
	names := collArgNames
	for _, a := range all {
		if a[3] != -1 {
			return names[:]
		}
	}
	names[0] = "bytes"
	return names[:]
}

func (a collArgs) words() [6]uint64 {
	return [6]uint64{uint64(a.count), uint64(a.root), uint64(a.op), uint64(a.elem), uint64(a.tst), uint64(a.sst)}
}

// sig is a's signature for the rounds, h | ^h<<32 of a 32-bit hash of
// a's words (FNV-1a over their halves): never 0 (0 is no signature).
func (a collArgs) sig() uint64 {
	h := uint32(2166136261)
	for _, v := range a.words() {
		h = (h ^ uint32(v)) * 16777619
		h = (h ^ uint32(v>>32)) * 16777619
	}
	return uint64(h) | uint64(^h)<<32
}

// sigsDiffer reports whether a union of signatures holds two that differ.
func sigsDiffer(u uint64) bool { return uint32(u)&uint32(u>>32) != 0 }

// argsDiffer is what a member's synchronisation returns when the members'
// signatures differed in synchronisation e.
type argsDiffer struct{ e uint64 }

func (d *argsDiffer) Error() string { return "pgas: collective arguments differ" }

// elemCode names T for the signature: its code where symchan.cuh has
// one (SYMCHAN_ELEM_*), else abi.ElemSized plus its size.
func elemCode[T any]() int64 {
	switch any((*T)(nil)).(type) {
	case *int8:
		return abi.ElemI8
	case *uint8:
		return abi.ElemU8
	case *int16:
		return abi.ElemI16
	case *uint16:
		return abi.ElemU16
	case *int32:
		return abi.ElemI32
	case *uint32:
		return abi.ElemU32
	case *int64:
		return abi.ElemI64
	case *uint64:
		return abi.ElemU64
	case *int:
		return abi.ElemInt
	case *uint:
		return abi.ElemUint
	case *uintptr:
		return abi.ElemUintptr
	case *float32:
		return abi.ElemF32
	case *float64:
		return abi.ElemF64
	case *complex64:
		return abi.ElemC64
	case *complex128:
		return abi.ElemC128
	}
	return abi.ElemSized + sizeOf[T]()
}

// barrierArgs is the barrier a collective of kind starts with, carrying
// its arguments: when the members' differ, every member that ran its
// rounds returns ErrCollectiveMismatch naming the argument and the
// members (the others ErrBadArg).
func (t *Team) barrierArgs(ctx context.Context, kind syncKind, bad error, a collArgs) error {
	// The arguments go to this member's slot of the coming
	// synchronisation's parity before it (the barrier's Quiet completes
	// the put); the next synchronisation of that parity comes only after
	// every member has passed the one between, so nobody overwrites them
	// while another reads.
	e := t.epoch.Load() + 1
	t.argsOut = a.words()
	if err := t.pe.w.tr.PutNBI(t.pe.id, t.pe.id, t.argsOff(e), wordsBytes(t.argsOut[:])); err != nil {
		return t.abortNext(kind, err)
	}
	if err := t.pe.w.tr.Quiet(t.pe.id); err != nil {
		return t.abortNext(kind, err)
	}
	err := t.syncSig(ctx, kind, bad, a.sig())
	if d, ok := err.(*argsDiffer); ok { // as syncSig returns it: not wrapped
		return t.mismatch(kind, d.e, t.argsOut)
	}
	return err
}

func (t *Team) argsOff(e uint64) int64 { return t.slotOff() + teamArgsOff + int64(e&1)*64 }

// mismatch reads every member's arguments of synchronisation e and says
// which differ, and which members (world PEs) passed which value.
func (t *Team) mismatch(kind syncKind, e uint64, mine [6]uint64) error {
	all := make([][]int64, len(t.members))
	for r, m := range t.members {
		w := mine
		if m != t.pe.id {
			if err := t.pe.w.tr.Get(t.pe.id, m, t.argsOff(e), wordsBytes(w[:])); err != nil {
				return fmt.Errorf("%w: %s: the members' arguments differ (reading them: %v)", ErrCollectiveMismatch, kind, err)
			}
		}
		all[r] = make([]int64, len(w))
		for f, v := range w {
			all[r][f] = int64(v)
		}
	}
	return fmt.Errorf("%w: %s: the members' arguments differ: %s", ErrCollectiveMismatch, kind, describeDiffer(t.members, argNames(all), all))
}

// describeDiffer says which fields of the members' arguments differ, and
// which members (world PEs) passed which value: all[r] holds the values of
// the fields names names that members[r] passed (nil: unknown).
func describeDiffer(members []int, names []string, all [][]int64) string {
	var parts []string
	var unknown []int
	for r := range all {
		if all[r] == nil {
			unknown = append(unknown, members[r])
		}
	}
	for f, name := range names {
		byValue := map[int64][]int{} // value → the world PEs that passed it
		for r := range all {
			if all[r] != nil {
				byValue[all[r][f]] = append(byValue[all[r][f]], members[r])
			}
		}
		if len(byValue) < 2 {
			continue
		}
		values := make([]int64, 0, len(byValue))
		for v := range byValue {
			values = append(values, v)
		}
		slices.SortFunc(values, func(a, b int64) int { return byValue[a][0] - byValue[b][0] })
		var who []string
		for _, v := range values {
			who = append(who, fmt.Sprintf("%s on %s", showArg(name, v), ranks(byValue[v])))
		}
		if len(unknown) > 0 {
			who = append(who, "unknown on "+ranks(unknown))
		}
		parts = append(parts, name+": "+strings.Join(who, "; "))
	}
	if len(parts) > 0 {
		return strings.Join(parts, ". ")
	}
	if len(unknown) > 0 {
		return "which argument is not known: the arguments of " + ranks(unknown) + " are unknown"
	}
	return "which argument is not known: their records agree"
}

// ranks writes world PEs as "PE 0" or "PEs 1, 3".
func ranks(pes []int) string {
	s := make([]string, len(pes))
	for i, pe := range pes {
		s[i] = fmt.Sprint(pe)
	}
	if len(pes) == 1 {
		return "PE " + s[0]
	}
	return "PEs " + strings.Join(s, ", ")
}

// showArg writes value v of the argument name.
func showArg(name string, v int64) string {
	switch name {
	case "collective":
		return syncKind(v).String()
	case "operator":
		if v == 0 {
			return "none"
		}
		return ReduceOp(v).String()
	case "form":
		// A device collective's: blocking from Go, where the stream's and
		// the kernel's forms take one phase (abi.CollBlocking).
		if v != 0 {
			return "blocking"
		}
		return "on a stream or in a kernel"
	case "element type":
		if v == 0 {
			return "none"
		}
		names := [...]string{"", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "int", "uint", "uintptr", "float32", "float64", "complex64", "complex128"}
		if v > 0 && v < int64(len(names)) {
			return names[v]
		}
		return fmt.Sprintf("a %d-byte type", v-1000)
	}
	return fmt.Sprint(v)
}
