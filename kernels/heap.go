package kernels

import "encoding/binary"

// MaxPEs is SYMCHAN_MAX_PES of symchan.cuh: the most PEs a heap
// descriptor holds.
const MaxPEs = 64

// HeapDescriptorSize is sizeof(struct symchan_heap).
const HeapDescriptorSize = MaxPEs*8 + 16

// HeapDescriptor encodes struct symchan_heap (little endian) for PE pe of
// len(bases) PEs whose partitions of size bytes start at the device
// addresses bases (0 for a partition the GPU cannot address). It panics
// if len(bases) > MaxPEs.
func HeapDescriptor(bases []uint64, size int64, pe int) []byte {
	if len(bases) > MaxPEs {
		panic("kernels: heap descriptor of more than MaxPEs PEs")
	}
	b := make([]byte, HeapDescriptorSize)
	for i, p := range bases {
		binary.LittleEndian.PutUint64(b[8*i:], p)
	}
	binary.LittleEndian.PutUint64(b[MaxPEs*8:], uint64(size))
	binary.LittleEndian.PutUint32(b[MaxPEs*8+8:], uint32(pe))
	binary.LittleEndian.PutUint32(b[MaxPEs*8+12:], uint32(len(bases)))
	return b
}
