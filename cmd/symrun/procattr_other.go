//go:build !linux

package main

import "syscall"

// procAttr puts a PE in a process group of its own (no parent-death
// signal outside Linux).
func procAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
