//go:build !cuda

package cuda

import (
	"context"
	"fmt"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/pgas/driver"
)

func init() { pgas.Register("cuda", backend{}) }

type backend struct{}

func (backend) Open(context.Context, driver.Config) (driver.Transport, error) {
	return nil, fmt.Errorf("cuda backend: %w", device.ErrNoCUDA)
}
