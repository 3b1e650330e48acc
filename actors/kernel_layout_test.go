package actors

import (
	"fmt"
	"strings"
	"testing"

	"github.com/symchan/symchan/kernels"
)

// The kernel actor's state is where symchan.cuh looks for it: the
// receiving state right after the 128-byte struct, the sending state
// after room for at least SYMCHAN_LOCAL_PES senders (symchan_actor_out's
// fixed offset in small worlds), then a bit per sender; nothing caps n.
func TestActorLayout(t *testing.T) {
	if want := fmt.Sprintf("#define SYMCHAN_LOCAL_PES %d\n", actorLocalPEs); !strings.Contains(kernels.Header, want) {
		t.Fatalf("symchan.cuh does not define %q", strings.TrimSpace(want))
	}
	for _, tc := range []struct {
		n, out, closed, size int
	}{
		{2, 128 + 1024, 128 + 2048, 128 + 2048 + 8},
		{64, 128 + 1024, 128 + 2048, 128 + 2048 + 8},
		{65, 128 + 16*65, 128 + 32*65, 128 + 32*65 + 16},
		{1024, 128 + 16*1024, 128 + 32*1024, 128 + 32*1024 + 8*16},
	} {
		l := actorLayout{tc.n}
		if l.inOff() != actorHeaderSize || l.outOff() != tc.out || l.closedOff() != tc.closed || l.size() != tc.size {
			t.Errorf("n=%d: in %d out %d closed %d size %d; want 128 %d %d %d", tc.n, l.inOff(), l.outOff(), l.closedOff(), l.size(), tc.out, tc.closed, tc.size)
		}
		if last := l.inUnpaid(tc.n - 1); last+8 > l.outOff() {
			t.Errorf("n=%d: the receiving state runs into the sending state (%d > %d)", tc.n, last+8, l.outOff())
		}
	}
}
