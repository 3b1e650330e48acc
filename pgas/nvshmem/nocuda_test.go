//go:build !cuda

package nvshmem_test

import (
	"context"
	"errors"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas"
	_ "github.com/symchan/symchan/pgas/nvshmem"
)

func TestWithoutCUDA(t *testing.T) {
	err := pgas.Run(context.Background(), pgas.Config{Backend: "nvshmem"}, func(context.Context, *pgas.PE) error { return nil })
	if !errors.Is(err, device.ErrNoCUDA) {
		t.Fatalf("Run on nvshmem without the tag: %v, want ErrNoCUDA", err)
	}
}
