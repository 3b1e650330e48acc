//go:build cuda

package gpuop

import (
	"context"
	"encoding/binary"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas/driver"
)

// newAgent makes an agent of lanes lanes on GPU 0 and a zeroed buffer of
// n bytes there.
func newAgent(t testing.TB, lanes int, n int64) (*Agent, device.Ptr) {
	t.Helper()
	if c, err := device.Count(); err != nil || c == 0 {
		t.Skipf("no GPU: %v", err)
	}
	ctx, err := device.NewContext(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ctx.Close() })
	ptx, err := kernels.PTX("")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := ctx.LoadModule(ptx)
	if err != nil {
		t.Fatal(err)
	}
	a, err := NewAgent(ctx, mod, lanes)
	if err != nil {
		t.Fatal(err)
	}
	buf, err := ctx.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	if err := ctx.CopyIn(buf, make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := a.Close(); err != nil {
			t.Error(err)
		}
		ctx.Free(buf)
	})
	for i := range lanes {
		a.Lane(i).Bind(func() error { return nil }) // no stream work here
	}
	return a, buf
}

// A lane's routines and the agent's waits each take one read of their
// request (the hash agrees), give the spec's results, and survive the
// agent's relaunches.
func TestAgentRoutines(t *testing.T) {
	a, buf := newAgent(t, 2, 4096)
	l := a.Lane(0)
	var b [8]byte
	const rounds = 200
	for i := range uint64(rounds) {
		binary.LittleEndian.PutUint64(b[:], i*3)
		if err := l.Put(buf+64, b[:], true, buf, i+1, driver.SignalSet); err != nil {
			t.Fatal(err)
		}
		var got [8]byte
		if err := l.Get(got[:], buf+64); err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint64(got[:]); v != i*3 {
			t.Fatalf("round %d: got %d", i, v)
		}
		old, err := l.Atomic(buf+128, driver.KindUint64, driver.OpFetchAdd, 2, 0)
		if err != nil {
			t.Fatal(err)
		}
		if old != 2*i {
			t.Fatalf("round %d: fetch-add returned %d, want %d", i, old, 2*i)
		}
		r, err := a.Wait(context.Background(), nil, buf, driver.WaitRequest{N: 1, Kind: driver.KindUint64, Cmp: driver.CmpGE, Mode: driver.WaitAll, Value: i + 1})
		if err != nil {
			t.Fatal(err)
		}
		if r.Word != i+1 {
			t.Fatalf("round %d: wait saw %d", i, r.Word)
		}
		if i%50 == 0 {
			time.Sleep(6 * time.Millisecond) // past the launch's lifetime
		}
	}
	// A wait that is still open when its launch ends is handed on; a
	// second lane ends it.
	done := make(chan error, 1)
	go func() {
		time.Sleep(20 * time.Millisecond)
		done <- a.Lane(1).Put(buf+8, nil, true, buf+8, 1, driver.SignalAdd)
	}()
	if _, err := a.Wait(context.Background(), nil, buf+8, driver.WaitRequest{N: 1, Kind: driver.KindUint64, Cmp: driver.CmpEQ, Mode: driver.WaitAll, Value: 1}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := l.Quiet(); err != nil {
		t.Fatal(err)
	}
	// Idle, the launch ends long before its lifetime.
	time.Sleep(2 * time.Millisecond)
	if done, err := a.st.Done(); err != nil || !done {
		t.Errorf("the agent still runs 2 ms after its last routine (done %v, err %v)", done, err)
	}
	// Reads done twice are those that met the host half-way through
	// writing: rare.
	if n := a.slowReads(); n > rounds/20 {
		t.Errorf("%d of %d requests were read twice: the hashes disagree", n, 4*rounds)
	}
	t.Logf("requests read twice: %d of %d", a.slowReads(), 4*rounds)
}

// A put or get of more than one entry's payload takes several entries:
// the bytes arrive whole at any alignment, a put's signal is seen only
// after all of them (a waiter that sees it reads every byte), and more
// than LaneMax is refused.
func TestLaneMultiEntry(t *testing.T) {
	a, buf := newAgent(t, 2, 8192)
	l, reader := a.Lane(0), a.Lane(1)
	for _, tc := range []struct {
		name string
		off  device.Ptr
		n    int
	}{
		{"one entry", 64, LanePayload},
		{"one more byte", 64, LanePayload + 1},
		{"a default slot", 64, 1024},
		{"unaligned", 67, 1000},
		{"the most", 64, LaneMax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for round := range uint64(20) {
				src := make([]byte, tc.n)
				for i := range src {
					src[i] = byte(i*7 + int(round))
				}
				sig := round + 1 + uint64(tc.n)<<16
				if err := l.Put(buf+tc.off, src, true, buf, sig, driver.SignalSet); err != nil {
					t.Fatal(err)
				}
				// The wait sees the signal; another lane (another warp)
				// then reads: it must see every byte.
				r, err := a.Wait(context.Background(), nil, buf, driver.WaitRequest{N: 1, Kind: driver.KindUint64, Cmp: driver.CmpEQ, Mode: driver.WaitAll, Value: sig})
				if err != nil || r.Word != sig {
					t.Fatalf("round %d: wait: %v (word %d)", round, err, r.Word)
				}
				got := make([]byte, tc.n)
				if err := reader.Get(got, buf+tc.off); err != nil {
					t.Fatal(err)
				}
				for i := range got {
					if got[i] != src[i] {
						t.Fatalf("round %d: byte %d is %d, want %d", round, i, got[i], src[i])
					}
				}
			}
		})
	}
	if err := l.Put(buf, make([]byte, LaneMax+1), false, 0, 0, 0); err == nil {
		t.Error("a put of LaneMax+1 bytes was taken")
	}
	if err := l.Get(make([]byte, LaneMax+1), buf); err == nil {
		t.Error("a get of LaneMax+1 bytes was taken")
	}
}

