package actors

import (
	"testing"

	"github.com/symchan/symchan/internal/abi"
)

// The kernel actor's state is where symchan.cuh looks for it: the
// receiving state right after the 128-byte struct, the sending state
// after room for at least SYMCHAN_LOCAL_PES (64) senders
// (symchan_actor_out's fixed offset in small worlds), then a bit per
// sender; nothing caps n.
func TestActorLayout(t *testing.T) {
	for _, tc := range []struct {
		n, out, closed, size int
	}{
		{2, 128 + 1024, 128 + 2048, 128 + 2048 + 8},
		{64, 128 + 1024, 128 + 2048, 128 + 2048 + 8},
		{65, 128 + 16*65, 128 + 32*65, 128 + 32*65 + 16},
		{1024, 128 + 16*1024, 128 + 32*1024, 128 + 32*1024 + 8*16},
	} {
		l := actorLayout{tc.n}
		if l.inOff() != abi.SizeofActor || l.outOff() != tc.out || l.closedOff() != tc.closed || l.size() != tc.size {
			t.Errorf("n=%d: in %d out %d closed %d size %d; want 128 %d %d %d", tc.n, l.inOff(), l.outOff(), l.closedOff(), l.size(), tc.out, tc.closed, tc.size)
		}
		if last := l.inUnpaid(tc.n - 1); last+8 > l.outOff() {
			t.Errorf("n=%d: the receiving state runs into the sending state (%d > %d)", tc.n, last+8, l.outOff())
		}
	}
}
