package actors

import (
	"fmt"

	"github.com/symchan/symchan/pgas"
)

// stillMapped returns pgas's error for words once their world has ended
// (pgas.ErrWorldEnded) or they were freed, where this PE reads them directly
// (local non-nil: host memory). pgas checks its own calls, but a direct
// read of a partition unmapped at the world's end faults the process, so
// the receive paths ask before they read. Elsewhere it costs nothing: the
// pgas calls those paths make check for themselves.
func stillMapped(pe *pgas.PE, words pgas.Sym[uint64], local []uint64) error {
	if local == nil {
		return nil
	}
	_, err := pgas.Local(pe, words)
	return err
}

// peerWords returns words as this process addresses them on every PE,
// where partitions are host memory: writers that store into another PE's
// words themselves (a mailbox's sender, a replier) use them, and ring
// the spots its readers park on (see doorbells), which needs every PE in
// this process.
func peerWords(pe *pgas.PE, words pgas.Sym[uint64]) ([][]uint64, error) {
	if len(pe.World().LocalPEs()) < pe.NumPEs() {
		return nil, fmt.Errorf("%w: host-memory partitions with PEs in other processes", ErrBadArg)
	}
	all := make([][]uint64, pe.NumPEs())
	for q := range all {
		w, err := pgas.Ptr(pe, words, q)
		if err == nil && w == nil {
			err = fmt.Errorf("%w: host-memory partitions this process cannot address (PE %d's)", ErrBadArg, q)
		}
		if err != nil {
			return nil, err
		}
		all[q] = w
	}
	return all, nil
}