// A claimed put writes its data and signal only when its compare-and-swap
// finds the word as expected, and reports the word's old value either
// way; a payload past one entry is refused, having done nothing.
func TestLaneClaimPut(t *testing.T) {
	a, buf := newAgent(t, 2, 4096)
	l, reader := a.Lane(0), a.Lane(1)
	const data = 64
	for _, tc := range []struct {
		name string
		n    int
		off  device.Ptr
	}{{"8 bytes", 8, data}, {"one entry", LanePayload, data}, {"unaligned", 13, data + 3}} {
		t.Run(tc.name, func(t *testing.T) {
			if err := l.Put(buf, make([]byte, 8), false, 0, 0, 0); err != nil { // the word: 0, before the claims on the same lane
				t.Fatal(err)
			}
			for round := range uint64(10) {
				cond, claim, v := round*4, round*4+1, round*4+4
				src := make([]byte, tc.n)
				for i := range src {
					src[i] = byte(i*5 + int(round) + 1)
				}
				old, err := l.ClaimPut(buf+tc.off, src, buf, cond, claim, v)
				if err != nil || old != cond {
					t.Fatalf("round %d: claim: %v, old %d, want %d", round, err, old, cond)
				}
				junk := make([]byte, tc.n)
				if old, err = l.ClaimPut(buf+tc.off, junk, buf, cond, claim, v+2); err != nil || old != v {
					t.Fatalf("round %d: stale claim: %v, old %d, want %d", round, err, old, v)
				}
				got := make([]byte, 8+tc.n)
				if err := reader.Get(got[:8], buf); err != nil {
					t.Fatal(err)
				}
				if err := reader.Get(got[8:], buf+tc.off); err != nil {
					t.Fatal(err)
				}
				if w := binary.LittleEndian.Uint64(got); w != v {
					t.Fatalf("round %d: word %d, want %d", round, w, v)
				}
				for i, b := range got[8:] {
					if b != src[i] {
						t.Fatalf("round %d: byte %d is %d, want %d (a failed claim wrote?)", round, i, b, src[i])
					}
				}
			}
		})
	}
	if _, err := l.ClaimPut(buf+data, make([]byte, LanePayload+1), buf, 0, 1, 2); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("a claimed put of LanePayload+1 bytes: %v, want ErrUnsupported", err)
	}
}

