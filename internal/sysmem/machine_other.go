//go:build !linux

package sysmem

// Machine is the machine's physical memory in bytes (0 if unknown).
func Machine() int64 { return 0 }
