package bench

import (
	_ "embed"
	"testing"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

// The benchmarks' kernels, bench.cu, compiled by scripts/gpu-ptx.sh.
var (
	//go:embed bench.ptx
	benchPTX string
	//go:embed bench_nvshmem.ptx
	benchNVSHMEMPTX string

	benchKernels = kernels.Program{Name: "bench", PTX: benchPTX, NVSHMEMPTX: benchNVSHMEMPTX}
)

// Kernel names in bench.cu.
const (
	kernelPingPong      = "bench_pingpong"
	kernelPutBlock      = "bench_put_block"
	kernelActorPingPong = "bench_actor_pingpong"
	kernelRateSend      = "bench_rate_send"
	kernelRateRecv      = "bench_rate_recv"
	kernelRateActor     = "bench_rate_actor"
)

// benchKernel is kernel name of bench.cu, loaded on g.
func benchKernel(g pgas.GPU, name string) (*device.Function, error) {
	mod, err := g.Load(benchKernels)
	if err != nil {
		return nil, err
	}
	return mod.Function(name)
}

// The committed PTX comes from the committed bench.cu and header.
func TestKernelsPTX(t *testing.T) {
	src := []string{"../kernels/symchan.cuh", "bench.cu"}
	testhelp.CheckPTX(t, "bench.ptx", benchKernels.PTX, src...)
	testhelp.CheckPTX(t, "bench_nvshmem.ptx", benchKernels.NVSHMEMPTX, src...)
}
