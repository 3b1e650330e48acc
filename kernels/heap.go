package kernels

import "encoding/binary"

// heapHeaderSize is sizeof(struct symchan_heap): the header, after which
// HeapDescriptor places the base array.
const heapHeaderSize = 32

// HeapDescriptorSize is the bytes of the heap descriptor of a world of n
// PEs: struct symchan_heap and its base array of n addresses.
func HeapDescriptorSize(n int) int64 { return heapHeaderSize + 8*int64(n) }

// HeapDescriptor encodes struct symchan_heap (little endian), followed by
// its base array, for PE pe of len(bases) PEs whose partitions of size
// bytes start at the device addresses bases (0 for a partition the GPU
// cannot address), to be copied to device address at
// (HeapDescriptorSize(len(bases)) bytes). Any number of PEs fits.
func HeapDescriptor(at uint64, bases []uint64, size int64, pe int) []byte {
	b := make([]byte, HeapDescriptorSize(len(bases)))
	binary.LittleEndian.PutUint64(b[0:], at+heapHeaderSize)
	binary.LittleEndian.PutUint64(b[8:], bases[pe])
	binary.LittleEndian.PutUint64(b[16:], uint64(size))
	binary.LittleEndian.PutUint32(b[24:], uint32(pe))
	binary.LittleEndian.PutUint32(b[28:], uint32(len(bases)))
	for i, p := range bases {
		binary.LittleEndian.PutUint64(b[heapHeaderSize+8*i:], p)
	}
	return b
}
