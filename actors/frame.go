package actors

import (
	"encoding/binary"
	"fmt"

	"github.com/symchan/symchan/internal/abi"
	"github.com/symchan/symchan/internal/seal"
)

// A slot holds a 24-byte header, then up to S-24 payload bytes:
//
//	byte 0       kind: kindData, kindMore or kindClose
//	bytes 1-3    the sender + 1 (little endian) in a mailbox whose lanes
//	             are claimed (Lanes below the PE count, or host memory),
//	             else zero
//	bytes 4-7    payload bytes in this slot (little endian)
//	bytes 8-15   kindData: the message's total length;
//	             kindMore: the offset of this chunk in the message
//	bytes 16-23  the seal, where slots are sealed (see slotSeal); else zero
const headerSize = abi.SlotHeader // 24, as symchan.cuh's kernels read it

// maxNamed bounds the senders a header can name (bytes 1-3 hold from+1).
const maxNamed = 1<<24 - 1

// sealAt is the seal's place in the header.
const sealAt = 16

const (
	kindData  = 1 // a message, or the first chunk of one
	kindMore  = 2 // a further chunk of the message being joined
	kindClose = 3 // the sender closed its side; nothing follows
)

type header struct {
	kind  uint8
	from  int // the sender + 1, where lanes are claimed; 0: unnamed
	n     int // payload bytes in this slot
	total int // kindData: message length
	off   int // kindMore: chunk offset
}

func putHeader(b []byte, h header) {
	b[0], b[1], b[2], b[3] = h.kind, byte(h.from), byte(h.from>>8), byte(h.from>>16)
	binary.LittleEndian.PutUint32(b[4:], uint32(h.n))
	v := h.total
	if h.kind == kindMore {
		v = h.off
	}
	binary.LittleEndian.PutUint64(b[8:], uint64(v))
	binary.LittleEndian.PutUint64(b[sealAt:], 0)
}

// Slots in device memory are sealed: their writer puts data and slot
// word with no fence between them (pgas.PutSignalUnordered; on GPUs the
// fence costs about a microsecond a message, and over NVLink the word
// may then arrive before the data), so the receiver checks what it read
// against the seal and reads again until they agree. The seal of the
// slot of sequence number seq holding b (its header, then n payload
// bytes) is the XOR of seal.Mix(seq, 0), seal.Mix(header word i, 1+i)
// for its first two words, and seal.Mix(payload word j, 3+j) over the
// payload's 8-byte little-endian words, the last one zero-padded.
// symchan.cuh (symchan_mailbox_seal) computes the same.
func slotSeal(b []byte, seq uint64) uint64 {
	h := seal.Mix(seq, 0) ^ seal.Mix(binary.LittleEndian.Uint64(b), 1) ^ seal.Mix(binary.LittleEndian.Uint64(b[8:]), 2)
	p := b[headerSize:]
	j := uint64(3)
	for ; len(p) >= 8; p, j = p[8:], j+1 {
		h ^= seal.Mix(binary.LittleEndian.Uint64(p), j)
	}
	if len(p) > 0 {
		var w [8]byte
		copy(w[:], p)
		h ^= seal.Mix(binary.LittleEndian.Uint64(w[:]), j)
	}
	return h
}

// sealSlot writes the seal of b, the header and payload of the slot of
// sequence number seq, into its header.
func sealSlot(b []byte, seq uint64) {
	binary.LittleEndian.PutUint64(b[sealAt:], slotSeal(b, seq))
}

// sealedLen is the length of the slot whose header starts b (header and
// payload, the payload bytes read from the header clipped to cap) and
// whether b holds all of it with a seal that agrees: the slot is then
// whole, as its writer wrote it for sequence number seq.
func sealedLen(b []byte, seq uint64, cap int) (int, bool) {
	n := headerSize + min(int(binary.LittleEndian.Uint32(b[4:])), cap)
	return n, n <= len(b) && binary.LittleEndian.Uint64(b[sealAt:]) == slotSeal(b[:n], seq)
}

// decodeHeader checks a slot header against the mailbox's limits: the
// payload fits in the slot (cap bytes) and in a message of at most max
// bytes. The sender it names (h.from) is the caller's to check.
func decodeHeader(b []byte, cap, max int) (header, error) {
	if len(b) < headerSize {
		return header{}, fmt.Errorf("%w: header of %d bytes", ErrProtocol, len(b))
	}
	h := header{kind: b[0], from: int(b[1]) | int(b[2])<<8 | int(b[3])<<16, n: int(binary.LittleEndian.Uint32(b[4:]))}
	v := binary.LittleEndian.Uint64(b[8:])
	if h.n > cap {
		return h, fmt.Errorf("%w: chunk of %d bytes in a slot of %d", ErrProtocol, h.n, cap)
	}
	switch h.kind {
	case kindData:
		if v > uint64(max) || uint64(h.n) > v {
			return h, fmt.Errorf("%w: message of %d bytes (chunk %d, max %d)", ErrProtocol, v, h.n, max)
		}
		if uint64(h.n) < v && h.n != cap {
			return h, fmt.Errorf("%w: first chunk of %d bytes does not fill its slot of %d", ErrProtocol, h.n, cap)
		}
		h.total = int(v)
	case kindMore:
		if v > uint64(max) || h.n == 0 || v+uint64(h.n) > uint64(max) {
			return h, fmt.Errorf("%w: chunk [%d, +%d) beyond the max message %d", ErrProtocol, v, h.n, max)
		}
		h.off = int(v)
	case kindClose:
		if h.n != 0 || v != 0 {
			return h, fmt.Errorf("%w: close marker with a payload", ErrProtocol)
		}
	default:
		return h, fmt.Errorf("%w: unknown slot kind %d", ErrProtocol, h.kind)
	}
	return h, nil
}
