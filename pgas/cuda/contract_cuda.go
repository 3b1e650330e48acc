//go:build cuda

package cuda

import "github.com/symchan/symchan/pgas/driver"

// The parts of the backend contract (package driver) the cuda backend
// implements, checked at compile time.
var (
	_ driver.Backend            = Backend{}
	_ driver.Transport          = (*transport)(nil)
	_ driver.GPUTransport       = (*transport)(nil)
	_ driver.StreamTransport    = (*transport)(nil)
	_ driver.AbortTransport     = (*transport)(nil)
	_ driver.ClaimTransport     = (*transport)(nil)
	_ driver.UnorderedTransport = (*transport)(nil)
	_ driver.StridedTransport   = (*transport)(nil)
	_ driver.RegisterTransport  = (*transport)(nil)
	_ driver.Stream             = (*stream)(nil)
)
