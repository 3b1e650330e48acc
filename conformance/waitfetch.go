package conformance

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/symchan/symchan/pgas"
)

// fetchPattern is the bytes PE 1 puts for word i in round r.
func fetchPattern(r, i, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(r*31 + i*7 + j)
	}
	return b
}

// A wait's Fetch brings, for each index it reports, the data that the
// put-with-signal setting that word carried, whole, in report order: for
// WaitSome and WaitAny, word by word (aligned) and byte by byte (an odd
// length, an odd stride), over rounds that overwrite the same data.
func (ck *kit) testWaitFetch(t *testing.T) {
	const words, rounds = 8, 120
	type shape struct{ stride, bytes int }
	shapes := []shape{{48, 40}, {48, 13}, {5, 5}, {64, 64}}
	ck.run(t, 2, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, words))
		data := must(pgas.AllocZeroed[byte](ctx, pe, words*64))
		ack := must(pgas.AllocZeroed[uint64](ctx, pe, 1))
		for r := 1; r <= rounds; r++ {
			sh := shapes[r%len(shapes)]
			sent := func(i int) bool { return (i+r)%3 != 0 }
			if pe.ID() == 1 {
				if _, err := pgas.SignalWaitUntil(ctx, pe, ack, pgas.CmpGE, uint64(r-1)); err != nil {
					return err
				}
				for i := range words {
					if sent(i) {
						at := i * sh.stride
						check(pgas.PutSignal(pe, data.Slice(at, at+sh.bytes), fetchPattern(r, i, sh.bytes), w.Index(i), uint64(r), pgas.SignalSet, 0))
					}
				}
				continue
			}
			into := make([]byte, words*sh.bytes)
			idx := make([]int, words)
			mask := make([]int, words) // the words sent this round
			left := 0
			for i := range words {
				if mask[i] = 1; sent(i) {
					mask[i] = 0
					left++
				}
			}
			status := slices.Clone(mask) // and not yet reported
			nsent := left
			f := &pgas.WaitFetch{Data: data, Stride: sh.stride, Bytes: sh.bytes, Into: into}
			for left > 0 {
				ws := pgas.WaitSet[uint64]{Ivars: w, Status: status, Cmp: pgas.CmpGE, Value: uint64(r), Indices: idx, Fetch: f}
				var got []int
				if r%2 == 0 {
					res, err := pgas.Wait(ctx, pe, pgas.WaitAny, ws)
					if err != nil {
						return err
					}
					got = []int{res.N}
				} else {
					res, err := pgas.Wait(ctx, pe, pgas.WaitSome, ws)
					if err != nil {
						return err
					}
					got = idx[:res.N]
				}
				for k, i := range got {
					if want := fetchPattern(r, i, sh.bytes); !bytes.Equal(into[k*sh.bytes:(k+1)*sh.bytes], want) {
						return fmt.Errorf("round %d (stride %d, %d bytes): word %d, report %d fetched %v, want %v", r, sh.stride, sh.bytes, i, k, into[k*sh.bytes:(k+1)*sh.bytes], want)
					}
					status[i] = 1
					left--
				}
			}
			// Test forms fetch too: every sent word is set now.
			clear(into)
			res, err := pgas.Test(pe, pgas.WaitSome, pgas.WaitSet[uint64]{Ivars: w, Status: mask, Cmp: pgas.CmpGE, Value: uint64(r), Indices: idx, Fetch: f})
			if err != nil {
				return err
			}
			if res.N != nsent {
				return fmt.Errorf("round %d: Test reported %d words, %d were sent", r, res.N, nsent)
			}
			for k, i := range idx[:res.N] {
				if !bytes.Equal(into[k*sh.bytes:(k+1)*sh.bytes], fetchPattern(r, i, sh.bytes)) {
					return fmt.Errorf("round %d: Test fetched %v for word %d", r, into[k*sh.bytes:(k+1)*sh.bytes], i)
				}
			}
			check(pgas.SignalOp(pe, ack, uint64(r), pgas.SignalSet, 1))
		}
		return pe.Barrier(ctx)
	})
}

// A Fetch that cannot be honoured is ErrBadArg, before any wait.
func (ck *kit) testWaitFetchBadArguments(t *testing.T) {
	ck.run(t, 1, func(ctx context.Context, pe *pgas.PE) error {
		w := must(pgas.AllocZeroed[uint64](ctx, pe, 4))
		data := must(pgas.AllocZeroed[byte](ctx, pe, 64))
		idx := make([]int, 4)
		wait := func(mode pgas.WaitMode, f pgas.WaitFetch) error {
			_, err := pgas.Test(pe, mode, pgas.WaitSet[uint64]{Ivars: w, Cmp: pgas.CmpEQ, Indices: idx, Fetch: &f})
			return err
		}
		cases := map[string]error{
			"WaitAll":       wait(pgas.WaitAll, pgas.WaitFetch{Data: data, Stride: 8, Bytes: 8, Into: make([]byte, 32)}),
			"no bytes":      wait(pgas.WaitSome, pgas.WaitFetch{Data: data, Stride: 8, Bytes: 0, Into: make([]byte, 32)}),
			"too many":      wait(pgas.WaitSome, pgas.WaitFetch{Data: data, Stride: 0, Bytes: pgas.MaxFetchBytes + 1, Into: make([]byte, 4*(pgas.MaxFetchBytes+1))}),
			"negative":      wait(pgas.WaitAny, pgas.WaitFetch{Data: data, Stride: -8, Bytes: 8, Into: make([]byte, 8)}),
			"beyond Data":   wait(pgas.WaitSome, pgas.WaitFetch{Data: data, Stride: 20, Bytes: 8, Into: make([]byte, 32)}),
			"short Into":    wait(pgas.WaitSome, pgas.WaitFetch{Data: data, Stride: 8, Bytes: 8, Into: make([]byte, 31)}),
			"short any":     wait(pgas.WaitAny, pgas.WaitFetch{Data: data, Stride: 8, Bytes: 8, Into: make([]byte, 7)}),
			"zero Sym Data": wait(pgas.WaitSome, pgas.WaitFetch{Stride: 8, Bytes: 8, Into: make([]byte, 32)}),
		}
		for name, err := range cases {
			if !errors.Is(err, pgas.ErrBadArg) && !errors.Is(err, pgas.ErrBadSym) {
				return fmt.Errorf("%s: %v, want ErrBadArg", name, err)
			}
		}
		// The words all hold 0: a some-test over them with Fetch reports
		// all four and brings their data (a stride of 0 reads the same
		// bytes for each).
		check(pgas.Put(pe, data.Slice(0, 3), []byte{7, 8, 9}, 0))
		into := make([]byte, 12)
		res := must(pgas.Test(pe, pgas.WaitSome, pgas.WaitSet[uint64]{Ivars: w, Cmp: pgas.CmpEQ, Indices: idx, Fetch: &pgas.WaitFetch{Data: data, Bytes: 3, Into: into}}))
		if res.N != 4 || !bytes.Equal(into, []byte{7, 8, 9, 7, 8, 9, 7, 8, 9, 7, 8, 9}) {
			return fmt.Errorf("a stride of 0: %d reported, fetched %v", res.N, into)
		}
		return nil
	})
}
