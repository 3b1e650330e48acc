package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

type square struct {
	X       int64
	ReplyTo actors.ReplyTo
}

// A request on a Chan carries its future's ReplyTo; the server replies.
func (ck *kit) testFutureRequestReply(t *testing.T) {
	n := ck.perProcess(4)
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		sys := must(actors.NewSystem(ctx, pe))
		reqs := must(actors.NewChan[square](ctx, pe))
		if pe.ID() == 0 { // the server
			for range (n - 1) * 20 {
				r := must(reqs.Recv(ctx))
				check(actors.Reply(sys, r.ReplyTo, r.X*r.X))
			}
			return nil
		}
		for i := range int64(20) {
			f := must(actors.NewFuture[int64](sys))
			x := int64(pe.ID())*100 + i
			check(reqs.Send(ctx, 0, square{X: x, ReplyTo: f.ReplyTo()}))
			if got := must(f.Await(ctx)); got != x*x {
				return fmt.Errorf("%d² = %d", x, got)
			}
		}
		return nil
	})
}

// A future that times out is abandoned: the late reply is dropped, written
// nowhere, and the slot's next future gets only its own reply.
func (ck *kit) testFutureTimeoutAndLateReply(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		sys := must(actors.NewSystem(ctx, pe, actors.Futures(1), actors.ReplySize(16)))
		to := must(actors.NewChan[actors.ReplyTo](ctx, pe))
		if pe.ID() == 1 {
			old := must(to.Recv(ctx))
			check(pe.Barrier(ctx)) // PE 0's future timed out
			if err := actors.ReplyCodec(sys, old, "late", actors.StringCodec{}); !errors.Is(err, actors.ErrAbandoned) {
				return fmt.Errorf("late reply: %v, want ErrAbandoned", err)
			}
			fresh := must(to.Recv(ctx))
			if err := actors.ReplyCodec(sys, fresh, "fresh", actors.StringCodec{}); err != nil {
				return err
			}
			// A second reply to the same future is dropped too.
			if err := actors.ReplyCodec(sys, fresh, "again", actors.StringCodec{}); !errors.Is(err, actors.ErrAbandoned) {
				return fmt.Errorf("second reply: %v", err)
			}
			if err := actors.ReplyCodec(sys, fresh, "this reply does not fit", actors.StringCodec{}); !errors.Is(err, actors.ErrTooLarge) {
				return fmt.Errorf("oversize reply: %v", err)
			}
			return nil
		}
		codec := actors.StringCodec{}
		f := must(actors.NewFutureCodec[string](sys, codec))
		check(to.Send(ctx, 1, f.ReplyTo()))
		c, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
		_, err := f.Await(c)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("Await with a deadline: %v", err)
		}
		check(pe.Barrier(ctx))
		// The only slot is free again (Futures(1)).
		g := must(actors.NewFutureCodec[string](sys, codec))
		if _, err := actors.NewFutureCodec[string](sys, codec); err == nil {
			return fmt.Errorf("a second outstanding future with Futures(1)")
		}
		check(to.Send(ctx, 1, g.ReplyTo()))
		if got := must(g.Await(ctx)); got != "fresh" {
			return fmt.Errorf("reused slot got %q", got)
		}
		if _, err := g.Await(ctx); err == nil {
			return fmt.Errorf("awaiting twice: no error")
		}
		return nil
	})
}

func (ck *kit) testFutureBadInput(t *testing.T) {
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		sys := must(actors.NewSystem(ctx, pe, actors.Futures(2)))
		if err := actors.Reply(sys, actors.ReplyTo{PE: 7}, 1); !errors.Is(err, actors.ErrBadPE) {
			return fmt.Errorf("reply to PE 7: %v", err)
		}
		if err := actors.Reply(sys, actors.ReplyTo{PE: 0, Slot: 9}, 1); err == nil {
			return fmt.Errorf("reply to slot 9 of 2: no error")
		}
		if _, err := actors.NewFuture[map[int]int](sys); !errors.Is(err, actors.ErrNoCodec) {
			return fmt.Errorf("future of a map without a codec: %v", err)
		}
		f := must(actors.NewFuture[int](sys))
		f.Abandon()
		if err := actors.Reply(sys, f.ReplyTo(), 1); !errors.Is(err, actors.ErrAbandoned) {
			return fmt.Errorf("reply to an abandoned future: %v", err)
		}
		return nil
	})
}

