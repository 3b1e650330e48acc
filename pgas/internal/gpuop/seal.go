package gpuop

import (
	"github.com/symchan/symchan/internal/seal"
	"github.com/symchan/symchan/pgas/driver"
)

// Requests and answers cross PCIe between the host and the agent with no
// fence between their words and their sequence number: each carries a
// hash of its words, and the side that reads takes it once what it read
// agrees with the hash (symchan.cu: agent_fetch for requests, agent_seal
// for answers). A fence would cost about a PCIe round trip per message.

// entryHash is the hash of a request of sequence seq (words[0] is about to
// be seq; words[7] is the hash's place): the XOR of seal.Mix(words[i], i) over
// i ≠ 7.
func entryHash(words []uint64, seq uint64) uint64 {
	var h uint64
	for i, w := range words {
		switch i {
		case 0:
			w = seq
		case 7:
			continue
		}
		h ^= seal.Mix(w, uint64(i))
	}
	return h
}

// sealedBytes is the most fetched bytes an answer carries without a fence.
const sealedBytes = 1024

// An answer is a wait's answer as the agent writes it in a slot: out[0]
// (the sequence) … out[3], out[6] (the hash), the int32 indices of a
// some-wait and the fetched words.
type answer struct {
	seq, state, res, word, hash uint64
	idx                         []uint32
	data                        []uint64
}

// carried is what an answer of state and result res to req carries
// beside its words: nidx int32 indices (a satisfied some-wait's) and cnt
// fetches of req.Fetch.Bytes bytes (one per index a satisfied wait
// reports). agent_waiter in symchan.cu counts the same.
func carried(req *driver.WaitRequest, state, res uint64) (nidx, cnt int) {
	if state != 1 {
		return 0, 0
	}
	switch {
	case req.Mode == driver.WaitSome:
		nidx, cnt = int(res), int(res)
	case req.Mode == driver.WaitAny && res != ^uint64(0):
		cnt = 1
	}
	if req.Fetch.Bytes == 0 {
		cnt = 0
	}
	return nidx, cnt
}

// answerSealed is agent_seal's rule: whether the agent wrote an answer
// whose state is state with nidx indices and cnt fetches of fbytes bytes
// from faddr by fstride without a fence, its hash then covering the
// indices and the fetched words too.
func answerSealed(state uint64, nidx, cnt, fbytes int, faddr, fstride uint64) bool {
	return state == 1 && nidx <= 32 && cnt*fbytes <= sealedBytes && (faddr|fstride|uint64(fbytes))&7 == 0
}

// sum is the hash the agent writes for a, over a.idx and a.data too when
// sealed.
func (a *answer) sum(sealed bool) uint64 {
	h := seal.Mix(a.seq, 0) ^ seal.Mix(a.state, 1) ^ seal.Mix(a.res, 2) ^ seal.Mix(a.word, 3)
	if sealed {
		for k, v := range a.idx {
			h ^= seal.Mix(uint64(v), uint64(8+k))
		}
		for t, v := range a.data {
			h ^= seal.Mix(v, uint64(64+t))
		}
	}
	return h
}

// whole reports whether what was read of an answer agrees with its hash.
func (a *answer) whole(sealed bool) bool { return a.sum(sealed) == a.hash }
