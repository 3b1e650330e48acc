package pgas

import (
	"errors"
	"slices"
)

// gpuWork is what a PE has queued on its GPU that pgas must still answer
// for: the teams of kernels Launch queued on the PE's own stream, whose
// device collectives no Stream.Sync checks, and the PE's open Streams,
// which the world's end drains before it frees what their kernels write
// (the notice page).
type gpuWork struct {
	launched []*Team   // teams given to Launch since their last check
	streams  []*Stream // open Streams (NewStream, until Close)
}

// noteLaunch records the teams among a Launch's arguments.
func (p *PE) noteLaunch(args []any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, a := range args {
		if t, ok := a.(*Team); ok && !slices.Contains(p.work.launched, t) {
			p.work.launched = append(p.work.launched, t)
		}
	}
	p.nLaunched.Store(int32(len(p.work.launched)))
}

// launchMismatch reports a device collective of a team given to Launch
// whose members' arguments differed (ErrCollectiveMismatch, as Stream.Sync
// reports its own); the next Stream.Sync and the next barrier, collective,
// allocation or free of the PE ask it. A team stays watched until the
// PE's stream has run past its kernels.
func (p *PE) launchMismatch() error {
	if p.nLaunched.Load() == 0 {
		return nil
	}
	g, err := p.GPU()
	if err != nil || g.Context() == nil {
		return nil
	}
	done, derr := g.Stream().Done() // before the checks: what ran by now is checked
	p.mu.Lock()
	teams := slices.Clone(p.work.launched)
	if derr == nil && done {
		p.work.launched = p.work.launched[:0]
		p.nLaunched.Store(0)
	}
	p.mu.Unlock()
	var errs []error
	for _, t := range teams { // without p.mu: the check reads the members' records
		errs = append(errs, t.deviceMismatch())
	}
	return errors.Join(errs...)
}

// trackStream and untrackStream keep p's open Streams.
func (p *PE) trackStream(s *Stream) {
	p.mu.Lock()
	p.work.streams = append(p.work.streams, s)
	p.mu.Unlock()
}

func (p *PE) untrackStream(s *Stream) {
	p.mu.Lock()
	if i := slices.Index(p.work.streams, s); i >= 0 {
		p.work.streams = slices.Delete(p.work.streams, i, i+1)
	}
	p.mu.Unlock()
}

// drainGPU waits, once the PE's function has returned and the world's
// waits on the GPU were ended (abortGPU), until the PE's own stream and
// its open Streams have run what was queued on them, so that no kernel of
// the PE still writes the notice page when it is freed. A kernel on a
// stream pgas does not know (one the program made itself) is the
// program's to end.
func (p *PE) drainGPU() error {
	g, err := p.GPU()
	if err != nil || g.Context() == nil {
		return nil // no GPU memory: nothing of the PE's runs there
	}
	p.mu.Lock()
	streams := slices.Clone(p.work.streams)
	p.mu.Unlock()
	var errs []error
	for _, s := range streams {
		if s.ds != nil {
			s.goGPU(func() { _ = s.ds.Sync() })
		}
	}
	errs = append(errs, g.Stream().Sync())
	return errors.Join(errs...)
}
