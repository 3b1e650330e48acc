package conformance

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

type reading struct {
	Seq    uint64
	From   int32
	Values [5]float32
}

func (ck *kit) testChanRing(t *testing.T) {
	for _, n := range []int{1, 2, 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
				ch := must(actors.NewChan[reading](ctx, pe))
				me, next, prev := pe.ID(), (pe.ID()+1)%n, (pe.ID()+n-1)%n
				for i := range 300 {
					check(ch.Send(ctx, next, reading{Seq: uint64(i), From: int32(me), Values: [5]float32{float32(i)}}))
					v, from, err := ch.RecvFrom(ctx)
					if err != nil {
						return err
					}
					if from != prev || v.From != int32(prev) || v.Seq != uint64(i) || v.Values[0] != float32(i) {
						return fmt.Errorf("message %d: got %+v from %d", i, v, from)
					}
				}
				return nil
			})
		})
	}
}

// Per-sender FIFO and exactly-once delivery with few slots per sender and
// a slow receiver: senders run out of credit for long stretches (and with
// K = 1 or 3, credit batches of K/2 round oddly).
func (ck *kit) testChanBackpressureFIFO(t *testing.T) {
	for _, k := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(k), func(t *testing.T) { ck.backpressureFIFO(t, k) })
	}
}

// A Chan with fewer lanes than PEs (actors.Lanes): the senders that
// claim a receiver's lanes first deliver everything, in order and once,
// through slots they run out of (one per lane); every other sender's
// first Send fails with ErrNoLane having sent nothing; every Close reaches
// the receiver, which ends with ErrClosed after the last message.
func (ck *kit) testChanLanesClaimed(t *testing.T) {
	const n, lanes, per = 6, 3, 200
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		ch := must(actors.NewChan[uint64](ctx, pe, actors.Lanes(lanes), actors.Slots(1)))
		refused := must(pgas.AllocZeroed[uint64](ctx, pe, 1)) // on PE 0: senders refused
		check(pe.Barrier(ctx))
		if pe.ID() != 0 {
			for i := range uint64(per) {
				err := ch.Send(ctx, 0, uint64(pe.ID())<<32|i)
				if errors.Is(err, actors.ErrNoLane) && i == 0 {
					check(pgas.AtomicAdd(pe, refused, 1, 0))
					break
				}
				check(err)
			}
			check(ch.Close(ctx))
			return pe.Barrier(ctx)
		}
		check(ch.Close(ctx))
		next := map[int]uint64{}
		for {
			v, from, err := ch.RecvFrom(ctx)
			if errors.Is(err, actors.ErrClosed) {
				break
			}
			check(err)
			if int(v>>32) != from || v&(1<<32-1) != next[from] {
				return fmt.Errorf("from PE %d: %#x, want message %d", from, v, next[from])
			}
			next[from]++
		}
		if len(next) != lanes {
			return fmt.Errorf("messages from %d senders, want %d", len(next), lanes)
		}
		for from, c := range next {
			if c != per {
				return fmt.Errorf("%d messages from PE %d, want %d", c, from, per)
			}
		}
		check(pe.Barrier(ctx)) // every sender's refusal counted
		if r := must(pgas.AtomicFetch(pe, refused, 0)); r != n-1-lanes {
			return fmt.Errorf("%d senders refused with ErrNoLane, want %d", r, n-1-lanes)
		}
		return nil
	})
}

func (ck *kit) backpressureFIFO(t *testing.T, k int) {
	const n, per = 4, 400
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		ch := must(actors.NewChan[uint64](ctx, pe, actors.Slots(k)))
		if pe.ID() != 0 {
			for i := range uint64(per) {
				check(ch.Send(ctx, 0, uint64(pe.ID())<<32|i))
			}
			return nil
		}
		next := make([]uint64, n)
		for i := range (n - 1) * per {
			if i%50 == 0 {
				time.Sleep(2 * time.Millisecond) // slow receiver
			}
			v, from, err := ch.RecvFrom(ctx)
			if err != nil {
				return err
			}
			if int(v>>32) != from || v&0xffffffff != next[from] {
				return fmt.Errorf("from PE %d: got seq %d, want %d", from, v&0xffffffff, next[from])
			}
			next[from]++
		}
		if _, ok, _ := ch.TryRecv(); ok {
			return fmt.Errorf("a message more than was sent")
		}
		return nil
	})
}

