package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
)

// On Linux each PE runs under a guard: symrun itself, started again with
// guardArg, leading the PE's process group. The kernel tells the guard
// when symrun dies, however it dies (parent-death signal), and the guard
// then kills the whole group — the PE and everything it started that
// stayed in its group — where a parent-death signal on the PE alone
// would leave the PE's children behind.

// guardArg, as symrun's first argument, makes it a PE's guard (guard).
const guardArg = "-symrun-guard"

// prSetChildSubreaper is prctl's PR_SET_CHILD_SUBREAPER.
const prSetChildSubreaper = 36

// peCommand returns the command that runs argv as a PE, in a process
// group of its own; it fails as exec.Command would start it.
func peCommand(argv []string) (*exec.Cmd, error) {
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		cmd := exec.Command(prog, argv[1:]...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		return cmd, nil
	}
	cmd := exec.Command(self, append([]string{guardArg, strconv.Itoa(os.Getpid()), prog}, argv[1:]...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGUSR2}
	return cmd, nil
}

// guard runs args[1:] as a PE in this process's group and exits as it
// does; args[0] is symrun's pid. Signals symrun sends the group reach the
// PE directly, so the guard takes them without acting; SIGUSR2, the
// parent-death signal, kills the group.
func guard(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "symrun: guard: no program")
		return 2
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGUSR2, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	// Orphans of the PE come to the guard, not to init: still ours.
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	if parent, _ := strconv.Atoi(args[0]); os.Getppid() != parent {
		syscall.Kill(0, syscall.SIGKILL) // symrun died before the signal was armed
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "symrun: %v\n", err)
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			if s == syscall.SIGUSR2 {
				syscall.Kill(0, syscall.SIGKILL) // the whole group, this guard included
			}
		case err := <-done:
			return exitAs(err)
		}
	}
}

// exitAs returns the PE's exit status, or ends this process by the signal
// that ended the PE, so that symrun sees the PE's own end.
func exitAs(err error) int {
	ee, ok := err.(*exec.ExitError)
	if !ok {
		return statusOf(err)
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		signal.Reset(ws.Signal())
		syscall.Kill(os.Getpid(), ws.Signal())
	}
	return statusOf(err)
}
