package service

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/symchan/symchan/actors"
)

func TestRequestRoundTrip(t *testing.T) {
	to := actors.ReplyTo{PE: 7, Slot: 3, Gen: 1 << 40}
	for _, d := range []time.Time{{}, time.Unix(0, 1_700_000_000_123_456_789)} {
		for _, carried := range []string{"", "traceparent=00-abc"} {
			b := append(appendRequest(nil, d, to, []byte(carried)), "body"...)
			r, err := parseRequest(b)
			if err != nil || !r.deadline.Equal(d) || r.replyTo != to || string(r.carried) != carried || string(r.body) != "body" {
				t.Errorf("deadline %v, carried %q: got %+v, %v", d, carried, r, err)
			}
		}
	}
	// A carried length past the end is malformed, not a panic.
	b := appendRequest(nil, time.Time{}, to, []byte("xy"))
	if _, err := parseRequest(b[:len(b)-1]); !errors.Is(err, errBadWire) {
		t.Errorf("a request cut inside its carried bytes: %v", err)
	}
}

func TestReplyRoundTrip(t *testing.T) {
	c := mustPlain[resp]()
	cases := []struct {
		name string
		v    resp
		err  error
		want error // nil: v comes back
	}{
		{"ok", resp{Y: 5, PE: 2}, nil, nil},
		{"error", resp{}, errors.New("boom"), &ReplyError{Msg: "boom"}},
		{"error of two lines", resp{}, errors.Join(errors.New("boom"), errors.New("bang")), &ReplyError{Msg: "boom\nbang"}},
		{"deadline", resp{}, context.DeadlineExceeded, context.DeadlineExceeded},
		{"canceled", resp{}, context.Canceled, context.Canceled},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := parseReply[resp](c, 4, replyOf[resp](c, tc.v, tc.err))
			switch want := tc.want.(type) {
			case nil:
				if err != nil || v != tc.v {
					t.Errorf("got %+v, %v", v, err)
				}
			case *ReplyError:
				var re *ReplyError
				if !errors.As(err, &re) || re.PE != 4 || re.Msg != want.Msg {
					t.Errorf("got %v", err)
				}
				if text := err.Error(); strings.ContainsAny(text, "\n\r") {
					t.Errorf("the reply error's text %q is not one line", text)
				}
			default:
				if !errors.Is(err, want) {
					t.Errorf("got %v, want %v", err, want)
				}
			}
		})
	}
}

// The decoders take any bytes without panicking, and a request that
// parses encodes back to the same bytes.
func FuzzParseRequest(f *testing.F) {
	f.Add(appendRequest(nil, time.Unix(5, 6), actors.ReplyTo{PE: 1, Slot: 2, Gen: 3}, nil))
	f.Add(appendRequest(nil, time.Unix(5, 6), actors.ReplyTo{PE: 1, Slot: 2, Gen: 3}, []byte("k=v")))
	f.Add([]byte{})
	f.Add([]byte{2, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseRequest(b)
		if err != nil {
			if !errors.Is(err, errBadWire) {
				t.Fatalf("error %v does not wrap errBadWire", err)
			}
			return
		}
		again := append(appendRequest(nil, r.deadline, r.replyTo, r.carried), r.body...)
		if string(again) != string(b) {
			t.Fatalf("%x parsed to %+v, which encodes as %x", b, r, again)
		}
	})
}

func FuzzParseReply(f *testing.F) {
	c := mustPlain[resp]()
	f.Add(replyOf[resp](c, resp{Y: 1}, nil))
	f.Add(replyOf[resp](c, resp{}, errors.New("x")))
	f.Add([]byte{9})
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseReply[resp](c, 0, b)
	})
}

func mustPlain[T any]() actors.Codec[T] {
	c, err := actors.PlainCodec[T]()
	if err != nil {
		panic(err)
	}
	return c
}
