package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/symchan/symchan/internal/testhelp"
	"github.com/symchan/symchan/pgas/bootstrap"
)

// The test binary is also the program symrun starts: with SYMRUN_CHILD set
// it plays one PE.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == guardArg {
		os.Exit(guard(os.Args[2:]))
	}
	if args := os.Getenv("SYMRUN_AS_LAUNCHER"); args != "" {
		os.Unsetenv("SYMRUN_AS_LAUNCHER")
		os.Exit(run(append(strings.Fields(args), os.Args[0]), os.Stdout, os.Stderr))
	}
	if mode := os.Getenv("SYMRUN_CHILD"); mode != "" {
		os.Exit(child(mode))
	}
	os.Exit(m.Run())
}

func child(mode string) int {
	info, err := bootstrap.FromEnv()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 9
	}
	switch mode {
	case "hello":
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		id, err := bootstrap.Share(ctx, info, "uid", func() ([]byte, error) { return []byte("the-id"), nil })
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 8
		}
		fmt.Printf("rank %d of %d (local %d of %d) got %s\n", info.Rank, info.Size, info.LocalRank, info.LocalSize, id)
		fmt.Fprintf(os.Stderr, "a line on stderr\n")
		return 0
	case "fail":
		if info.Rank == 1 {
			time.Sleep(50 * time.Millisecond)
			fmt.Println("failing")
			return 3
		}
		fmt.Println("sleeping")
		time.Sleep(30 * time.Second)
		return 0
	case "stubborn": // ignores SIGTERM: must be killed
		signal.Ignore(syscall.SIGTERM)
		if info.Rank == 0 {
			return 4
		}
		time.Sleep(30 * time.Second)
		return 0
	case "grandchild": // leaves a process holding stdout, and exits
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), "SYMRUN_CHILD=sleep")
		gc.Stdout = os.Stdout
		if err := gc.Start(); err != nil {
			return 5
		}
		fmt.Println("spawned")
		return 0
	case "sleep":
		time.Sleep(60 * time.Second)
		return 0
	case "pidchild": // starts a child, writes its pid where the test can find it, and waits for it
		gc := exec.Command(os.Args[0])
		gc.Env = append(os.Environ(), "SYMRUN_CHILD=sleep")
		if err := gc.Start(); err != nil {
			return 5
		}
		os.WriteFile(filepath.Join(os.Getenv("SYMRUN_PIDDIR"), strconv.Itoa(100+info.Rank)), []byte(strconv.Itoa(gc.Process.Pid)), 0o644)
		gc.Wait()
		return 0
	case "longline":
		w := bufio.NewWriter(os.Stdout)
		w.WriteString(strings.Repeat("x", 20<<20))
		w.WriteString("\nafter\n")
		w.Flush()
		return 0
	case "ignoreterm":
		signal.Ignore(syscall.SIGTERM)
		fmt.Println("ready")
		time.Sleep(60 * time.Second)
		return 0
	case "pid": // writes its pid where the test can find it, then waits
		os.WriteFile(filepath.Join(os.Getenv("SYMRUN_PIDDIR"), strconv.Itoa(info.Rank)), []byte(strconv.Itoa(os.Getpid())), 0o644)
		time.Sleep(60 * time.Second)
		return 0
	case "countint": // counts the SIGINTs it gets
		sig := make(chan os.Signal, 8)
		signal.Notify(sig, syscall.SIGINT)
		os.WriteFile(filepath.Join(os.Getenv("SYMRUN_PIDDIR"), strconv.Itoa(info.Rank)), []byte(strconv.Itoa(os.Getpid())), 0o644)
		<-sig
		got := 1
		for deadline := time.After(500 * time.Millisecond); ; {
			select {
			case <-sig:
				got++
				continue
			case <-deadline:
			}
			break
		}
		fmt.Printf("got %d SIGINT\n", got)
		return 0
	case "signal":
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGINT)
		fmt.Println("ready")
		select {
		case s := <-sig:
			fmt.Println("got", s)
			return 0
		case <-time.After(20 * time.Second):
			return 7
		}
	}
	return 6
}

func symrun(t *testing.T, mode string, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("SYMRUN_CHILD", mode)
	var out, errb testhelp.Buffer
	code := run(append(args, os.Args[0]), &out, &errb)
	return code, out.String(), errb.String()
}

// symrunWithin is symrun that fails t (saying why) when the run takes
// more than 10 s.
func symrunWithin(t *testing.T, why, mode string, args ...string) (int, string, string) {
	t.Helper()
	start := time.Now()
	code, out, errs := symrun(t, mode, args...)
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v: %s", d, why)
	}
	return code, out, errs
}

func TestRanksOutputAndRendezvous(t *testing.T) {
	code, out, errs := symrun(t, "hello", "-n", "3")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	for pe := range 3 {
		want := fmt.Sprintf("[PE %d] rank %d of 3 (local %d of 3) got the-id\n", pe, pe, pe)
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
		if !strings.Contains(errs, fmt.Sprintf("[PE %d] a line on stderr\n", pe)) {
			t.Errorf("stderr lacks PE %d's line:\n%s", pe, errs)
		}
	}
}

// One PE exits 3: symrun stops the others at once and exits 3.
func TestFailureStopsTheOthers(t *testing.T) {
	code, out, errs := symrunWithin(t, "the others were not stopped", "fail", "-n", "3")
	if code != 3 {
		t.Fatalf("exit %d, want 3\n%s%s", code, out, errs)
	}
	if !strings.Contains(errs, "PE 1 failed") {
		t.Errorf("stderr does not name the failed PE:\n%s", errs)
	}
}

