package protobridge

import (
	"errors"
	"reflect"
	"testing"
)

func TestEnvelopeRoundTrip(t *testing.T) {
	cases := []envelope{
		{target: "echo", typeName: "google.protobuf.StringValue", payload: []byte{10, 2, 'h', 'i'}},
		{target: "future$x", senderAddr: "symchan-pe-3", senderID: "$1", typeName: "a.B"},
	}
	for _, e := range cases {
		got, err := decodeEnvelope(e.encode())
		if err != nil || !reflect.DeepEqual(got, e) {
			t.Errorf("%+v: decoded %+v, %v", e, got, err)
		}
	}
	for _, bad := range [][]byte{nil, {5, 'a'}, {0, 0, 0, 1, 'x'}, {1, 'a', 0, 0, 0}, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 1}} {
		if _, err := decodeEnvelope(bad); !errors.Is(err, errEnvelope) {
			t.Errorf("%x accepted: %v", bad, err)
		}
	}
}

func TestPEOf(t *testing.T) {
	for addr, want := range map[string]int{"symchan-pe-0": 0, "symchan-pe-12": 12} {
		if pe, ok := peOf(addr); !ok || pe != want {
			t.Errorf("peOf(%q) = %d, %v", addr, pe, ok)
		}
	}
	for _, addr := range []string{"nonhost", "symchan-pe-", "symchan-pe--1", "symchan-pe-01", "symchan-pe-x"} {
		if _, ok := peOf(addr); ok {
			t.Errorf("peOf(%q) accepted", addr)
		}
	}
}

// FuzzDecodeEnvelope: never panics; what decodes re-encodes identically.
func FuzzDecodeEnvelope(f *testing.F) {
	f.Add(envelope{target: "t", typeName: "x.Y", payload: []byte{1, 2}}.encode())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := decodeEnvelope(b)
		if err != nil {
			return
		}
		if got, err := decodeEnvelope(e.encode()); err != nil || !reflect.DeepEqual(got, e) {
			t.Fatalf("re-decode of %+v: %+v, %v", e, got, err)
		}
	})
}
