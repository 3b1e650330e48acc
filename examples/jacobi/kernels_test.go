package main

import (
	"testing"

	"github.com/symchan/symchan/internal/testhelp"
)

// The committed PTX comes from the committed jacobi.cu and header.
func TestKernelsPTX(t *testing.T) {
	src := []string{"../../kernels/symchan.cuh", "jacobi.cu"}
	testhelp.CheckPTX(t, "jacobi.ptx", jacobiKernels.PTX, src...)
	testhelp.CheckPTX(t, "jacobi_nvshmem.ptx", jacobiKernels.NVSHMEMPTX, src...)
}
