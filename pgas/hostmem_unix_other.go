//go:build unix && !linux

package pgas

const mapNoReserve = 0

// MachineMemory is the machine's physical memory in bytes (0 if unknown).
func MachineMemory() int64 { return 0 }

func adviseHuge([]byte) {}
