//go:build cuda

package nvshmem

import (
	"context"
	"encoding/binary"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas/driver"
)

// A PE's failure reaches the other processes through a control area after
// the staging buffer (symmetric, so at the same offset on every PE): a
// signal word that holds the failed PE + 1, then a record per PE of its
// error's length and text.
const (
	failRecord = 128 // bytes per PE: 8 of length, then the text
	failText   = failRecord - 8
)

func ctlBytes(npes int) int { return 8 + npes*failRecord }

// ctl is this PE's control area.
func (t *transport) ctl() device.Ptr { return t.staging + stagingSize }

// NotifyFailure puts local PE pe's error (its first 120 bytes) into every
// other PE's record for pe and then sets their signal word, through
// NVSHMEM (any PE, on any node). It does its best: a PE it cannot reach
// is stopped by the launcher when this process exits.
func (t *transport) NotifyFailure(pe int, err error) {
	msg := err.Error()
	if len(msg) > failText {
		msg = msg[:failText]
	}
	rec := make([]byte, 8+len(msg))
	binary.LittleEndian.PutUint64(rec, uint64(len(msg)))
	copy(rec[8:], msg)
	unlock, lerr := t.stream()
	if lerr != nil {
		return
	}
	defer unlock()
	dst := uintptr(t.ctl() + 8 + device.Ptr(pe*failRecord))
	sent := t.staged(rec, func(_, n int) { // one piece: rec is small
		for q := range t.n {
			if q != t.me {
				nvPutSignal(dst, uintptr(t.staging), int64(n), uintptr(t.ctl()), uint64(pe+1), driver.SignalSet, q, t.handle())
			}
		}
		nvQuietOnStream(t.handle())
	})
	if sent == nil {
		_ = t.st.Sync()
	}
}

// WatchFailures waits on the agent for this PE's control word and reports
// the PE it names, with its record's text. The wait holds one of the
// agent's slots for the world's life.
func (t *transport) WatchFailures(ctx context.Context, failed func(pe int, msg string)) {
	r, err := t.agent.Wait(ctx, nil, t.ctl(), driver.WaitRequest{N: 1, Kind: driver.KindUint64, Cmp: driver.CmpNE, Mode: driver.WaitAll})
	if err != nil {
		return // the world ended
	}
	pe := int(r.Word) - 1
	if pe < 0 || pe >= t.n {
		return
	}
	var rec [failRecord]byte
	t.mu.Lock()
	err = t.lane.Get(rec[:], t.ctl()+8+device.Ptr(pe*failRecord))
	t.mu.Unlock()
	msg := "(its message was lost)"
	if n := binary.LittleEndian.Uint64(rec[:8]); err == nil && n <= failText {
		msg = string(rec[8 : 8+n])
	}
	failed(pe, msg)
}
