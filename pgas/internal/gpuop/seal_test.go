package gpuop

import (
	"fmt"
	"testing"

	"github.com/symchan/symchan/pgas/driver"
)

// TestCarried: what an answer carries beside its words, as agent_waiter
// writes it: a satisfied some-wait's indices, and one fetch per index a
// satisfied wait reports when it fetches.
func TestCarried(t *testing.T) {
	fetch := driver.Fetch{Bytes: 64}
	for _, c := range []struct {
		name       string
		req        driver.WaitRequest
		state, res uint64
		nidx, cnt  int
	}{
		{"some-wait, 3 ready, fetching", driver.WaitRequest{Mode: driver.WaitSome, Fetch: fetch}, 1, 3, 3, 3},
		{"some-wait, 3 ready", driver.WaitRequest{Mode: driver.WaitSome}, 1, 3, 3, 0},
		{"any-wait, found, fetching", driver.WaitRequest{Mode: driver.WaitAny, Fetch: fetch}, 1, 5, 0, 1},
		{"any-test, none found", driver.WaitRequest{Mode: driver.WaitAny, Fetch: fetch, Test: true}, 1, ^uint64(0), 0, 0},
		{"all-wait", driver.WaitRequest{Mode: driver.WaitAll}, 1, 1, 0, 0},
		{"aborted some-wait", driver.WaitRequest{Mode: driver.WaitSome, Fetch: fetch}, 2, 3, 0, 0},
		{"expired any-wait", driver.WaitRequest{Mode: driver.WaitAny, Fetch: fetch}, 3, 0, 0, 0},
	} {
		if nidx, cnt := carried(&c.req, c.state, c.res); nidx != c.nidx || cnt != c.cnt {
			t.Errorf("%s: carried = %d indices, %d fetches; want %d, %d", c.name, nidx, cnt, c.nidx, c.cnt)
		}
	}
}

func TestAnswerSealed(t *testing.T) {
	for _, c := range []struct {
		name              string
		state             uint64
		nidx, cnt, fbytes int
		faddr, fstride    uint64
		want              bool
	}{
		{"all-wait, no fetch", 1, 0, 0, 0, 0, 0, true},
		{"one message's header", 1, 1, 1, 64, 0x7f0000001000, 4160, true},
		{"32 indices", 1, 32, 0, 0, 0, 0, true},
		{"33 indices", 1, 33, 0, 0, 0, 0, false},
		{"16 headers", 1, 16, 16, 64, 0x1000, 64, true},
		{"17 headers", 1, 17, 17, 64, 0x1000, 64, false},
		{"unaligned address", 1, 1, 1, 64, 0x1004, 64, false},
		{"unaligned stride", 1, 2, 2, 8, 0x1000, 12, false},
		{"bytes not whole words", 1, 1, 1, 6, 0x1000, 8, false},
		{"aborted", 2, 0, 0, 0, 0, 0, false},
		{"expired", 3, 0, 0, 0, 0, 0, false},
	} {
		if got := answerSealed(c.state, c.nidx, c.cnt, c.fbytes, c.faddr, c.fstride); got != c.want {
			t.Errorf("%s: answerSealed = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestAnswerTorn: an answer read while the agent's unfenced writes are
// still arriving (any one word still old) never passes for whole.
func TestAnswerTorn(t *testing.T) {
	fresh := func() answer {
		a := answer{seq: 41, state: 1, res: 2, word: 7, idx: []uint32{3, 9}, data: []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}
		a.hash = a.sum(true)
		return a
	}
	a := fresh()
	if !a.whole(true) {
		t.Fatal("an answer read whole is not taken")
	}
	if a.whole(false) {
		t.Fatal("a sealed answer's hash passes for a fenced one's")
	}
	tears := map[string]func(*answer){
		"sequence": func(a *answer) { a.seq-- },
		"state":    func(a *answer) { a.state = 0 },
		"result":   func(a *answer) { a.res = 1 },
		"word":     func(a *answer) { a.word = 0 },
		"hash":     func(a *answer) { a.hash = 0 },
	}
	for k := range a.idx {
		tears[fmt.Sprint("index ", k)] = func(a *answer) { a.idx[k] = 0 }
	}
	for i := range a.data {
		tears[fmt.Sprint("data word ", i)] = func(a *answer) { a.data[i] = 0 }
	}
	for name, tear := range tears {
		a := fresh()
		tear(&a)
		if a.whole(true) {
			t.Errorf("%s still old: taken as whole", name)
		}
	}
	// A fenced answer's hash covers its four words alone: what follows
	// them was ordered before the sequence.
	f := answer{seq: 5, state: 2, res: 0, word: 0, idx: []uint32{1}, data: []uint64{1}}
	f.hash = f.sum(false)
	f.idx[0], f.data[0] = 9, 9
	if !f.whole(false) {
		t.Error("a fenced answer depends on words its hash does not cover")
	}
}

func TestEntryHashSkipsItsOwnWord(t *testing.T) {
	w := []uint64{0, 1, 2, 3, 4, 5, 6, 0}
	h := entryHash(w, 9)
	w[7] = h
	if entryHash(w, 9) != h {
		t.Error("the hash depends on the word that holds it")
	}
	w[0] = 123 // replaced by the sequence
	if entryHash(w, 9) != h {
		t.Error("the hash depends on word 0 rather than on the sequence")
	}
	if entryHash(w, 10) == h {
		t.Error("the hash does not depend on the sequence")
	}
}
