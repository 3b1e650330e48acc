// Command symrun starts an SPMD program as N local processes, one PE each
// (the nvshmem backend's launcher):
//
//	symrun -n 4 ./app args…
//
// Each process gets SYMCHAN_RANK, SYMCHAN_NRANKS, SYMCHAN_LOCAL_RANK,
// SYMCHAN_LOCAL_NRANKS and SYMCHAN_BOOTSTRAP, the address of a rendezvous
// symrun serves (package pgas/bootstrap): rank 0 creates the NVSHMEM unique
// id and every rank receives it there. Every line the processes print is
// prefixed with its PE ("[PE 2] …"), whatever its length. When a process
// fails, symrun stops the others (SIGTERM, then SIGKILL after -grace) and
// exits with the failed process's status; SIGINT, SIGTERM, SIGHUP and
// SIGQUIT are forwarded to every process once, followed by SIGKILL after
// -grace if they have not ended.
//
// Each process runs in a process group of its own, so a terminal's Ctrl-C
// reaches it once (through symrun), and signals reach what it started too.
// On Linux each process runs under a guard (symrun again) that leads its
// group and learns of symrun's death, even by SIGKILL (parent-death
// signal): the group dies with symrun, the PE and what it started. When
// every process has ended, what their groups still hold (a grandchild
// keeping the output open) is killed.
// The rendezvous checks a secret symrun makes per job
// (SYMCHAN_BOOTSTRAP_SECRET).
//
// Across hosts, start the same binary with mpirun or srun instead: it reads
// its rank from their variables, and NVSHMEM starts with its own bootstrap
// on what the launcher provides, or, where every rank is given
// SYMCHAN_BOOTSTRAP and the job's secret, rank 0 serves the rendezvous
// there (mpirun -H a,b -n 16 -x SYMCHAN_BOOTSTRAP=a:29500
// -x SYMCHAN_BOOTSTRAP_SECRET=$(openssl rand -hex 16) ./app). See
// docs/many-hosts.md.
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
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/symchan/symchan/pgas/bootstrap"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == guardArg {
		os.Exit(guard(os.Args[2:]))
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

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
	var bad string
	switch {
	case *n < 1:
		bad = "-n must be at least 1"
	case fs.NArg() == 0:
		bad = "no program to run"
	case *grace < 0:
		bad = fmt.Sprintf("-grace %v: must not be negative", *grace)
	}
	if bad != "" {
		fmt.Fprintln(stderr, "symrun:", bad)
		fs.Usage()
		return 2
	}
	secret := bootstrap.NewSecret()
	srv, err := bootstrap.NewServer(secret)
	if err != nil {
		fmt.Fprintln(stderr, "symrun: rendezvous:", err)
		return 1
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
		srv.Serve(ctx, ln)
	}()
	defer func() { cancel(); <-served }()
	env := []string{bootstrap.EnvAddr + "=" + ln.Addr().String(), bootstrap.EnvServed + "=1", bootstrap.EnvSecret + "=" + secret}
	return launch(ctx, *n, env, *grace, fs.Args(), stdout, stderr)
}

// output writes whole lines, each prefixed with its PE, from several
// processes to one stream.
type output struct {
	mu sync.Mutex
	w  io.Writer
}

// copy passes r's lines to o with prefix, lines of any length: a line
// longer than the buffer goes out in pieces (the prefix before the first).
func (o *output) copy(prefix string, r io.Reader, done *sync.WaitGroup) {
	defer done.Done()
	br := bufio.NewReaderSize(r, 64<<10)
	start := true
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			o.mu.Lock()
			if start {
				io.WriteString(o.w, prefix)
			}
			o.w.Write(chunk)
			if err != nil && err != bufio.ErrBufferFull {
				io.WriteString(o.w, "\n") // the last line had no newline
			}
			o.mu.Unlock()
			start = chunk[len(chunk)-1] == '\n'
		}
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
	}
}