func (ck *kit) testFuturePeerFailure(t *testing.T) {
	var awaited error
	waited := false // PE 0 ran here (under symrun, each process runs one PE)
	err := ck.runErr(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		sys := must(actors.NewSystem(ctx, pe))
		if pe.ID() == 1 {
			time.Sleep(20 * time.Millisecond)
			return errors.New("server down")
		}
		f := must(actors.NewFuture[int](sys))
		_, awaited = f.Await(context.Background())
		waited = true
		return awaited
	})
	if err == nil {
		t.Fatal("Run succeeded")
	}
	if pf := (*pgas.PEError)(nil); waited && (!errors.As(awaited, &pf) || pf.PE != 1) {
		t.Fatalf("Await: %v, want an error naming PE 1", awaited)
	}
}

// Soak: every PE sends to random PEs, each message carrying its sender,
// a per-(sender, receiver) sequence number and a checksum; every receiver
// checks order, integrity and the count. SYMCHAN_SOAK=1 runs the full 10
// million messages.
func (ck *kit) testActorsSoak(t *testing.T) {
	n := ck.perProcess(8) // one PE per process
	total := 200_000
	if os.Getenv("SYMCHAN_SOAK") != "" {
		total = 10_000_000
	} else if testing.Short() {
		total = 20_000
	}
	per := total / n
	type msg struct {
		From int32
		Seq  uint32
		Body [4]uint64
		Sum  uint32
	}
	sum := func(m msg) uint32 {
		var b [44]byte
		for i, v := range m.Body {
			for j := range 8 {
				b[i*8+j] = byte(v >> (8 * j))
			}
		}
		b[32], b[33], b[34], b[35] = byte(m.From), byte(m.Seq), byte(m.Seq>>8), byte(m.Seq>>16)
		return crc32.ChecksumIEEE(b[:])
	}
	start := time.Now()
	ck.run(t, n, func(ctx context.Context, pe *pgas.PE) error {
		ch := must(actors.NewChan[msg](ctx, pe, actors.Slots(8), actors.SlotSize(128)))
		counts := must(pgas.AllocZeroed[int64](ctx, pe, n)) // messages PE i sends to me, at index i
		rng := rand.New(rand.NewPCG(uint64(pe.ID()), 7))
		dest := make([]int, per)
		plan := make([]int64, n)
		for i := range dest {
			dest[i] = rng.IntN(n)
			plan[dest[i]]++
		}
		for to, c := range plan {
			check(pgas.P(pe, counts.Index(pe.ID()), c, to))
		}
		check(pe.Barrier(ctx))
		expect := make([]int64, n)
		check(pgas.Get(pe, expect, counts, pe.ID()))
		var want int64
		for _, c := range expect {
			want += c
		}
		errc := make(chan error, 1)
		pe.Go(func(ctx context.Context) { // the receiver
			next := make([]uint32, n)
			for got := int64(0); got < want; got++ {
				m, from, err := ch.RecvFrom(ctx)
				if err != nil {
					errc <- err
					return
				}
				if int(m.From) != from || m.Sum != sum(m) || m.Seq != next[from] {
					errc <- fmt.Errorf("from PE %d: seq %d (want %d), checksum ok %v", from, m.Seq, next[from], m.Sum == sum(m))
					return
				}
				next[from]++
			}
			errc <- nil
		})
		seq := make([]uint32, n)
		for i, to := range dest {
			m := msg{From: int32(pe.ID()), Seq: seq[to], Body: [4]uint64{uint64(i), rng.Uint64(), 3, 4}}
			m.Sum = sum(m)
			seq[to]++
			check(ch.Send(ctx, to, m))
		}
		if err := <-errc; err != nil {
			return err
		}
		check(ch.Close(ctx))
		// Nothing more arrives: no duplicates.
		if _, err := ch.Recv(ctx); !errors.Is(err, actors.ErrClosed) {
			return fmt.Errorf("after all expected messages: %v", err)
		}
		return nil
	})
	t.Logf("%d messages across %d PEs in %v", per*n, n, time.Since(start))
}

