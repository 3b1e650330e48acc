package protobridge

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// An envelope on the wire: four length-prefixed strings (uvarint lengths)
// — target actor id, sender address, sender id, message type — then the
// protobuf payload.
type envelope struct {
	target, senderAddr, senderID, typeName string
	payload                                []byte
}

const maxField = 1 << 16 // longest id, address or type name accepted

func (e envelope) encode() []byte {
	b := make([]byte, 0, 20+len(e.target)+len(e.senderAddr)+len(e.senderID)+len(e.typeName)+len(e.payload))
	for _, s := range []string{e.target, e.senderAddr, e.senderID, e.typeName} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return append(b, e.payload...)
}

var errEnvelope = errors.New("protobridge: malformed envelope")

func decodeEnvelope(b []byte) (envelope, error) {
	var f [4]string
	for i := range f {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > maxField || n > uint64(len(b)-k) {
			return envelope{}, fmt.Errorf("%w: field %d", errEnvelope, i)
		}
		f[i] = string(b[k : k+int(n)])
		b = b[k+int(n):]
	}
	if f[0] == "" || f[3] == "" {
		return envelope{}, fmt.Errorf("%w: no target or no message type", errEnvelope)
	}
	return envelope{target: f[0], senderAddr: f[1], senderID: f[2], typeName: f[3], payload: append([]byte(nil), b...)}, nil
}
