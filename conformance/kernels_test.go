package conformance

import (
	"testing"

	"github.com/symchan/symchan/internal/testhelp"
)

// The committed PTX comes from the committed conformance.cu and header.
func TestKernelsPTX(t *testing.T) {
	src := []string{"../kernels/symchan.cuh", "conformance.cu"}
	testhelp.CheckPTX(t, "conformance.ptx", Kernels.PTX, src...)
	testhelp.CheckPTX(t, "conformance_nvshmem.ptx", Kernels.NVSHMEMPTX, src...)
}
