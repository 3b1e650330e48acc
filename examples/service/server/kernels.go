package server

import (
	_ "embed"

	"github.com/symchan/symchan/kernels"
)

// The service's kernels, service.cu (with examples/jacobi's jacobi.cu),
// compiled by scripts/gpu-ptx.sh.
var (
	//go:embed service.ptx
	servicePTX string
	//go:embed service_nvshmem.ptx
	serviceNVSHMEMPTX string

	serviceKernels = kernels.Program{Name: "service", PTX: servicePTX, NVSHMEMPTX: serviceNVSHMEMPTX}
)
