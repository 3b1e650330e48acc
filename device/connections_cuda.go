//go:build cuda

package device

import (
	"os"
	"strconv"
)

// init sets EnvMaxConnections when the process has not (see there).
func init() {
	if _, set := os.LookupEnv(EnvMaxConnections); !set {
		os.Setenv(EnvMaxConnections, strconv.Itoa(MaxConnections))
	}
}
