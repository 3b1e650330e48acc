package pgas

import (
	"fmt"
	"sort"
	"sync"

	"github.com/symchan/symchan/pgas/driver"
	"github.com/symchan/symchan/pgas/host"
)

var (
	backendsMu sync.RWMutex
	backends   = map[string]driver.Backend{}
)

// Register makes a backend available under name, as database/sql.Register
// does for drivers: backend packages call it from an init function, and a
// program selects one by importing the package and naming it in
// [Config.Backend] or SYMCHAN_BACKEND. It panics if name is taken or b is
// nil. The contract a backend implements is package pgas/driver.
func Register(name string, b driver.Backend) {
	backendsMu.Lock()
	defer backendsMu.Unlock()
	if b == nil {
		panic("pgas: Register backend is nil")
	}
	if _, dup := backends[name]; dup {
		panic("pgas: Register called twice for backend " + name)
	}
	backends[name] = b
}

// Backends returns the sorted names of the registered backends.
func Backends() []string {
	backendsMu.RLock()
	defer backendsMu.RUnlock()
	names := make([]string, 0, len(backends))
	for n := range backends {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func lookupBackend(name string) (driver.Backend, error) {
	backendsMu.RLock()
	b, ok := backends[name]
	backendsMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("pgas: unknown backend %q (registered: %v; GPU backends need their package imported and a binary built with -tags cuda)", name, Backends())
	}
	return b, nil
}

// The host backend is built in and the default.
func init() { Register(DefaultBackend, host.Backend{}) }
