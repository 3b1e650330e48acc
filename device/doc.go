// Package device is symchan's GPU driver layer: the CUDA driver API
// through cgo, against cuda.h and libcuda. It is compiled in only with the
// build tag cuda; without it every function returns ErrNoCUDA, which says
// how to build with CUDA. It depends on no Go module: a program that
// imports symchan without the cuda tag gets no GPU dependency.
//
// It has device enumeration and description, peer-access capability,
// contexts (used through Do, which pins the goroutine to an OS thread with
// the context current), device memory, host↔device and peer copies,
// non-blocking streams with 64-bit write/wait-value memory operations,
// events, mapped pinned host memory, PTX modules loaded with the driver's
// JIT or linked with device libraries, kernel launches (cooperative too),
// and CUDA C compiled to PTX with NVRTC, which it loads at run time
// (CompilePTX). Kernel arguments are passed as 8-byte values: our kernels
// take pointers and 64-bit integers.
//
// Build with CUDA on a machine without it (headers and libcuda from
// Debian's non-free packages, nothing installed):
//
//	eval "$(scripts/cuda-sdk.sh --env)"
//	go build -tags cuda ./...
//
// The driver is initialised on first use: a cuda-tagged binary runs where
// no NVIDIA driver is, and its first GPU call (Count, say) returns the
// driver's error.
package device

// The !cuda twin of the *_cuda.go files: the same API and docs, every
// function returning ErrNoCUDA (TestStubs checks it is up to date).
//go:generate go run github.com/symchan/symchan/internal/stubgen/cmd/stubgen -tag cuda -err ErrNoCUDA -o stubs_nocuda.go

import "errors"

// ErrNoCUDA is returned by every function of a binary built without the
// cuda tag.
var ErrNoCUDA = errors.New("device: this binary was built without CUDA; rebuild with -tags cuda " +
	`(on a machine without CUDA: eval "$(scripts/cuda-sdk.sh --env)" first)`)

// ErrBadLaunch is wrapped by the error of a launch whose arguments do not
// match the kernel's parameters (Function.Params).
var ErrBadLaunch = errors.New("device: launch arguments do not match the kernel")

// Info describes one GPU.
type Info struct {
	Ordinal      int
	Name         string
	TotalMem     int64 // bytes
	Major, Minor int   // compute capability
	SMs          int   // streaming multiprocessors
}
