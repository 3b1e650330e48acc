package device

// Ptr is a device address in the unified address space of the GPUs of
// one process.
type Ptr uintptr

// Dim3 is a grid or block shape; a zero Y or Z means 1.
type Dim3 struct{ X, Y, Z int }

// D1 is the shape n × 1 × 1.
func D1(n int) Dim3 { return Dim3{n, 1, 1} }

// MaxPitch is the largest row pitch Stream.CopyIn2D and CopyOut2D take
// (CU_DEVICE_ATTRIBUTE_MAX_PITCH of current GPUs); strided transfers with
// longer rows go element by element.
const MaxPitch = 1<<31 - 1
