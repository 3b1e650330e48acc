package main

import (
	"testing"

	"github.com/symchan/symchan/internal/testhelp"
)

// The committed PTX comes from the committed ring.cu and header.
func TestKernelsPTX(t *testing.T) {
	src := []string{"../../kernels/symchan.cuh", "ring.cu"}
	testhelp.CheckPTX(t, "ring.ptx", ringKernels.PTX, src...)
	testhelp.CheckPTX(t, "ring_nvshmem.ptx", ringKernels.NVSHMEMPTX, src...)
}
