package main

import (
	_ "embed"

	"github.com/symchan/symchan/kernels"
)

// The GPU engine's kernels, jacobi.cu, compiled by scripts/gpu-ptx.sh.
var (
	//go:embed jacobi.ptx
	jacobiPTX string
	//go:embed jacobi_nvshmem.ptx
	jacobiNVSHMEMPTX string

	jacobiKernels = kernels.Program{Name: "jacobi", PTX: jacobiPTX, NVSHMEMPTX: jacobiNVSHMEMPTX}
)

// Kernel names in jacobi.cu.
const (
	kernelInit   = "jacobi_init"
	kernelSweep  = "jacobi_sweep"
	kernelSweep4 = "jacobi_sweep4"
)
