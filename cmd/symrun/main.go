// Command symrun starts an SPMD program as N local processes, one PE each
// (the nvshmem backend's launcher):
//
//	symrun -n 4 ./app args…
//
// Each process gets SYMCHAN_RANK, SYMCHAN_NRANKS, SYMCHAN_LOCAL_RANK,
// SYMCHAN_LOCAL_NRANKS and SYMCHAN_BOOTSTRAP, the address of a rendezvous
// symrun serves (package pgas/bootstrap): rank 0 creates the NVSHMEM unique
// id and every rank receives it there. Every line the processes print is
// prefixed with its PE ("[PE 2] …"). When a process fails, symrun stops the
// others (SIGTERM, then SIGKILL after -grace) and exits with the failed
// process's status; SIGINT, SIGTERM, SIGHUP and SIGQUIT are forwarded to
// every process.
//
// Across hosts, start the same binary with mpirun or srun instead: it reads
// its rank from their variables, and rank 0 serves the rendezvous at
// SYMCHAN_BOOTSTRAP, which every rank must be given
// (mpirun -H a,b -n 16 -x SYMCHAN_BOOTSTRAP=a:29500 ./app).
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/symchan/symchan/pgas/bootstrap"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("symrun", flag.ContinueOnError)
	fs.SetOutput(stderr)
	n := fs.Int("n", 0, "number of processes (PEs)")
	addr := fs.String("bootstrap", "127.0.0.1:0", "address the rendezvous listens on")
	grace := fs.Duration("grace", 5*time.Second, "how long stopped processes get between SIGTERM and SIGKILL")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: symrun -n N [-bootstrap host:port] [-grace 5s] program [args...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *n < 1 || fs.NArg() == 0 || *grace < 0 {
		fmt.Fprintln(stderr, "symrun: need -n ≥ 1 and a program to run")
		fs.Usage()
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "symrun: rendezvous:", err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan struct{})
	go func() {
		defer close(served)
		bootstrap.NewServer().Serve(ctx, ln)
	}()
	defer func() { cancel(); <-served }()
	return launch(ctx, *n, ln.Addr().String(), *grace, fs.Args(), stdout, stderr)
}

// output writes whole lines, each prefixed with its PE, from several
// processes to one stream.
type output struct {
	mu sync.Mutex
	w  io.Writer
}

func (o *output) copy(prefix string, r io.Reader, done *sync.WaitGroup) {
	defer done.Done()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		o.mu.Lock()
		fmt.Fprintf(o.w, "%s%s\n", prefix, sc.Bytes())
		o.mu.Unlock()
	}
}

// exit is one process's end.
type exit struct {
	pe   int
	code int // exit status, or 128+signal
	err  error
}

func launch(ctx context.Context, n int, addr string, grace time.Duration, argv []string, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)

	outW, errW := &output{w: stdout}, &output{w: stderr}
	procs := make([]*exec.Cmd, 0, n)
	exits := make(chan exit, n)
	for pe := range n {
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = append(os.Environ(),
			bootstrap.EnvRank+"="+strconv.Itoa(pe), bootstrap.EnvNRanks+"="+strconv.Itoa(n),
			bootstrap.EnvLocalRank+"="+strconv.Itoa(pe), bootstrap.EnvLocalRanks+"="+strconv.Itoa(n),
			bootstrap.EnvAddr+"="+addr, bootstrap.EnvServed+"=1")
		// Wait closes the pipes, so it comes after both copies end.
		var copies sync.WaitGroup
		so, err := cmd.StdoutPipe()
		if err == nil {
			var se io.ReadCloser
			if se, err = cmd.StderrPipe(); err == nil {
				if err = cmd.Start(); err == nil {
					prefix := fmt.Sprintf("[PE %d] ", pe)
					copies.Add(2)
					go outW.copy(prefix, so, &copies)
					go errW.copy(prefix, se, &copies)
				}
			}
		}
		if err != nil {
			fmt.Fprintf(stderr, "symrun: start PE %d: %v\n", pe, err)
			for _, p := range procs {
				p.Process.Kill()
			}
			for range procs {
				<-exits
			}
			return 1
		}
		procs = append(procs, cmd)
		go func() {
			copies.Wait()
			err := cmd.Wait()
			exits <- exit{pe: pe, code: statusOf(err), err: err}
		}()
	}

	status := 0
	var kill <-chan time.Time
	stopping := false
	finished := make([]bool, n)
	stop := func(sig os.Signal) {
		for pe, p := range procs {
			if !finished[pe] {
				p.Process.Signal(sig)
			}
		}
	}
	for left := n; left > 0; {
		select {
		case e := <-exits:
			left--
			finished[e.pe] = true
			if e.code != 0 && status == 0 {
				status = e.code
				if !stopping && left > 0 {
					fmt.Fprintf(stderr, "symrun: PE %d failed (%v); stopping the others\n", e.pe, e.err)
					stopping = true
					stop(syscall.SIGTERM)
					kill = time.After(grace)
				}
			}
		case s := <-sigs:
			stop(s)
		case <-kill:
			stop(syscall.SIGKILL)
		case <-ctx.Done():
			stop(syscall.SIGKILL)
		}
	}
	return status
}

// statusOf is a finished process's exit status, 128+n for a signal n, and
// 1 for anything else that went wrong.
func statusOf(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		if c := ee.ExitCode(); c > 0 {
			return c
		}
	}
	return 1
}
