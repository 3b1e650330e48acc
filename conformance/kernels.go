package conformance

import (
	_ "embed"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

// The GPU tests' kernels, conformance.cu, compiled by scripts/gpu-ptx.sh.
var (
	//go:embed conformance.ptx
	conformancePTX string
	//go:embed conformance_nvshmem.ptx
	conformanceNVSHMEMPTX string
)

// Kernels is the program of the GPU tests' kernels (conformance.cu),
// which the tests load with pgas.GPU.Load; backends' own device tests may
// load it too (test_waits, test_put_signal_variants, test_routines).
var Kernels = kernels.Program{Name: "conformance", PTX: conformancePTX, NVSHMEMPTX: conformanceNVSHMEMPTX}

// Kernel names in conformance.cu.
const (
	kernelMailboxEcho          = "mailbox_echo"
	kernelMailboxFanIn         = "mailbox_fanin"
	kernelMailboxEchoBlock     = "mailbox_echo_block"
	kernelMailboxSendMP        = "mailbox_send_mp"
	kernelActorSendMP          = "actor_send_mp"
	kernelMailboxRecvManyCheck = "mailbox_recv_many_check"
	kernelFutureServe          = "future_serve"
	kernelActorEcho            = "actor_echo"
	kernelActorRing            = "actor_ring"
)

// kernelOf is the kernel name of Kernels, loaded on g.
func kernelOf(g pgas.GPU, name string) (*device.Function, error) {
	mod, err := g.Load(Kernels)
	if err != nil {
		return nil, err
	}
	return mod.Function(name)
}
