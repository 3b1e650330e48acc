package gpuop

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"time"
	"unsafe"

	"github.com/symchan/symchan/pgas/driver"
)

// What the Agent's waits and the Waiter's share: a request put where the
// kernels read it, its answer read back, and the host's polling.

// ErrAborted ends a wait whose abort channel closed (a PE failed).
var ErrAborted = errors.New("aborted: a PE failed")

// stage copies req's comparands into values (8 bytes a word) and its mask
// into status (a byte a word, 1 excludes), both mapped pinned memory, and
// reports which of the two the request has.
func stage(values, status []byte, req driver.WaitRequest) (hasValues, hasStatus bool) {
	if req.Values != nil {
		copy(unsafe.Slice((*uint64)(unsafe.Pointer(&values[0])), req.N), req.Values)
	}
	for i, v := range req.Status {
		status[i] = 0
		if v != 0 {
			status[i] = 1
		}
	}
	return req.Values != nil, req.Status != nil
}

// spec packs req as symchan_wait and the agent take it: kind | cmp<<8 |
// mode<<16 | test<<24.
func spec(req driver.WaitRequest) uint64 {
	test := uint64(0)
	if req.Test {
		test = 1
	}
	return uint64(req.Kind) | uint64(req.Cmp)<<8 | uint64(req.Mode)<<16 | test<<24
}

// result is the answer of a wait whose kernel reported n (the result:
// all-held flag, index or count) and word, with a some-wait's int32
// indices at idx copied into req.Indices in order.
func result(req driver.WaitRequest, n, word uint64, idx []byte) driver.WaitResult {
	r := driver.WaitResult{N: int(int64(n)), Word: word}
	switch req.Mode {
	case driver.WaitAny:
		if r.N < 0 {
			r.N = driver.NoIndex
		}
	case driver.WaitSome:
		for i, v := range unsafe.Slice((*int32)(unsafe.Pointer(&idx[0])), r.N) {
			req.Indices[i] = int(v)
		}
		slices.Sort(req.Indices[:r.N])
	}
	return r
}

// spin polls done until it holds: busily for the first spinBusy (an
// answer comes within microseconds), then yielding the processor between
// polls until spinYield, then sleeping between them. Every spinCheck it
// calls check, whose error ends the spin: check queries the GPU (a driver
// call of about a microsecond), so doing it every few polls would delay
// the answer it waits for.
func spin(done func() bool, check func() error) error {
	start := time.Now()
	next := spinCheck
	for i := 1; !done(); i++ {
		if i&63 != 0 {
			continue
		}
		t := time.Since(start)
		switch {
		case t < spinBusy:
		case t < spinYield:
			runtime.Gosched()
		default:
			time.Sleep(20 * time.Microsecond)
		}
		if t >= next {
			next = t + spinCheck
			if err := check(); err != nil {
				return err
			}
		}
	}
	return nil
}

// The phases of spin.
const (
	spinBusy  = 20 * time.Microsecond
	spinYield = 2 * time.Millisecond
	spinCheck = 20 * time.Microsecond
)

// interrupt is a check for spin: the first time ctx ends or abort closes,
// it records why in *cause and calls stop, which tells the kernel to give
// up; the spin goes on until the kernel says it has.
func interrupt(ctx context.Context, abort <-chan struct{}, cause *error, stop func()) func() error {
	return func() error {
		if *cause != nil {
			return nil
		}
		select {
		case <-ctx.Done():
			*cause = ctx.Err()
		case <-abort:
			*cause = ErrAborted
		default:
			return nil
		}
		stop()
		return nil
	}
}
