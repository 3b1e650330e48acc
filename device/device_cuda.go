//go:build cuda

package device

// #include <cuda.h>
import "C"

import "fmt"

// Count returns the number of GPUs the driver sees.
func Count() (int, error) {
	n, err := deviceCount()
	if err != nil {
		return 0, fmt.Errorf("device: count: %w", err)
	}
	return n, nil
}

func get(ordinal int) (C.CUdevice, error) {
	n, err := Count()
	if err != nil {
		return 0, err
	}
	if ordinal < 0 || ordinal >= n {
		return 0, fmt.Errorf("device: GPU %d not in [0, %d)", ordinal, n)
	}
	d, err := deviceGet(ordinal)
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
	if info.Name, err = deviceName(d); err != nil {
		return info, fmt.Errorf("device: GPU %d name: %w", ordinal, err)
	}
	if info.TotalMem, err = deviceTotalMem(d); err != nil {
		return info, fmt.Errorf("device: GPU %d memory: %w", ordinal, err)
	}
	if info.Major, err = deviceAttribute(d, C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR); err == nil {
		info.Minor, err = deviceAttribute(d, C.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
	}
	if err != nil {
		return info, fmt.Errorf("device: GPU %d compute capability: %w", ordinal, err)
	}
	if info.SMs, err = deviceAttribute(d, C.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT); err != nil {
		return info, fmt.Errorf("device: GPU %d multiprocessors: %w", ordinal, err)
	}
	return info, nil
}

// DriverVersion is the CUDA driver's version (cuDriverGetVersion: 1000 ×
// major + 10 × minor).
func DriverVersion() (int, error) {
	if err := driverInit(); err != nil {
		return 0, err
	}
	var v C.int
	if err := check("cuDriverGetVersion", C.cuDriverGetVersion(&v)); err != nil {
		return 0, err
	}
	return int(v), nil
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
	ok, err := canAccessPeer(da, db)
	if err != nil {
		return false, fmt.Errorf("device: peer access %d→%d: %w", a, b, err)
	}
	return ok, nil
}
