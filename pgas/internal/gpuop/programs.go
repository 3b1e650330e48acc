package gpuop

import (
	"sync"

	"github.com/symchan/symchan/device"
)

// Programs are the kernel programs loaded in one GPU context (or one
// process's, on the nvshmem backend), by name, so that each loads once
// however many PEs share the context (pgas.GPU.Load).
type Programs struct {
	mu   sync.Mutex
	mods map[string]*device.Module
}

// Load returns the module of the program called name, loading it with
// load on first use. A failed load is not remembered: the next call tries
// again.
func (p *Programs) Load(name string, load func() (*device.Module, error)) (*device.Module, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m, ok := p.mods[name]; ok {
		return m, nil
	}
	m, err := load()
	if err != nil {
		return nil, err
	}
	if p.mods == nil {
		p.mods = map[string]*device.Module{}
	}
	p.mods[name] = m
	return m, nil
}
