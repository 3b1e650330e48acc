package actors_test

import (
	"context"
	"errors"
	"testing"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
)

// StartKernel checks its arguments, and on a backend whose PEs are not
// GPUs says so; the mailbox stays usable from Go.
func TestStartKernelBadInput(t *testing.T) {
	err := pgas.Run(context.Background(), pgas.Config{PEs: 2}, func(ctx context.Context, pe *pgas.PE) error {
		mb, err := actors.NewMailbox(ctx, pe)
		if err != nil {
			return err
		}
		other, err := actors.NewSystem(ctx, pe)
		if err != nil {
			return err
		}
		fn := &device.Function{}
		cases := []struct {
			name string
			err  error
			want error
		}{
			{"nil mailbox", startErr(actors.StartKernel(ctx, nil, nil, fn, device.D1(1), device.D1(32))), actors.ErrBadArg},
			{"nil function", startErr(actors.StartKernel(ctx, mb, nil, nil, device.D1(1), device.D1(32))), actors.ErrBadArg},
			{"host backend", startErr(actors.StartKernel(ctx, mb, other, fn, device.D1(1), device.D1(32))), pgas.ErrNotGPU},
		}
		for _, c := range cases {
			if !errors.Is(c.err, c.want) {
				t.Errorf("%s: %v, want %v", c.name, c.err, c.want)
			}
		}
		if err := mb.Send(ctx, 1-pe.ID(), []byte("still works")); err != nil {
			return err
		}
		_, err = mb.Recv(ctx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func startErr(_ *actors.KernelActor, err error) error { return err }
