//go:build !cuda

package nvshmem

import (
	"context"
	"fmt"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas/driver"
)

// Open returns device.ErrNoCUDA: the nvshmem backend needs a binary built
// with the build tag cuda.
func (Backend) Open(context.Context, driver.Config) (driver.Transport, error) {
	return nil, fmt.Errorf("nvshmem backend: %w", device.ErrNoCUDA)
}

// Finalize ends NVSHMEM in this process, for a program about to exit
// (with the cuda build tag; here no NVSHMEM ever starts, and it returns
// nil).
func Finalize() error { return nil }
