package conformance

import (
	"context"
	"fmt"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// Two PEs wait on each other's stream-ordered signals 10,000 times, every
// round enqueued before either PE syncs: PE 0 signals PE 1 and waits on
// its stream for PE 1's answer; PE 1 waits, then answers. Each stream
// holds thousands of waits, each with work behind it that the other PE's
// stream needs. On the cuda backend with PEs sharing a GPU (ShareGPUs)
// the two streams are in one context, whose hardware queues
// (CUDA_DEVICE_MAX_CONNECTIONS, 8 unless the environment says otherwise)
// they may share: this is the test of issue 51's shared-context hazard,
// to run with that variable at its default.
func (ck *kit) testStreamPingPong(t *testing.T) {
	const rounds = 10_000
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		me, other := pe.ID(), 1-pe.ID()
		sig := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		st := must(pgas.NewStream(pe))
		check(pe.Barrier(ctx))
		for k := uint64(1); k <= rounds; k++ {
			if me == 1 {
				check(pgas.SignalWaitUntilOnStream(st, sig, pgas.CmpGE, k))
			}
			check(pgas.SignalOpOnStream(st, sig, k, pgas.SignalSet, other))
			if me == 0 {
				check(pgas.SignalWaitUntilOnStream(st, sig, pgas.CmpGE, k))
			}
		}
		if err := st.Sync(ctx); err != nil {
			return fmt.Errorf("%d rounds of stream-ordered waits on each other: Sync: %w", rounds, err)
		}
		got := read(pe, sig)
		if got[0] != rounds {
			return fmt.Errorf("after %d rounds the signal is %d", rounds, got[0])
		}
		check(pe.Barrier(ctx))
		return st.Close(ctx)
	})
}
