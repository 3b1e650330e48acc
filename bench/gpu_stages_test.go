//go:build cuda

package bench

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

// BenchmarkGPUHopStages: where the time of one hop of a Chan between the
// two GPU PEs goes, measured with the pgas calls a Mailbox makes for an
// 8-byte message (its layout in GPU memory: 2 senders × 16 slots of
// actors.DefaultSlotSize bytes, a signal word each): the sender puts the
// slot's 24 bytes with the slot's signal; the receiver waits for some of
// its 32 words, each against its own comparand, reads the slot's first 64
// bytes (header and payload) and, every 8 messages, returns credit. PE 0
// stamps the time before its put; PE 1 after each step. Reported per
// stage, with percentiles:
//
//   - fetch=no: stage=post (the sender's PutSignal call), stage=seen
//     (from before the put until the receiver's wait returns), stage=read
//     (the header's Get), stage=credit (the credit SignalOp's call);
//   - fetch=yes: stage=seen, the wait bringing the header itself
//     (pgas.WaitFetch), as Mailbox's receive does: seen + read in one.
func BenchmarkGPUHopStages(b *testing.B) {
	for _, fetch := range []bool{false, true} {
		name := "fetch=no"
		if fetch {
			name = "fetch=yes"
		}
		b.Run(name, func(b *testing.B) {
			st := hopStages{start: time.Now()}
			gpuWorld(b, 16<<20, func(ctx context.Context, pe *pgas.PE) error {
				return st.run(ctx, pe, fetch)
			})
			for _, s := range []struct {
				name string
				l    latencies
			}{{"post", st.post}, {"seen", st.seen}, {"read", st.read}, {"credit", st.credit}} {
				if len(s.l) > 0 {
					b.Run("stage="+s.name, func(b *testing.B) { s.l.report(b, "us/op") })
				}
			}
		})
	}
}

// hopStages measures the stages of BenchmarkGPUHopStages.
type hopStages struct {
	start                    time.Time    // set before the world starts
	sent                     atomic.Int64 // ns after start: PE 0's stamp before its put
	post, seen, read, credit latencies
}

func (h *hopStages) run(ctx context.Context, pe *pgas.PE, fetch bool) error {
	const senders, k, slot = 2, 16, actors.DefaultSlotSize
	words, err := pgas.AllocZeroed[uint64](ctx, pe, senders*k)
	if err != nil {
		return err
	}
	slots, err := pgas.AllocZeroed[byte](ctx, pe, senders*k*slot)
	if err != nil {
		return err
	}
	credit, err := pgas.AllocZeroed[uint64](ctx, pe, senders)
	if err != nil {
		return err
	}
	echo, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
	if err != nil {
		return err
	}
	if err := pe.Barrier(ctx); err != nil {
		return err
	}
	msg := make([]byte, 24)
	due := make([]uint64, senders*k) // each slot's next sequence; sender 1 never sends
	for j := range due {
		due[j] = ^uint64(0)
		if j < k {
			due[j] = uint64(j + 1)
		}
	}
	idx := make([]int, senders*k)
	hdr := make([]byte, 64)
	var wf *pgas.WaitFetch
	if fetch {
		wf = &pgas.WaitFetch{Data: slots, Stride: slot, Bytes: 64, Into: make([]byte, senders*k*64)}
	}
	for seq := uint64(1); seq <= warmup+rounds; seq++ {
		j := int((seq - 1) % k)
		keep := seq > warmup
		if pe.ID() == 0 {
			t0 := time.Since(h.start)
			h.sent.Store(int64(t0))
			if err := pgas.PutSignal(pe, slots.Slice(j*slot, j*slot+len(msg)), msg, words.Index(j), seq, pgas.SignalSet, 1); err != nil {
				return err
			}
			if keep {
				h.post.add(time.Since(h.start)-t0, 1)
			}
			if _, err := pgas.SignalWaitUntil(ctx, pe, echo, pgas.CmpGE, seq); err != nil {
				return err
			}
			continue
		}
		ws := pgas.WaitSet[uint64]{Ivars: words, Cmp: pgas.CmpGE, Values: due, Indices: idx, Fetch: wf}
		if _, err := pgas.Wait(ctx, pe, pgas.WaitSome, ws); err != nil {
			return err
		}
		t1 := time.Since(h.start)
		if !fetch {
			if err := pgas.Get(pe, hdr, slots.Slice(j*slot, j*slot+len(hdr)), 1); err != nil {
				return err
			}
		}
		t2 := time.Since(h.start)
		due[j] += k
		if seq%(k/2) == 0 {
			if err := pgas.SignalOp(pe, credit.Index(1), k/2, pgas.SignalAdd, 0); err != nil {
				return err
			}
			if keep {
				h.credit.add(time.Since(h.start)-t2, 1)
			}
		}
		if keep {
			h.seen.add(t1-time.Duration(h.sent.Load()), 1)
			if !fetch {
				h.read.add(t2-t1, 1)
			}
		}
		if err := pgas.SignalOp(pe, echo, seq, pgas.SignalSet, 0); err != nil {
			return err
		}
	}
	return pe.Barrier(ctx)
}
