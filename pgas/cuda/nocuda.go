//go:build !cuda

package cuda

import (
	"context"
	"fmt"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas/driver"
)

// Open returns device.ErrNoCUDA: the cuda backend needs a binary built
// with the build tag cuda.
func (Backend) Open(context.Context, driver.Config) (driver.Transport, error) {
	return nil, fmt.Errorf("cuda backend: %w", device.ErrNoCUDA)
}
