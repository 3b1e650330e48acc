package main

import "syscall"

// procAttr puts a PE in a process group of its own and has the kernel kill
// it when symrun dies, however symrun dies.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
