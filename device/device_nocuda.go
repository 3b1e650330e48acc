//go:build !cuda

package device

// Count returns the number of GPUs the driver sees.
func Count() (int, error) { return 0, ErrNoCUDA }

// Describe returns what the driver reports about GPU ordinal.
func Describe(ordinal int) (Info, error) { return Info{}, ErrNoCUDA }

// CanAccessPeer reports whether GPU a can map GPU b's memory (peer
// access over NVLink or PCIe).
func CanAccessPeer(a, b int) (bool, error) { return false, ErrNoCUDA }