// A lane's copy between two places of GPU memory moves the bytes whole at
// every size up to LaneCopyMax and any alignment (16-byte words or bytes),
// reads what the last put wrote (not a stale line), and refuses more.
func TestLaneCopy(t *testing.T) {
	a, buf := newAgent(t, 1, 3*LaneCopyMax)
	l := a.Lane(0)
	src, dst := buf+16, buf+device.Ptr(LaneCopyMax+64)
	for _, tc := range []struct {
		name   string
		srcOff device.Ptr
		dstOff device.Ptr
		n      int
	}{
		{"empty", 0, 0, 0},
		{"a word", 0, 0, 8},
		{"16-byte words", 0, 0, 4000},
		{"one pass of the warp", 0, 0, 2048},
		{"the most", 0, 0, LaneCopyMax},
		{"unaligned source", 3, 0, 1000},
		{"unaligned length", 0, 0, 1001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for round := range 3 {
				want := make([]byte, tc.n)
				for i := range want {
					want[i] = byte(i*13 + round*7 + tc.n)
				}
				for at := 0; at < tc.n; at += LaneMax { // the source, through the lane's puts
					if err := l.Put(src+tc.srcOff+device.Ptr(at), want[at:min(tc.n, at+LaneMax)], false, 0, 0, 0); err != nil {
						t.Fatal(err)
					}
				}
				if err := l.Copy(dst+tc.dstOff, src+tc.srcOff, tc.n); err != nil {
					t.Fatal(err)
				}
				got := make([]byte, tc.n)
				for at := 0; at < tc.n; at += LaneMax {
					if err := l.Get(got[at:min(tc.n, at+LaneMax)], dst+tc.dstOff+device.Ptr(at)); err != nil {
						t.Fatal(err)
					}
				}
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("round %d: byte %d is %d, want %d", round, i, got[i], want[i])
					}
				}
			}
		})
	}
	if err := l.Copy(dst, src, LaneCopyMax+1); err == nil {
		t.Error("a copy of LaneCopyMax+1 bytes was taken")
	}
}

// A wait over more words than a slot holds runs in windows and reports as
// one wait over all of them: indices and fetched bytes of every window
// (global indices), an any-wait's index from Start on, an all-wait that
// needs every window, the _vector and status forms, and a blocking
// some-wait that a later put in the last window ends.
func TestAgentWaitWindows(t *testing.T) {
	const n = 2*agentWords + 500 // three windows, the last short
	a, buf := newAgent(t, 1, 16*n)
	words, data := buf, buf+8*n // data: 8 bytes per word
	l := a.Lane(0)
	set := func(i int, v uint64) {
		t.Helper()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], 1000+uint64(i))
		if err := l.Put(data+device.Ptr(8*i), b[:], true, words+device.Ptr(8*i), v, driver.SignalSet); err != nil {
			t.Fatal(err)
		}
		if err := l.Quiet(); err != nil {
			t.Fatal(err)
		}
	}
	for _, i := range []int{5, agentWords + 7, 2*agentWords + 499} {
		set(i, 1)
	}
	some := func(test bool, status []int, values []uint64) ([]int, []byte) {
		t.Helper()
		idx, into := make([]int, n), make([]byte, 8*n)
		r, err := a.Wait(context.Background(), nil, words, driver.WaitRequest{Mode: driver.WaitSome, Test: test, Kind: driver.KindUint64, N: n,
			Cmp: driver.CmpGE, Value: 1, Values: values, Status: status, Indices: idx, Fetch: driver.Fetch{Off: 8 * n, Stride: 8, Bytes: 8, Into: into}})
		if err != nil {
			t.Fatal(err)
		}
		return idx[:r.N], into[:8*r.N]
	}
	checkSome := func(name string, got []int, fetched []byte, want ...int) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: indices %v, want %v", name, got, want)
		}
		for k, i := range got {
			if i != want[k] || binary.LittleEndian.Uint64(fetched[8*k:]) != 1000+uint64(i) {
				t.Fatalf("%s: index %d = %d (fetched %d), want %d", name, k, i, binary.LittleEndian.Uint64(fetched[8*k:]), want[k])
			}
		}
	}
	got, fetched := some(true, nil, nil)
	checkSome("test-some", got, fetched, 5, agentWords+7, 2*agentWords+499)
	status := make([]int, n)
	status[agentWords+7] = 1
	values := make([]uint64, n)
	for i := range values {
		values[i] = 1
	}
	values[5] = 2 // not yet reached
	got, fetched = some(true, status, values)
	checkSome("test-some with status and values", got, fetched, 2*agentWords+499)

	lastOut := make([]int, n)
	lastOut[n-1] = 1
	for _, tc := range []struct {
		start, want int
		status      []int
	}{{0, 5, nil}, {6, agentWords + 7, nil}, {agentWords + 8, n - 1, nil}, {n - 1, n - 1, nil}, {agentWords + 8, 5, lastOut}} {
		into := make([]byte, 8)
		r, err := a.Wait(context.Background(), nil, words, driver.WaitRequest{Mode: driver.WaitAny, Kind: driver.KindUint64, N: n, Cmp: driver.CmpGE,
			Value: 1, Start: tc.start, Status: tc.status, Fetch: driver.Fetch{Off: 8 * n, Stride: 8, Bytes: 8, Into: into}})
		if err != nil || r.N != tc.want || r.Word != 1 || binary.LittleEndian.Uint64(into) != 1000+uint64(tc.want) {
			t.Fatalf("any from %d: index %d word %d fetched %d, %v; want %d", tc.start, r.N, r.Word, binary.LittleEndian.Uint64(into), err, tc.want)
		}
	}

	all := func() int {
		t.Helper()
		r, err := a.Wait(context.Background(), nil, words, driver.WaitRequest{Mode: driver.WaitAll, Test: true, Kind: driver.KindUint64, N: n, Cmp: driver.CmpLE, Value: 1})
		if err != nil {
			t.Fatal(err)
		}
		return r.N
	}
	if all() != 1 {
		t.Fatal("test-all over words ≤ 1: not satisfied")
	}
	set(2*agentWords+100, 2)
	if all() != 0 {
		t.Fatal("test-all with a word of the last window > 1: satisfied")
	}

	// Blocking: nothing new satisfies until a put lands in the last window.
	status = make([]int, n)
	for _, i := range []int{5, agentWords + 7, 2*agentWords + 100, 2*agentWords + 499} {
		status[i] = 1
	}
	done := make(chan error, 1)
	go func() {
		time.Sleep(10 * time.Millisecond)
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], 1000+2*agentWords+300)
		err := a.Lane(0).Put(data+8*(2*agentWords+300), b[:], true, words+8*(2*agentWords+300), 1, driver.SignalSet)
		if err == nil {
			err = a.Lane(0).Quiet()
		}
		done <- err
	}()
	got, fetched = some(false, status, nil)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkSome("blocking some", got, fetched, 2*agentWords+300)

	// A blocking wait ends with its context.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
	defer cancel()
	status[2*agentWords+300] = 1
	_, err := a.Wait(ctx, nil, words, driver.WaitRequest{Mode: driver.WaitSome, Kind: driver.KindUint64, N: n, Cmp: driver.CmpGE, Value: 1, Status: status, Indices: make([]int, n)})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a wait whose context ended: %v", err)
	}
}

