package actors

import (
	"unsafe"

	"github.com/symchan/symchan/pgas"
)

// cacheLine is the span of memory that moves between cores as one unit.
const cacheLine = 64

// isolated returns a slice of n zero T whose elements share no cache line
// with any other allocation. Each PE writes its mailbox state on every
// message from its own core; small slices of two PEs that the allocator
// happened to place side by side would otherwise bounce one line between
// the cores on every hop (false sharing).
func isolated[T any](n int) []T {
	var z T
	pad := cacheLine / max(1, int(unsafe.Sizeof(z)))
	s := make([]T, n+2*pad+1)
	return s[pad : pad+n : pad+n]
}

// A slot word's line (see signalWords): the word, then the slot's
// header and up to lineCap payload bytes.
const (
	lineWords = cacheLine / 8
	lineCap   = cacheLine - 8 - headerSize

	replyLineCap = cacheLine - 16 // a reply beside its word and length
)

// lines reports whether pe's mailboxes and systems give each signal word
// a line: where its partition is host memory, read in place, and the
// backend parks a reader until a write lands there (pgas.Park).
func lines(pe *pgas.PE) bool { return pe.HostMemory() && pgas.CanPark(pe) }

// wordBytes views words as bytes.
func wordBytes(w []uint64) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(w))), len(w)*8)
}

// asWords views b, 8-byte aligned and a multiple of 8 bytes long, as
// words.
func asWords(b []byte) []uint64 {
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/8)
}
