//go:build !cuda

package device

import (
	"errors"
	"testing"
)

func TestContextWithoutCUDA(t *testing.T) {
	if _, err := NewContext(0); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("NewContext: %v", err)
	}
	if err := CopyPeer(0, nil, 0, nil, 8); !errors.Is(err, ErrNoCUDA) {
		t.Errorf("CopyPeer: %v", err)
	}
}
