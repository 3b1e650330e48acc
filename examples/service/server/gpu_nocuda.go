//go:build !cuda

package server
