package protobridge

import (
	"fmt"

	"google.golang.org/protobuf/proto"
)

// Codec is an actors.Codec for protobuf messages, the encoding protoactor
// uses, so a Chan can carry them:
//
//	ch, err := actors.NewChanCodec[*pb.Order](ctx, pe, protobridge.Codec[*pb.Order]{})
//
// Decode makes a new message of M's type; M must be a pointer to a
// generated message type.
type Codec[M proto.Message] struct{}

// Append appends the wire encoding of m to b.
func (Codec[M]) Append(b []byte, m M) ([]byte, error) {
	return proto.MarshalOptions{}.MarshalAppend(b, m)
}

// Decode parses b into a new M.
func (Codec[M]) Decode(b []byte) (M, error) {
	var zero M
	m, ok := zero.ProtoReflect().Type().New().Interface().(M)
	if !ok {
		return zero, fmt.Errorf("protobridge: cannot make a new %T", zero)
	}
	if err := proto.Unmarshal(b, m); err != nil {
		return zero, err
	}
	return m, nil
}
