package actors

import (
	"fmt"

	"github.com/symchan/symchan/pgas"
)

// Ref names a region of a symmetric allocation on one PE, so that a
// message can carry a reference instead of the bytes: the receiver pulls
// them straight from the sender's partition into its own symmetric buffer
// with Fetch (on device backends, device to device, never through host
// memory). Ref is plain data: send it on a Chan.
//
// The sender must leave the region unchanged until the receiver has
// fetched it; pair the Ref with a Future's ReplyTo and reply after Fetch.
type Ref struct {
	PE  int32 // where the bytes are
	Off int64 // byte offset in the partition (the same on every PE)
	Len int64 // bytes
}

// RefOf returns a Ref to the calling PE's copy of s.
func RefOf[T any](pe *pgas.PE, s pgas.Sym[T]) Ref {
	return Ref{PE: int32(pe.ID()), Off: s.Offset(), Len: s.Bytes()}
}

// Fetch copies the bytes ref names into dst, the calling PE's copy of a
// symmetric array, which must hold at least ref.Len bytes. A Ref to the
// very bytes of dst on this PE (a message a PE sent itself) needs no copy.
func Fetch[T any](pe *pgas.PE, ref Ref, dst pgas.Sym[T]) error {
	if ref.Len > dst.Bytes() {
		return fmt.Errorf("%w: a Ref of %d bytes into a Sym of %d", ErrTooLarge, ref.Len, dst.Bytes())
	}
	src, err := pgas.Lookup[byte](pe, ref.Off, int(ref.Len))
	if err != nil {
		return fmt.Errorf("actors: Ref %+v: %w", ref, err)
	}
	if ref.Len == 0 || (int(ref.PE) == pe.ID() && ref.Off == dst.Offset()) {
		return nil
	}
	dstb, err := pgas.Lookup[byte](pe, dst.Offset(), int(ref.Len))
	if err != nil {
		return err
	}
	return pgas.GetSym(pe, dstb, src, int(ref.PE))
}
