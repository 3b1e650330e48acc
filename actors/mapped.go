package actors

import "github.com/symchan/symchan/pgas"

// stillMapped returns pgas's error for words once their world has ended
// (pgas.ErrWorldEnded) or they were freed, where this PE reads them directly
// (local non-nil: host memory). pgas checks its own calls, but a direct
// read of a partition unmapped at the world's end faults the process, so
// the receive paths ask before they read. Elsewhere it costs nothing: the
// pgas calls those paths make check for themselves.
func stillMapped(pe *pgas.PE, words pgas.Sym[uint64], local []uint64) error {
	if local == nil || pgas.AddrAccessible(pe, words, pe.ID()) {
		return nil
	}
	_, err := pgas.Local(pe, words) // the reason, as pgas says it
	return err
}