// Large data by reference: the sender sends a Ref to its symmetric buffer
// with a ReplyTo; the receiver pulls the bytes partition to partition and
// replies, after which the sender may reuse the buffer.
func (ck *kit) testRefRendezvous(t *testing.T) {
	ck.needPEs(t, 2)
	const size = 64 << 20
	n := size
	if testing.Short() {
		n = 1 << 20
	}
	type offer struct {
		Data    actors.Ref
		ReplyTo actors.ReplyTo
	}
	err := pgas.Run(context.Background(), pgas.Config{Backend: ck.backend(), PEs: 2, HeapSize: 2*size + 8<<20}, func(ctx context.Context, pe *pgas.PE) error {
		sys := must(actors.NewSystem(ctx, pe))
		offers := must(actors.NewChan[offer](ctx, pe))
		buf := must(pgas.Alloc[byte](ctx, pe, n))
		dst := must(pgas.Alloc[byte](ctx, pe, n))
		small := must(pgas.Alloc[byte](ctx, pe, 16))
		if pe.ID() == 0 {
			for round := range 2 { // the buffer is reused after the ack
				check(pgas.Put(pe, buf, pattern(n, round), 0))
				f := must(actors.NewFuture[uint32](sys))
				check(offers.Send(ctx, 1, offer{Data: actors.RefOf(pe, buf), ReplyTo: f.ReplyTo()}))
				if crc := must(f.Await(ctx)); crc != crc32.ChecksumIEEE(pattern(n, round)) {
					return fmt.Errorf("round %d: receiver's checksum %08x", round, crc)
				}
			}
			return nil
		}
		for range 2 {
			o := must(offers.Recv(ctx))
			if err := actors.Fetch(pe, o.Data, small); !errors.Is(err, actors.ErrTooLarge) {
				return fmt.Errorf("Fetch into a small buffer: %v", err)
			}
			check(actors.Fetch(pe, o.Data, dst))
			got := make([]byte, n)
			check(pgas.Get(pe, got, dst, 1))
			check(actors.Reply(sys, o.ReplyTo, crc32.ChecksumIEEE(got)))
		}
		if err := actors.Fetch(pe, actors.Ref{PE: 0, Off: 8, Len: 4}, dst); err == nil {
			return fmt.Errorf("Fetch of a Ref outside any allocation: no error")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A Ref a PE made to its own buffer, fetched into that very buffer (a
// message to itself), copies nothing and succeeds; into another buffer it
// copies.
func (ck *kit) testFetchOwnRef(t *testing.T) {
	ck.run(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		buf := must(pgas.AllocZeroed[byte](ctx, pe, 64))
		other := must(pgas.AllocZeroed[byte](ctx, pe, 64))
		data := pattern(64, 7)
		check(pgas.Put(pe, buf, data, 0))
		check(actors.Fetch(pe, actors.RefOf(pe, buf), buf))
		check(actors.Fetch(pe, actors.RefOf(pe, buf), other))
		for _, s := range []pgas.Sym[byte]{buf, other} {
			got := make([]byte, 64)
			check(pgas.Get(pe, got, s, 0))
			if !bytes.Equal(got, data) {
				return fmt.Errorf("after Fetch: % x, want % x", got, data)
			}
		}
		return nil
	})
}
