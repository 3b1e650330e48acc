package device

// Ptr is a device address in the unified address space of the GPUs of
// one process.
type Ptr uintptr
