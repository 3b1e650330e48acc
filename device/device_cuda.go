//go:build cuda

package device

import (
	"fmt"

	"gorgonia.org/cu"
)

// Count returns the number of GPUs the driver sees.
func Count() (int, error) {
	n, err := cu.NumDevices()
	if err != nil {
		return 0, fmt.Errorf("device: count: %w", err)
	}
	return n, nil
}

func get(ordinal int) (cu.Device, error) {
	n, err := Count()
	if err != nil {
		return 0, err
	}
	if ordinal < 0 || ordinal >= n {
		return 0, fmt.Errorf("device: GPU %d not in [0, %d)", ordinal, n)
	}
	d, err := cu.GetDevice(ordinal)
	if err != nil {
		return 0, fmt.Errorf("device: GPU %d: %w", ordinal, err)
	}
	return d, nil
}

// Describe returns what the driver reports about GPU ordinal.
func Describe(ordinal int) (Info, error) {
	d, err := get(ordinal)
	if err != nil {
		return Info{}, err
	}
	info := Info{Ordinal: ordinal}
	if info.Name, err = d.Name(); err != nil {
		return info, fmt.Errorf("device: GPU %d name: %w", ordinal, err)
	}
	if info.TotalMem, err = d.TotalMem(); err != nil {
		return info, fmt.Errorf("device: GPU %d memory: %w", ordinal, err)
	}
	if info.Major, info.Minor, err = d.ComputeCapability(); err != nil {
		return info, fmt.Errorf("device: GPU %d compute capability: %w", ordinal, err)
	}
	if info.SMs, err = d.Attribute(cu.MultiprocessorCount); err != nil {
		return info, fmt.Errorf("device: GPU %d multiprocessors: %w", ordinal, err)
	}
	return info, nil
}

// CanAccessPeer reports whether GPU a can map GPU b's memory (peer
// access over NVLink or PCIe).
func CanAccessPeer(a, b int) (bool, error) {
	da, err := get(a)
	if err != nil {
		return false, err
	}
	db, err := get(b)
	if err != nil {
		return false, err
	}
	ok, err := da.CanAccessPeer(db)
	if err != nil {
		return false, fmt.Errorf("device: peer access %d→%d: %w", a, b, err)
	}
	return ok != 0, nil
}
