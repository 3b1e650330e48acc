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
