package server

import (
	_ "embed"

	"github.com/symchan/symchan/examples/jacobi/jacobicu"
	"github.com/symchan/symchan/kernels"
)

//go:embed service.cu
var serviceSource string

// serviceProgram compiles the service's kernels (kernels.Compile): service.cu
// after examples/jacobi's jacobi.cu, whose jacobi_init it uses.
func serviceProgram() (kernels.Program, error) {
	return kernels.Compile("service.cu", jacobicu.Source+"\n#line 1 \"service.cu\"\n"+serviceSource, kernels.CompileOptions{})
}

// Kernel names in service.cu.
const kernelSweep = "service_jacobi_sweep"
