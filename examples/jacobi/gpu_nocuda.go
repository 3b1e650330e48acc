//go:build !cuda

package main

// Without the cuda tag the cuda backend reports how to build with CUDA
// when it is opened; there is no GPU engine to register.
