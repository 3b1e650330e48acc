package pgas

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/symchan/symchan/pgas/driver"
	"github.com/symchan/symchan/pgas/host"
)

// Transports that move strided data element by element: one without
// driver.StridedTransport (embedding the interface hides the host's), one
// whose strided methods decline with errors.ErrUnsupported.
type (
	plainBackend     struct{}
	plainTransport   struct{ driver.Transport }
	decliningBackend struct{}
	decliningTr      struct{ driver.Transport }
)

func (plainBackend) Open(ctx context.Context, cfg driver.Config) (driver.Transport, error) {
	tr, err := host.Backend{}.Open(ctx, cfg)
	return plainTransport{tr}, err
}

func (decliningBackend) Open(ctx context.Context, cfg driver.Config) (driver.Transport, error) {
	tr, err := host.Backend{}.Open(ctx, cfg)
	return decliningTr{tr}, err
}

func (decliningTr) PutStrided(int, int, int64, int64, int64, int, []byte, bool) error {
	return errors.ErrUnsupported
}

func (decliningTr) GetStrided(int, int, int64, int64, int64, int, []byte) error {
	return errors.ErrUnsupported
}

func init() {
	Register("test-plain", plainBackend{})
	Register("test-declining", decliningBackend{})
}

// pgas's element-by-element path moves exactly what the strides name.
func TestStridedFallback(t *testing.T) {
	for _, backend := range []string{"test-plain", "test-declining"} {
		t.Run(backend, func(t *testing.T) {
			err := Run(context.Background(), Config{Backend: backend, PEs: 2, HeapSize: 1 << 20}, func(ctx context.Context, pe *PE) error {
				dst, err := AllocZeroed[int32](ctx, pe, 12)
				if err != nil || pe.ID() != 0 {
					return err
				}
				src := []int32{1, -1, 2, -1, 3, -1, 4}
				if err := IPut(pe, dst, src, 3, 2, 4, 1); err != nil {
					return err
				}
				got := make([]int32, 12)
				if err := Get(pe, got, dst, 1); err != nil {
					return err
				}
				if want := []int32{1, 0, 0, 2, 0, 0, 3, 0, 0, 4, 0, 0}; !slices.Equal(got, want) {
					t.Errorf("IPut: %v, want %v", got, want)
				}
				back := make([]int32, 4)
				if err := IGet(pe, back, dst, 1, 3, 4, 1); err != nil {
					return err
				}
				if want := []int32{1, 2, 3, 4}; !slices.Equal(back, want) {
					t.Errorf("IGet: %v, want %v", back, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
