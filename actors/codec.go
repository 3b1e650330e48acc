package actors

import (
	"fmt"
	"unsafe"

	"github.com/symchan/symchan/internal/plain"
)

// Codec turns values of T into bytes and back, for types that are not
// fixed-size plain data. Implementations must be safe for concurrent use.
type Codec[T any] interface {
	// Append appends the encoding of v to b and returns the result.
	Append(b []byte, v T) ([]byte, error)
	// Decode decodes a value from b, which it must not retain.
	Decode(b []byte) (T, error)
}

// PlainCodec returns the codec NewChan and NewFuture use for a plain T
// (its memory as raw bytes), or ErrNoCodec if T is not plain: for layers
// above that take a Codec and want the same encoding.
func PlainCodec[T any]() (Codec[T], error) {
	if !plain.Of[T]() {
		var z T
		return nil, fmt.Errorf("%w: %T", ErrNoCodec, z)
	}
	return rawCodec[T]{}, nil
}

// givenCodec checks a codec passed to a ...Codec constructor.
func givenCodec[T any](c Codec[T]) (Codec[T], error) {
	if c == nil {
		var z T
		return nil, fmt.Errorf("%w: nil codec for %T", ErrBadArg, z)
	}
	return c, nil
}

// rawCodec copies a plain value's memory: no reflection, no allocation.
type rawCodec[T any] struct{}

func (rawCodec[T]) Append(b []byte, v T) ([]byte, error) {
	return append(b, unsafe.Slice((*byte)(unsafe.Pointer(&v)), unsafe.Sizeof(v))...), nil
}

func (rawCodec[T]) Decode(b []byte) (T, error) {
	var v T
	if uintptr(len(b)) != unsafe.Sizeof(v) {
		return v, fmt.Errorf("%w: %d bytes for a %T of %d", ErrProtocol, len(b), v, unsafe.Sizeof(v))
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&v)), len(b)), b)
	return v, nil
}

// BytesCodec passes []byte messages through unchanged (copied on receive).
type BytesCodec struct{}

// Append appends v.
func (BytesCodec) Append(b []byte, v []byte) ([]byte, error) { return append(b, v...), nil }

// Decode returns a copy of b.
func (BytesCodec) Decode(b []byte) ([]byte, error) { return append([]byte(nil), b...), nil }

// StringCodec sends strings as their bytes.
type StringCodec struct{}

// Append appends v's bytes.
func (StringCodec) Append(b []byte, v string) ([]byte, error) { return append(b, v...), nil }

// Decode returns b as a string.
func (StringCodec) Decode(b []byte) (string, error) { return string(b), nil }
