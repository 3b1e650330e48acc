//go:build !linux

package main

import (
	"os/exec"
	"syscall"
)

// guardArg is Linux's (procattr_linux.go); elsewhere no guard runs.
const guardArg = "-symrun-guard"

// peCommand returns the command that runs argv as a PE, in a process group
// of its own (no parent-death signal outside Linux).
func peCommand(argv []string) (*exec.Cmd, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd, nil
}

func guard([]string) int { return 2 }
