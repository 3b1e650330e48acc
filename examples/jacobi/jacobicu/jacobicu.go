// Package jacobicu holds examples/jacobi's GPU engine, jacobi.cu: CUDA C
// that includes symchan.cuh, which the example compiles when it runs
// (kernels.Compile) and examples/service compiles with its own kernels.
package jacobicu

import _ "embed"

// Source is jacobi.cu.
//
//go:embed jacobi.cu
var Source string

// Kernel names in Source.
const (
	KernelInit   = "jacobi_init"
	KernelSweep  = "jacobi_sweep"
	KernelSweep4 = "jacobi_sweep4"
)
