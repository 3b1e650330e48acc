//go:build !cuda

package nvshmem

import (
	"fmt"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

func init() { pgas.Register("nvshmem", backend{}) }

type backend struct{}

func (backend) Open(pgas.Config) (pgas.Transport, error) {
	return nil, fmt.Errorf("nvshmem backend: %w", device.ErrNoCUDA)
}