// Fan-in: 64 PEs send to one.
func (ck *kit) testChanFanIn64(t *testing.T) {
	const n, per = 64, 50
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		ch := must(actors.NewChan[[2]int32](ctx, pe, actors.Slots(4), actors.SlotSize(64)))
		if pe.ID() != 0 {
			for i := range per {
				check(ch.Send(ctx, 0, [2]int32{int32(pe.ID()), int32(i)}))
			}
			return nil
		}
		next := make([]int32, n)
		for range (n - 1) * per {
			v := must(ch.Recv(ctx))
			if v[1] != next[v[0]] {
				return fmt.Errorf("from PE %d: seq %d, want %d", v[0], v[1], next[v[0]])
			}
			next[v[0]]++
		}
		return nil
	})
}

func pattern(n, seed int) []byte {
	b := make([]byte, n)
	x := uint32(seed*2654435761 + 1)
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// Messages from 0 B to 64 MiB, chunked through 1 KiB slots, arrive whole
// (sizes at the edges of a slot's 1000 payload bytes, of the 48 a wait on
// GPUs fetches with the word, and, for backends that carry up to 32 bytes
// beside the slot word, of those).
func (ck *kit) testMailboxLargeMessages(t *testing.T) {
	sizes := []int{0, 1, 32, 33, 48, 49, 999, 1000, 1001, 1032, 1033, 4096, 1 << 20, 64 << 20}
	if testing.Short() {
		sizes = sizes[:len(sizes)-1]
	}
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		mb := must(actors.NewMailbox(ctx, pe))
		if pe.ID() == 0 {
			for i, n := range sizes {
				check(mb.Send(ctx, 1, pattern(n, i)))
			}
			return nil
		}
		for i, n := range sizes {
			m := must(mb.Recv(ctx))
			if m.From != 0 || len(m.Data) != n || crc32.ChecksumIEEE(m.Data) != crc32.ChecksumIEEE(pattern(n, i)) {
				return fmt.Errorf("message %d: %d bytes from %d, want %d bytes intact", i, len(m.Data), m.From, n)
			}
		}
		return nil
	})
}

func (ck *kit) testChanCodecs(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		s := must(actors.NewChanCodec[string](ctx, pe, actors.StringCodec{}))
		// Types that are not plain need a codec: every PE gets the error.
		if _, err := actors.NewChan[[]int](ctx, pe); !errors.Is(err, actors.ErrNoCodec) {
			return fmt.Errorf("NewChan[[]int] without a codec: %v", err)
		}
		// (A codec of another type does not compile.) A nil one is an
		// immediate error on every PE.
		if _, err := actors.NewChanCodec[string](ctx, pe, nil); !errors.Is(err, actors.ErrBadArg) {
			return fmt.Errorf("NewChanCodec with a nil codec: %v", err)
		}
		msg := fmt.Sprintf("hello from %d, %s", pe.ID(), string(pattern(3000, 1)))
		check(s.Send(ctx, 1-pe.ID(), msg))
		got := must(s.Recv(ctx))
		if want := fmt.Sprintf("hello from %d, %s", 1-pe.ID(), string(pattern(3000, 1))); got != want {
			return fmt.Errorf("got %q…", got[:20])
		}
		return nil
	})
}

// Close: the Go channel semantics the package documents.
func (ck *kit) testChanClose(t *testing.T) {
	const n = 3
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		ch := must(actors.NewChan[int](ctx, pe))
		for to := range n {
			check(ch.Send(ctx, to, pe.ID()*10+to))
		}
		check(ch.Close(ctx))
		if err := ch.Send(ctx, 0, 1); !errors.Is(err, actors.ErrClosed) {
			return fmt.Errorf("Send after Close: %v", err)
		}
		if err := ch.Close(ctx); !errors.Is(err, actors.ErrClosed) {
			return fmt.Errorf("second Close: %v", err)
		}
		got := map[int]bool{}
		for {
			v, err := ch.Recv(ctx)
			if errors.Is(err, actors.ErrClosed) {
				if v != 0 {
					return fmt.Errorf("Recv on a closed Chan returned %d", v)
				}
				break
			}
			if err != nil {
				return err
			}
			got[v] = true
		}
		for from := range n {
			if !got[from*10+pe.ID()] {
				return fmt.Errorf("message from %d lost; got %v", from, got)
			}
		}
		if len(got) != n {
			return fmt.Errorf("got %v", got)
		}
		if _, err := ch.Recv(ctx); !errors.Is(err, actors.ErrClosed) {
			return fmt.Errorf("Recv again after drain: %v", err)
		}
		return nil
	})
}

