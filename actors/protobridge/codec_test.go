package protobridge_test

import (
	"context"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/actors/protobridge"
	"github.com/symchan/symchan/pgas"
)

func TestCodecOnChan(t *testing.T) {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 4 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		ch, err := actors.NewChanCodec[*structpb.Struct](ctx, pe, protobridge.Codec[*structpb.Struct]{})
		if err != nil {
			return err
		}
		want, _ := structpb.NewStruct(map[string]any{"pe": float64(pe.ID()), "tags": []any{"a", "b"}, "big": string(make([]byte, 3000))})
		if err := ch.Send(ctx, 1-pe.ID(), want); err != nil {
			return err
		}
		got, err := ch.Recv(ctx)
		if err != nil {
			return err
		}
		if got.Fields["pe"].GetNumberValue() != float64(1-pe.ID()) || len(got.Fields["big"].GetStringValue()) != 3000 {
			t.Errorf("PE %d got %v", pe.ID(), got.Fields["pe"])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var c protobridge.Codec[*wrapperspb.StringValue]
	if _, err := c.Decode([]byte{0xff}); err == nil {
		t.Error("bad bytes decoded")
	}
	b, _ := c.Append(nil, wrapperspb.String("x"))
	if m, err := c.Decode(b); err != nil || !proto.Equal(m, wrapperspb.String("x")) {
		t.Errorf("round trip: %v, %v", m, err)
	}
}
