package host

import "github.com/symchan/symchan/pgas/driver"

// The parts of the backend contract (package driver) the host backend
// implements, checked at compile time.
var (
	_ driver.Backend          = Backend{}
	_ driver.DefaultSizer     = Backend{}
	_ driver.Transport        = (*hostTransport)(nil)
	_ driver.ParkTransport    = (*hostTransport)(nil)
	_ driver.StridedTransport = (*hostTransport)(nil)
	_ driver.ClaimTransport   = (*hostTransport)(nil)
)
