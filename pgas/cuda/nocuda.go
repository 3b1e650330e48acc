//go:build !cuda

package cuda

import (
	"fmt"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

func init() { pgas.Register("cuda", backend{}) }

type backend struct{}

func (backend) Open(pgas.Config) (pgas.Transport, error) {
	return nil, fmt.Errorf("cuda backend: %w", device.ErrNoCUDA)
}
