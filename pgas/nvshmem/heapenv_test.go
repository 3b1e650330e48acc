package nvshmem

import (
	"os"
	"strconv"
	"testing"
)

// SYMCHAN_SYMMETRIC_SIZE reaches NVSHMEM as NVSHMEM_SYMMETRIC_SIZE, large
// enough for the partition and what the backend and NVSHMEM add; a value
// the user set wins.
func TestPassHeapSize(t *testing.T) {
	tests := []struct {
		name string
		user string // NVSHMEM_SYMMETRIC_SIZE before; "" unset
		heap int64
		want string
	}{
		{"unset, 64 MiB: NVSHMEM's default", "", 64 << 20, strconv.FormatInt(1<<30, 10)},
		{"unset, 2 GiB", "", 2 << 30, strconv.FormatInt(2<<30+stagingSize+nvshmemReserve, 10)},
		{"user's value kept", "8G", 64 << 20, "8G"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.user != "" {
				t.Setenv(EnvNVSHMEMSize, tc.user)
			} else {
				t.Setenv(EnvNVSHMEMSize, "")
				os.Unsetenv(EnvNVSHMEMSize)
			}
			got, err := passHeapSize(tc.heap)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || os.Getenv(EnvNVSHMEMSize) != tc.want {
				t.Fatalf("passHeapSize(%d) = %q, env %q; want %q", tc.heap, got, os.Getenv(EnvNVSHMEMSize), tc.want)
			}
			if tc.user == "" && symmetricSize(tc.heap) <= tc.heap+stagingSize {
				t.Fatalf("no room for NVSHMEM's own allocations")
			}
		})
	}
}

// NVSHMEM_CUMEM_GRANULARITY becomes the GPU's granularity unless the user
// set it, and registered buffers come in NVSHMEM's unit, never less than
// the GPU's.
func TestGranularity(t *testing.T) {
	const gpu = 2 << 20
	tests := []struct {
		name      string
		user      string // "" unset
		wantEnv   string
		wantAlign int64
	}{
		{"unset: the GPU's", "", "2097152", gpu},
		{"user's value kept", "536870912", "536870912", 512 << 20},
		{"with a suffix", "1G", "1G", 1 << 30},
		{"unreadable: NVSHMEM's default", "lots", "lots", nvshmemGranularity},
		{"below the GPU's", "4096", "4096", gpu},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvNVSHMEMGranularity, tc.user)
			if tc.user == "" {
				os.Unsetenv(EnvNVSHMEMGranularity)
			}
			if err := passGranularity(gpu); err != nil {
				t.Fatal(err)
			}
			if got := os.Getenv(EnvNVSHMEMGranularity); got != tc.wantEnv {
				t.Errorf("env %q, want %q", got, tc.wantEnv)
			}
			if got := registerAlign(gpu); got != tc.wantAlign {
				t.Errorf("registerAlign = %d, want %d", got, tc.wantAlign)
			}
		})
	}
}
