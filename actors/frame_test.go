package actors

import (
	"errors"
	"testing"
)

func TestHeaderRoundTrip(t *testing.T) {
	const cap, max = 1008, 1 << 20
	cases := []header{
		{kind: kindData, n: 8, total: 8},
		{kind: kindData, n: 0, total: 0},
		{kind: kindData, n: cap, total: 5000},
		{kind: kindMore, n: 100, off: 4000},
		{kind: kindClose},
		{kind: kindData, from: 1, n: 8, total: 8}, // a claimed lane's sender 0
		{kind: kindClose, from: maxNamed},         // the highest sender a header names
		{kind: kindMore, from: 4096, n: 100, off: 4000},
	}
	for _, h := range cases {
		b := make([]byte, headerSize)
		putHeader(b, h)
		got, err := decodeHeader(b, cap, max)
		if err != nil || got != h {
			t.Errorf("%+v: decoded %+v, %v", h, got, err)
		}
	}
	bad := []header{
		{kind: kindData, n: cap + 1, total: cap + 1}, // chunk larger than a slot
		{kind: kindData, n: 8, total: max + 1},       // beyond the max
		{kind: kindData, n: 9, total: 8},             // chunk longer than the message
		{kind: kindData, n: 8, total: 5000},          // first chunk short of its slot
		{kind: kindMore, n: 0, off: 8},               // empty continuation
		{kind: kindMore, n: 100, off: max - 50},      // past the max
		{kind: 9, n: 1, total: 1},
	}
	for _, h := range bad {
		b := make([]byte, headerSize)
		putHeader(b, h)
		if _, err := decodeHeader(b, cap, max); !errors.Is(err, ErrProtocol) {
			t.Errorf("%+v accepted: %v", h, err)
		}
	}
	b := make([]byte, headerSize)
	putHeader(b, header{kind: kindClose})
	b[9] = 1
	if _, err := decodeHeader(b, cap, max); err == nil {
		t.Error("close marker with a value accepted")
	}
}

// FuzzDecodeHeader: the decoder never panics, and whatever it accepts is
// within the limits and encodes back to the same bytes.
func FuzzDecodeHeader(f *testing.F) {
	for _, h := range []header{{kind: kindData, n: 8, total: 8}, {kind: kindMore, n: 3, off: 1000}, {kind: kindClose}, {kind: kindData, from: maxNamed, n: 8, total: 8}, {kind: kindClose, from: 4097}} {
		b := make([]byte, headerSize)
		putHeader(b, h)
		f.Add(b)
	}
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		const cap, max = 1008, 1 << 20
		h, err := decodeHeader(b, cap, max)
		if err != nil {
			return
		}
		if h.n < 0 || h.n > cap || h.total > max || h.off+h.n > max || h.from < 0 || h.from > maxNamed {
			t.Fatalf("accepted out-of-limit header %+v", h)
		}
		re := make([]byte, headerSize)
		putHeader(re, h)
		if string(re[:sealAt]) != string(b[:sealAt]) { // the seal is sealedLen's to check
			t.Fatalf("header %+v re-encodes to %x, was %x", h, re[:sealAt], b[:sealAt])
		}
	})
}

// FuzzLineMessage: the receive path's check of a host line accepts only
// what decodeHeader accepts, as the same whole message of n bytes, which
// fit the line and max (the mailbox's largest message, from 0 up).
func FuzzLineMessage(f *testing.F) {
	line := make([]uint64, lineWords-1)
	putHeader(wordBytes(line), header{kind: kindData, n: 8, total: 8})
	f.Add(line[0], line[1], line[2], 64)
	f.Add(line[0], line[1], line[2], 4)
	putHeader(wordBytes(line), header{kind: kindData, n: lineCap + 1, total: lineCap + 1})
	f.Add(line[0], line[1], line[2], 64)
	putHeader(wordBytes(line), header{kind: kindClose})
	f.Add(line[0], line[1], line[2], 64)
	putHeader(wordBytes(line), header{kind: kindData, from: 4096, n: 8, total: 8})
	f.Add(line[0], line[1], line[2], 64)
	f.Fuzz(func(t *testing.T, w0, w1, w2 uint64, max int) {
		if max < 0 {
			max = -(max + 1)
		}
		line := make([]uint64, lineWords-1)
		line[0], line[1], line[2] = w0, w1, w2
		n, from, ok := lineMessage(line, max)
		if !ok {
			return
		}
		h, err := decodeHeader(wordBytes(line), 1008, max)
		if err != nil {
			t.Fatalf("lineMessage accepted %x %x (n %d), decodeHeader refused: %v", w0, w1, n, err)
		}
		if h.kind != kindData || h.n != n || h.total != n || h.from != from || n > lineCap || n > max {
			t.Fatalf("lineMessage: %d bytes from %d; decodeHeader: %+v (max %d)", n, from, h, max)
		}
	})
}

// sealedLen never reads past what it is given, and vouches only for a
// slot whose seal is the one sealSlot writes for that sequence number.
func FuzzSealedLen(f *testing.F) {
	b := make([]byte, headerSize+8)
	putHeader(b, header{kind: kindData, n: 8, total: 8})
	sealSlot(b, 3)
	f.Add(b, uint64(3))
	f.Add(b, uint64(4))
	f.Add(b[:headerSize], uint64(3))
	f.Fuzz(func(t *testing.T, b []byte, seq uint64) {
		if len(b) < headerSize {
			return // callers hand it at least a header
		}
		const cap = 1000
		n, ok := sealedLen(b, seq, cap)
		if n < headerSize || n > headerSize+cap {
			t.Fatalf("length %d outside [%d, %d]", n, headerSize, headerSize+cap)
		}
		if !ok {
			return
		}
		re := append([]byte(nil), b[:n]...)
		sealSlot(re, seq)
		if string(re) != string(b[:n]) {
			t.Fatalf("vouched for a slot whose seal is not sealSlot's")
		}
	})
}
