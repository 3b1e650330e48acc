package conformance

import (
	_ "embed"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
)

//go:embed conformance.cu
var conformanceSource string

// Kernels compiles the GPU tests' kernels (conformance.cu) with
// kernels.Compile, as a user's program compiles: once a process, and from
// the on-disk cache after the first run. The tests load the program with
// pgas.GPU.Load; backends' own device tests may load it too (test_waits,
// test_put_signal_variants, test_routines).
func Kernels() (kernels.Program, error) {
	return kernels.Compile("conformance.cu", conformanceSource, kernels.CompileOptions{})
}

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
	p, err := Kernels()
	if err != nil {
		return nil, err
	}
	mod, err := g.Load(p)
	if err != nil {
		return nil, err
	}
	return mod.Function(name)
}