// BenchmarkAgentRelaunch: what a new launch costs a round trip through
// the agent (issue 33's tail). Put-then-wait round trips on one lane for
// 20 lifetimes: the median of those during which a launch began (the
// epoch moved) and of the others, and the host's time to queue a launch
// behind a running one. Run it with -test.benchtime 1x: one pass is the
// measurement.
func BenchmarkAgentRelaunch(b *testing.B) {
	a, buf := newAgent(b, 1, 64)
	l := a.Lane(0)
	var steady, across []float64
	start := time.Now()
	for v := uint64(1); time.Since(start) < 20*lifetime; v++ {
		e0 := a.epoch.Load()
		t0 := time.Now()
		if err := l.Put(buf, nil, true, buf, v, driver.SignalSet); err != nil {
			b.Fatal(err)
		}
		if _, err := a.Wait(context.Background(), nil, buf, driver.WaitRequest{N: 1, Kind: driver.KindUint64, Cmp: driver.CmpGE, Mode: driver.WaitAll, Value: v}); err != nil {
			b.Fatal(err)
		}
		d := float64(time.Since(t0).Nanoseconds()) / 1e3
		if a.epoch.Load() != e0 {
			across = append(across, d)
		} else {
			steady = append(steady, d)
		}
	}
	a.mu.Lock()
	t0 := time.Now()
	err := a.launch(a.epoch.Load(), time.Since(a.born).Nanoseconds())
	queued := time.Since(t0)
	a.mu.Unlock()
	if err != nil {
		b.Fatal(err)
	}
	median := func(d []float64) float64 {
		if len(d) == 0 {
			return 0
		}
		slices.Sort(d)
		return d[len(d)/2]
	}
	b.ReportMetric(median(steady), "us/RT")
	b.ReportMetric(median(across), "us/RT-across-launch")
	b.ReportMetric(float64(queued.Nanoseconds())/1e3, "us/queue-launch")
}
