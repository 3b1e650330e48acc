package bench

import (
	_ "embed"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

// The benchmarks' kernels, bench.cu, compiled when first loaded
// (kernels.Compile), as a user's program compiles.
//
//go:embed bench.cu
var benchSource string

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
	p, err := kernels.Compile("bench.cu", benchSource, kernels.CompileOptions{})
	if err != nil {
		return nil, err
	}
	mod, err := g.Load(p)
	if err != nil {
		return nil, err
	}
	return mod.Function(name)
}
