package abi

import "encoding/binary"

// HeapDescriptorSize is the bytes of the heap descriptor of a world of n
// PEs: struct symchan_heap and its base array of n addresses.
func HeapDescriptorSize(n int) int64 { return SizeofHeap + 8*int64(n) }

// HeapDescriptor encodes struct symchan_heap (little endian), followed by
// its base array, for PE pe of len(bases) PEs whose partitions of size
// bytes start at the device addresses bases (0 for a partition the GPU
// cannot address), to be copied to device address at
// (HeapDescriptorSize(len(bases)) bytes). Any number of PEs fits. abort is
// the device address of the world's abort word (mapped host memory, 0 for
// none): the runtime's waits on the device end once the host sets it
// nonzero (symchan_aborted).
func HeapDescriptor(at uint64, bases []uint64, size int64, pe int, abort uint64) []byte {
	b := make([]byte, HeapDescriptorSize(len(bases)))
	binary.LittleEndian.PutUint64(b[OffsetofHeapAbort:], abort)
	binary.LittleEndian.PutUint64(b[OffsetofHeapBase:], at+SizeofHeap)
	binary.LittleEndian.PutUint64(b[OffsetofHeapLocal:], bases[pe])
	binary.LittleEndian.PutUint64(b[OffsetofHeapSize:], uint64(size))
	binary.LittleEndian.PutUint32(b[OffsetofHeapPe:], uint32(pe))
	binary.LittleEndian.PutUint32(b[OffsetofHeapNpes:], uint32(len(bases)))
	for i, p := range bases {
		binary.LittleEndian.PutUint64(b[SizeofHeap+8*i:], p)
	}
	return b
}