// The <-chan view works in select and closes after close and drain.
func (ck *kit) testChanView(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		ch := must(actors.NewChan[int](ctx, pe))
		for i := range 10 {
			check(ch.Send(ctx, 1-pe.ID(), i))
		}
		check(ch.Close(ctx))
		view := ch.C()
		if _, err := ch.Recv(ctx); !errors.Is(err, actors.ErrBusy) {
			return fmt.Errorf("Recv while the view receives: %v", err)
		}
		want := 0
		timeout := time.After(10 * time.Second)
		for {
			select {
			case v, ok := <-view:
				if !ok {
					if want != 10 || !errors.Is(ch.Err(), actors.ErrClosed) {
						return fmt.Errorf("view closed after %d values, Err %v", want, ch.Err())
					}
					return nil
				}
				if v != want {
					return fmt.Errorf("view gave %d, want %d", v, want)
				}
				want++
			case <-timeout:
				return fmt.Errorf("view stuck after %d values", want)
			}
		}
	})
}

func (ck *kit) testTrySendTryRecv(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		ch := must(actors.NewChan[int64](ctx, pe, actors.Slots(3)))
		mb := must(actors.NewMailbox(ctx, pe, actors.Slots(2), actors.SlotSize(64)))
		idle := must(actors.NewChan[int64](ctx, pe)) // nobody sends on it
		if pe.ID() == 0 {
			for i := range 3 {
				check(ch.TrySend(1, int64(i)))
			}
			if err := ch.TrySend(1, 99); !errors.Is(err, actors.ErrFull) {
				return fmt.Errorf("TrySend to a full inbox: %v", err)
			}
			// A message of 3 chunks cannot go with 2 slots free: ErrFull,
			// and nothing of it is sent.
			if err := mb.TrySend(1, make([]byte, 100)); !errors.Is(err, actors.ErrFull) {
				return fmt.Errorf("TrySend of 3 chunks into 2 slots: %v", err)
			}
			check(mb.TrySend(1, []byte("ok")))
			return pe.Barrier(ctx)
		}
		// Not on ch before the barrier: a receive there could free slots
		// between PE 0's TrySends and make the fourth one succeed.
		if v, ok, err := idle.TryRecv(); ok || err != nil {
			return fmt.Errorf("TryRecv on an inbox nobody sends to: %d, %v, %v", v, ok, err)
		}
		check(pe.Barrier(ctx))
		for i := range 3 {
			v, err := ch.Recv(ctx)
			if err != nil || v != int64(i) {
				return fmt.Errorf("Recv %d: %d, %v", i, v, err)
			}
		}
		if _, ok, err := ch.TryRecv(); ok || err != nil {
			return fmt.Errorf("TryRecv on an empty inbox: ok=%v err=%v", ok, err)
		}
		m, ok, err := mb.TryRecv()
		if !ok || err != nil || string(m.Data) != "ok" {
			return fmt.Errorf("mailbox TryRecv: %q %v %v", m.Data, ok, err)
		}
		return nil
	})
}

// A Send waiting for credit ends with its context and writes nothing; a
// chunked Send cut short is discarded whole by the receiver.
func (ck *kit) testSendCancellation(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		mb := must(actors.NewMailbox(ctx, pe, actors.Slots(2), actors.SlotSize(64)))
		if pe.ID() == 0 {
			check(mb.Send(ctx, 1, []byte("a")))
			check(mb.Send(ctx, 1, []byte("b")))
			c, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
			err := mb.Send(c, 1, []byte("never"))
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("Send without credit: %v", err)
			}
			check(pe.Barrier(ctx)) // 1: the receiver may start
			check(pe.Barrier(ctx)) // 2: it took a and b
			// 4 chunks with 2 slots: the first two go, then the deadline.
			c, cancel = context.WithTimeout(ctx, 30*time.Millisecond)
			err = mb.Send(c, 1, pattern(190, 7))
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("chunked Send without credit: %v", err)
			}
			check(pe.Barrier(ctx)) // 3
			check(pe.Barrier(ctx)) // 4
			return mb.Send(ctx, 1, []byte("after"))
		}
		check(pe.Barrier(ctx)) // 1
		for _, want := range []string{"a", "b"} {
			if m := must(mb.Recv(ctx)); string(m.Data) != want {
				return fmt.Errorf("got %q, want %q", m.Data, want)
			}
		}
		check(pe.Barrier(ctx)) // 2
		check(pe.Barrier(ctx)) // 3
		c, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		m, err := mb.Recv(c) // only half a message is there
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("Recv of half a message: %q, %v", m.Data, err)
		}
		check(pe.Barrier(ctx)) // 4
		if m := must(mb.Recv(ctx)); string(m.Data) != "after" {
			return fmt.Errorf("after a cut message: got %q", m.Data)
		}
		return nil
	})
}

