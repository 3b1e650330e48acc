package server

import (
	"testing"

	"github.com/symchan/symchan/internal/testhelp"
)

// The committed PTX comes from the committed service.cu, jacobi.cu and
// header.
func TestKernelsPTX(t *testing.T) {
	src := []string{"../../../kernels/symchan.cuh", "../../jacobi/jacobi.cu", "service.cu"}
	testhelp.CheckPTX(t, "service.ptx", serviceKernels.PTX, src...)
	testhelp.CheckPTX(t, "service_nvshmem.ptx", serviceKernels.NVSHMEMPTX, src...)
}
