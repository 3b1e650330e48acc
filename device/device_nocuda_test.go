//go:build !cuda

package device

import (
	"errors"
	"testing"
)

func TestWithoutCUDA(t *testing.T) {
	if _, err := Count(); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Count: %v", err)
	}
	if _, err := Describe(0); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("Describe: %v", err)
	}
	if _, err := CanAccessPeer(0, 1); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("CanAccessPeer: %v", err)
	}
}
