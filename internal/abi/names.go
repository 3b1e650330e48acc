package abi

// RemoteAtomic is NVSHMEMPTX's kernel of one atomic of pgas/driver's kind
// and op on a PE through NVSHMEM (arguments: symmetric address, kind, op,
// operand, comparand, PE, and where the previous value goes).
const RemoteAtomic = "symchan_remote_atomic"

// The runtime's kernels (symchan.cu).
const (
	Atomic = "symchan_atomic"
	Wait   = "symchan_wait"
	Agent  = "symchan_agent"
	Copy   = "symchan_copy"
	// WaitOnStream holds a stream until a word compares (arguments: its
	// address, the comparison as driver.Cmp numbers it, the value, and the
	// world's abort word, whose setting ends the wait too: see
	// HeapDescriptor).
	WaitOnStream = "symchan_wait_on_stream"
	// PutSignalOnStream is a small put-with-signal on a stream, one block
	// (arguments: destination, source, bytes, the signal word's address,
	// the value, the operation as driver.SigOp numbers it).
	PutSignalOnStream = "symchan_put_signal_on_stream"
	// TeamStep runs a part of a team's collective on a stream (arguments:
	// the heap descriptor, the team's struct symchan_team, the collective
	// as Coll* numbers it, destination, source, count, the root or the
	// reduction, and the part as symchan.cu's PART_* numbers it: the
	// whole collective in one block, or its opening phase, data step on a
	// grid, closing phase, or an agreement alone, in the low 32 bits; a
	// blocking collective's number in the team in the high 32).
	TeamStep = "symchan_team_step"
	// AllToAllVStep runs a part of a team's AllToAllV (arguments: the
	// heap descriptor, the team's struct, destination, source, the four
	// layout arrays (send counts and offsets, receive counts and offsets),
	// the element size, destination's and source's elements, and the part
	// as TeamStep's).
	AllToAllVStep = "symchan_alltoallv_step"
)
