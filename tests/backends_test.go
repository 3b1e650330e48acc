package tests

// The suites run on any registered backend; the GPU ones are real in
// binaries built with -tags cuda.
import (
	_ "github.com/symchan/symchan/pgas/cuda"
	_ "github.com/symchan/symchan/pgas/nvshmem"
)
