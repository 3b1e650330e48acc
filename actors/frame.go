package actors

import (
	"encoding/binary"
	"fmt"
)

// A slot holds a 16-byte header, then up to S-16 payload bytes:
//
//	byte 0     kind: kindData, kindMore or kindClose
//	bytes 1-3  zero
//	bytes 4-7  payload bytes in this slot (little endian)
//	bytes 8-15 kindData: the message's total length;
//	           kindMore: the offset of this chunk in the message
const headerSize = 16

const (
	kindData  = 1 // a message, or the first chunk of one
	kindMore  = 2 // a further chunk of the message being joined
	kindClose = 3 // the sender closed its side; nothing follows
)

type header struct {
	kind  uint8
	n     int // payload bytes in this slot
	total int // kindData: message length
	off   int // kindMore: chunk offset
}

func putHeader(b []byte, h header) {
	b[0], b[1], b[2], b[3] = h.kind, 0, 0, 0
	binary.LittleEndian.PutUint32(b[4:], uint32(h.n))
	v := h.total
	if h.kind == kindMore {
		v = h.off
	}
	binary.LittleEndian.PutUint64(b[8:], uint64(v))
}

// decodeHeader checks a slot header against the mailbox's limits: the
// payload fits in the slot (cap bytes) and in a message of at most max
// bytes.
func decodeHeader(b []byte, cap, max int) (header, error) {
	if len(b) < headerSize {
		return header{}, fmt.Errorf("%w: header of %d bytes", ErrProtocol, len(b))
	}
	if b[1]|b[2]|b[3] != 0 {
		return header{}, fmt.Errorf("%w: reserved header bytes set", ErrProtocol)
	}
	h := header{kind: b[0], n: int(binary.LittleEndian.Uint32(b[4:]))}
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