// A PE that ignores SIGTERM is killed after the grace period.
func TestStubbornPEKilled(t *testing.T) {
	code, _, errs := symrunWithin(t, "the PE was not killed", "stubborn", "-n", "2", "-grace", "200ms")
	if code != 4 {
		t.Fatalf("exit %d, want 4\n%s", code, errs)
	}
}

// SIGINT to symrun reaches every PE.
func TestSignalsForwarded(t *testing.T) {
	t.Setenv("SYMRUN_CHILD", "signal")
	var out, errb testhelp.Buffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"-n", "2", os.Args[0]}, &out, &errb) }()
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(out.String(), "ready") < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("PEs not ready:\n%s%s", out.String(), errb.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	if got := out.String(); !strings.Contains(got, "[PE 0] got interrupt") || !strings.Contains(got, "[PE 1] got interrupt") {
		t.Fatalf("the PEs did not both see SIGINT:\n%s", got)
	}
}

func TestBadUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"-n", "0", "x"}, {"-n", "2"}, {"-bogus"}, {"-n", "1", "-grace", "-1s", "x"}} {
		var out, errb testhelp.Buffer
		if code := run(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "usage: symrun") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
	var out, errb testhelp.Buffer
	if code := run([]string{"-n", "1", "/nonexistent/program"}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "start PE 0") {
		t.Errorf("missing program: exit %d, stderr %q", code, errb.String())
	}
}

// -grace -1s says what is wrong with it.
func TestNegativeGrace(t *testing.T) {
	var out, errb testhelp.Buffer
	if code := run([]string{"-n", "1", "-grace", "-1s", "x"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "-grace -1s: must not be negative") {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
}

// A PE that leaves a grandchild holding its output does not keep symrun
// waiting: once every PE has ended, the group is killed and the output
// closed.
func TestGrandchildHoldingOutput(t *testing.T) {
	code, out, errs := symrunWithin(t, "symrun waited for the grandchild", "grandchild", "-n", "2")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if strings.Count(out, "spawned") != 2 {
		t.Errorf("stdout:\n%s", out)
	}
}

// A 20 MiB line passes through whole, and the output goes on after it.
func TestLongLine(t *testing.T) {
	code, out, errs := symrun(t, "longline", "-n", "1")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errs)
	}
	if want := "[PE 0] " + strings.Repeat("x", 20<<20) + "\n[PE 0] after\n"; out != want {
		t.Fatalf("got %d bytes of output, want %d (the line and the one after)", len(out), len(want))
	}
}

// A PE that ignores a forwarded SIGTERM is killed after the grace period.
func TestForwardedTermEscalates(t *testing.T) {
	t.Setenv("SYMRUN_CHILD", "ignoreterm")
	var out, errb testhelp.Buffer
	done := make(chan int, 1)
	go func() { done <- run([]string{"-n", "2", "-grace", "200ms", os.Args[0]}, &out, &errb) }()
	waitFor(t, func() bool { return strings.Count(out.String(), "ready") == 2 })
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 128+int(syscall.SIGKILL) {
			t.Fatalf("exit %d, want %d (killed)", code, 128+int(syscall.SIGKILL))
		}
	case <-time.After(10 * time.Second):
		t.Fatal("symrun still waits for a PE that ignores SIGTERM")
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}

// launcher starts symrun (this test binary as the launcher) as a process
// of its own in a new process group, as a shell would.
func launcher(t *testing.T, mode string, args ...string) (*exec.Cmd, string, *testhelp.Buffer) {
	t.Helper()
	dir := t.TempDir()
	var out testhelp.Buffer
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "SYMRUN_AS_LAUNCHER="+strings.Join(args, " "), "SYMRUN_CHILD="+mode, "SYMRUN_PIDDIR="+dir)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, dir, &out
}

// pids waits for n PEs to write their pids into dir.
func pids(t *testing.T, dir string, n int) []int { return pidsFrom(t, dir, 0, n) }

// pidsFrom waits for the pids written into dir as files first … first+n-1.
func pidsFrom(t *testing.T, dir string, first, n int) []int {
	t.Helper()
	var got []int
	waitFor(t, func() bool {
		got = got[:0]
		for i := first; i < first+n; i++ {
			b, err := os.ReadFile(filepath.Join(dir, strconv.Itoa(i)))
			if p, perr := strconv.Atoi(string(b)); err == nil && perr == nil {
				got = append(got, p)
			}
		}
		return len(got) == n
	})
	return got
}

// waitGone waits until none of the processes ps is left.
func waitGone(t *testing.T, ps []int) {
	t.Helper()
	waitFor(t, func() bool {
		for _, p := range ps {
			if syscall.Kill(p, 0) == nil {
				return false
			}
		}
		return true
	})
}

// kill -9 of symrun takes its PEs with it (Linux: parent-death signal).
func TestChildrenDieWithSymrun(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	cmd, dir, _ := launcher(t, "pid", "-n", "2")
	ps := pids(t, dir, 2)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	waitGone(t, ps)
}

// kill -9 of symrun takes what the PEs started with it too (a PE's
// child, still running).
func TestGrandchildrenDieWithSymrun(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	cmd, dir, _ := launcher(t, "pidchild", "-n", "2")
	ps := pidsFrom(t, dir, 100, 2) // the children's pids
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	waitGone(t, ps)
}

// A terminal's Ctrl-C (SIGINT to symrun's whole process group) reaches
// each PE once: symrun forwards it, the terminal does not, as the PEs have
// groups of their own.
func TestCtrlCOnce(t *testing.T) {
	cmd, dir, out := launcher(t, "countint", "-n", "2")
	pids(t, dir, 2)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if got := out.String(); strings.Count(got, "got 1 SIGINT") != 2 {
		t.Fatalf("the PEs did not each get SIGINT once:\n%s", got)
	}
}