func (ck *kit) testActorsBadInput(t *testing.T) {
	var kept atomic.Pointer[actors.Chan[int]] // a Chan of one PE of this process
	var keptFuture atomic.Pointer[actors.Future[int]]
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		ch := must(actors.NewChan[int](ctx, pe))
		keptFuture.Store(must(actors.NewFuture[int](must(actors.NewSystem(ctx, pe)))))
		mb := must(actors.NewMailbox(ctx, pe, actors.MaxMessage(100)))
		kept.Store(ch)
		for name, err := range map[string]error{
			"PE -1":     ch.Send(ctx, -1, 1),
			"PE 2":      ch.Send(ctx, 2, 1),
			"TrySend 5": ch.TrySend(5, 1),
		} {
			if !errors.Is(err, actors.ErrBadPE) {
				return fmt.Errorf("%s: %v", name, err)
			}
		}
		if err := mb.Send(ctx, 1-pe.ID(), make([]byte, 101)); !errors.Is(err, actors.ErrTooLarge) {
			return fmt.Errorf("oversize: %v", err)
		}
		// Nothing was written: the first message each PE gets is this one.
		check(mb.Send(ctx, 1-pe.ID(), []byte("x")))
		if m := must(mb.Recv(ctx)); string(m.Data) != "x" {
			return fmt.Errorf("got %q", m.Data)
		}
		for _, bad := range []actors.MailboxOption{actors.Slots(0), actors.SlotSize(20), actors.SlotSize(1001), actors.MaxMessage(-1), nil} {
			if _, err := actors.NewMailbox(ctx, pe, bad); !errors.Is(err, actors.ErrBadArg) {
				return fmt.Errorf("bad option: %v, want ErrBadArg", err)
			}
		}
		for _, bad := range []actors.SystemOption{actors.Futures(0), actors.ReplySize(0), nil} {
			if _, err := actors.NewSystem(ctx, pe, bad); !errors.Is(err, actors.ErrBadArg) {
				return fmt.Errorf("bad option: %v, want ErrBadArg", err)
			}
		}
		return nil
	})
	// Kept past the end of its world, a Chan or Future fails cleanly: on
	// the host backend its memory is unmapped by then, and the receive
	// paths, which read it directly, must not touch it.
	ch, ctx := kept.Load(), context.Background()
	_, _, tryErr := ch.TryRecv()
	_, recvErr := ch.Recv(ctx)
	_, awaitErr := keptFuture.Load().Await(ctx)
	for range ch.C() {
		t.Errorf("C after the world ended delivered a value")
	}
	for name, err := range map[string]error{
		"Send":    ch.Send(ctx, 1, 1),
		"TrySend": ch.TrySend(1, 1),
		"TryRecv": tryErr,
		"Recv":    recvErr,
		"Close":   ch.Close(ctx),
		"Await":   awaitErr,
		"C's Err": ch.Err(),
	} {
		if !errors.Is(err, pgas.ErrWorldEnded) {
			t.Errorf("%s after the world ended: %v, want pgas.ErrWorldEnded", name, err)
		}
	}
}

// A PE that fails ends the others' blocked Sends and Recvs with an error
// naming it.
func (ck *kit) testActorsPeerFailure(t *testing.T) {
	n := ck.perProcess(3) // one PE per process: the failure crosses processes
	failing := n - 1
	wrong := make([]error, n) // a blocked call's result, if it does not name the failed PE
	err := ck.runErr(t, n, func(ctx context.Context, pe *pgas.PE) error {
		ch := must(actors.NewChan[int](ctx, pe, actors.Slots(1)))
		var err error
		switch {
		case pe.ID() == failing:
			time.Sleep(20 * time.Millisecond)
			return fmt.Errorf("PE %d gives up", failing)
		case pe.ID() == 1: // blocks on credit: the failing PE never receives
			check(ch.Send(context.Background(), failing, 1))
			err = ch.Send(context.Background(), failing, 2)
		default: // blocks in Recv
			_, err = ch.Recv(context.Background())
		}
		if pf := (*pgas.PEError)(nil); !errors.As(err, &pf) || pf.PE != failing {
			wrong[pe.ID()] = fmt.Errorf("blocked call returned %v", err)
		}
		return err
	})
	var pf *pgas.PEError
	if !errors.As(err, &pf) {
		t.Fatalf("Run: %v", err)
	}
	for i, e := range wrong {
		if e != nil {
			t.Errorf("PE %d: %v, want an error naming PE %d", i, e, failing)
		}
	}
}