// exit is one process's end.
type exit struct {
	pe   int
	code int // exit status, or 128+signal
	err  error
}

// drainFor is how long output is still read after every process ended,
// before pipes that something else holds open are closed.
const drainFor = 2 * time.Second

func launch(ctx context.Context, n int, env []string, grace time.Duration, argv []string, stdout, stderr io.Writer) int {
	// The parent-death signal follows the thread that started a child:
	// keep that thread alive while the children run.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)

	outW, errW := &output{w: stdout}, &output{w: stderr}
	procs := make([]*exec.Cmd, 0, n)
	exits := make(chan exit, n)
	var copies sync.WaitGroup
	var readEnds []*os.File
	defer func() {
		for _, f := range readEnds {
			f.Close()
		}
	}()
	for pe := range n {
		cmd, err := peCommand(argv)
		var so, se *os.File
		if err == nil {
			cmd.Env = append(append(os.Environ(),
				bootstrap.EnvRank+"="+strconv.Itoa(pe), bootstrap.EnvNRanks+"="+strconv.Itoa(n),
				bootstrap.EnvLocalRank+"="+strconv.Itoa(pe), bootstrap.EnvLocalRanks+"="+strconv.Itoa(n)), env...)
			so, se, err = startPiped(cmd)
		}
		if err != nil {
			fmt.Fprintf(stderr, "symrun: start PE %d: %v\n", pe, err)
			for _, p := range procs {
				killGroup(p, syscall.SIGKILL)
			}
			for range procs {
				<-exits
			}
			return 1
		}
		readEnds = append(readEnds, so, se)
		prefix := fmt.Sprintf("[PE %d] ", pe)
		copies.Add(2)
		go outW.copy(prefix, so, &copies)
		go errW.copy(prefix, se, &copies)
		procs = append(procs, cmd)
		go func() {
			err := cmd.Wait()
			exits <- exit{pe: pe, code: statusOf(err), err: err}
		}()
	}

	status := 0
	var kill <-chan time.Time
	stopping := false
	finished := make([]bool, n)
	stop := func(sig syscall.Signal) {
		for pe, p := range procs {
			if !finished[pe] {
				killGroup(p, sig)
			}
		}
		if sig != syscall.SIGKILL && kill == nil {
			kill = time.After(grace) // every path escalates
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
				}
			}
		case s := <-sigs:
			stop(s.(syscall.Signal))
		case <-kill:
			stop(syscall.SIGKILL)
		case <-ctx.Done():
			stop(syscall.SIGKILL)
		}
	}
	// Whatever the processes left in their groups goes with them.
	for _, p := range procs {
		killGroup(p, syscall.SIGKILL)
	}
	drained := make(chan struct{})
	go func() { copies.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(drainFor):
		fmt.Fprintln(stderr, "symrun: output still held open after every PE ended; closing it")
		for _, f := range readEnds {
			f.Close()
		}
		<-drained
	}
	return status
}

// startPiped starts cmd with its stdout and stderr on pipes of our own and
// returns their read ends. (With cmd's own pipes Wait would wait for the
// readers, and a grandchild keeping them open would hold symrun.)
func startPiped(cmd *exec.Cmd) (stdout, stderr *os.File, err error) {
	or, ow, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	er, ew, err := os.Pipe()
	if err != nil {
		or.Close()
		ow.Close()
		return nil, nil, err
	}
	cmd.Stdout, cmd.Stderr = ow, ew
	err = cmd.Start()
	ow.Close() // the child holds its copies
	ew.Close()
	if err != nil {
		or.Close()
		er.Close()
		return nil, nil, err
	}
	return or, er, nil
}

// killGroup signals p's process group (p leads it: procAttr).
func killGroup(p *exec.Cmd, sig syscall.Signal) {
	if err := syscall.Kill(-p.Process.Pid, sig); err != nil {
		p.Process.Signal(sig) // the group is gone; p itself may not be
	}
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
