package actors

import "unsafe"

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
