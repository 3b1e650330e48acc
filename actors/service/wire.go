package service

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/internal/errtext"
)

// A call to another process's PE travels as a request on the world's
// mailbox and comes back as the reply to a future. Little endian:
//
//	request: version (1 byte, 2) · deadline (int64 Unix ns, 0: none) ·
//	         ReplyTo (PE int32, Slot uint32, Gen uint64) ·
//	         carried (uint32 length, then what the Carrier injected) ·
//	         encoded Req
//	reply:   status (1 byte) · encoded Resp (ok) or the error's text
const (
	wireVersion = 2
	requestHead = 1 + 8 + 16 + 4 // without the carried bytes
)

// Reply statuses.
const (
	replyOK byte = iota
	replyError
	replyDeadline
	replyCanceled
	replyMiddleware // a middleware broke its contract (ErrMiddleware): the rest of its text
)

var errBadWire = errors.New("service: malformed message between PEs")

type request struct {
	deadline time.Time // zero: none
	replyTo  actors.ReplyTo
	carried  []byte // what the caller's Carrier injected
	body     []byte
}

func appendRequest(b []byte, deadline time.Time, to actors.ReplyTo, carried []byte) []byte {
	var d int64
	if !deadline.IsZero() {
		d = deadline.UnixNano()
	}
	b = append(b, wireVersion)
	b = binary.LittleEndian.AppendUint64(b, uint64(d))
	b = binary.LittleEndian.AppendUint32(b, uint32(to.PE))
	b = binary.LittleEndian.AppendUint32(b, to.Slot)
	b = binary.LittleEndian.AppendUint64(b, to.Gen)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(carried)))
	return append(b, carried...)
}

// parseRequest decodes a request; body aliases b.
func parseRequest(b []byte) (request, error) {
	if len(b) < requestHead {
		return request{}, fmt.Errorf("%w: request of %d bytes, the header alone is %d", errBadWire, len(b), requestHead)
	}
	if b[0] != wireVersion {
		return request{}, fmt.Errorf("%w: request version %d, expected %d", errBadWire, b[0], wireVersion)
	}
	var r request
	if d := int64(binary.LittleEndian.Uint64(b[1:])); d != 0 {
		r.deadline = time.Unix(0, d)
	}
	r.replyTo = actors.ReplyTo{
		PE:   int32(binary.LittleEndian.Uint32(b[9:])),
		Slot: binary.LittleEndian.Uint32(b[13:]),
		Gen:  binary.LittleEndian.Uint64(b[17:]),
	}
	n := binary.LittleEndian.Uint32(b[25:])
	if uint64(n) > uint64(len(b)-requestHead) {
		return request{}, fmt.Errorf("%w: %d carried bytes in a request of %d", errBadWire, n, len(b))
	}
	if n > 0 {
		r.carried = b[requestHead : requestHead+int(n)]
	}
	r.body = b[requestHead+int(n):]
	return r, nil
}

// replyOf encodes the answer to a call: the response, or err.
func replyOf[Resp any](codec actors.Codec[Resp], v Resp, err error) []byte {
	switch {
	case err == nil:
		b, cerr := codec.Append([]byte{replyOK}, v)
		if cerr == nil {
			return b
		}
		err = fmt.Errorf("encoding the reply: %w", cerr)
	case errors.Is(err, context.DeadlineExceeded):
		return []byte{replyDeadline}
	case errors.Is(err, context.Canceled):
		return []byte{replyCanceled}
	case errors.Is(err, ErrMiddleware):
		return append([]byte{replyMiddleware}, strings.TrimPrefix(err.Error(), ErrMiddleware.Error()+": ")...)
	}
	return append([]byte{replyError}, err.Error()...)
}

// parseReply decodes the reply of PE pe.
func parseReply[Resp any](codec actors.Codec[Resp], pe int, b []byte) (Resp, error) {
	var zero Resp
	if len(b) == 0 {
		return zero, fmt.Errorf("%w: empty reply from PE %d", errBadWire, pe)
	}
	switch b[0] {
	case replyOK:
		v, err := codec.Decode(b[1:])
		if err != nil {
			return zero, fmt.Errorf("service: decoding PE %d's reply: %w", pe, err)
		}
		return v, nil
	case replyError:
		return zero, &ReplyError{PE: pe, Msg: string(b[1:])}
	case replyDeadline:
		return zero, fmt.Errorf("service: PE %d: %w", pe, context.DeadlineExceeded)
	case replyCanceled:
		return zero, fmt.Errorf("service: PE %d: %w", pe, context.Canceled)
	case replyMiddleware:
		return zero, fmt.Errorf("service: PE %d: %w: %s", pe, ErrMiddleware, errtext.OneLine(string(b[1:])))
	}
	return zero, fmt.Errorf("%w: reply status %d from PE %d", errBadWire, b[0], pe)
}
