// Command ring passes a message around a ring of PEs, lap after lap,
// through actor channels: PE i sends PE i+1 a hop on a Chan[hop]; the hop
// carries the lap number, the payload's checksum and a Ref to the payload
// in PE i's symmetric buffer, which PE i+1 fetches into its own (GPU to
// GPU on the cuda backend) before passing a Ref to it on. It checks order
// and checksums and prints per-hop latency and bandwidth for each size:
// a lap's time over the PEs it passed, its median, p99 and p99.9 over the
// laps (with 100 laps or fewer the p99 is the slowest lap, with 1000 or
// fewer the p99.9). Before the table the first size's laps run once
// untimed (-warmup): the first laps of a process pay for its start (the
// runtime's threads, page faults, the agent's first launch on GPUs), a
// tail that is not the ring's.
//
// On the GPU backends, -actors kernel runs every PE as a kernel actor
// (actors.StartKernel, kernel ring_actor): each hop is kernel to kernel,
// with no host in the loop; the host starts the actors for each size, the
// kernels check the order of the hops, and the host checks every PE's
// payload checksum after the laps. PE 0's kernel times the laps with the
// GPU's clock. -actors mixed runs the odd PEs as kernels and the even ones
// as Go: Go and kernel actors pass the same hops on the same Chan.
//
//	go run ./examples/ring                    # 8 host PEs, default sizes
//	go run ./examples/ring -pes 4 -size 8,4K,1M -laps 200
//	ring -backend cuda -actors kernel         # built with -tags cuda
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/internal/sysmem"
	"github.com/symchan/symchan/pgas"
	_ "github.com/symchan/symchan/pgas/cuda"
	_ "github.com/symchan/symchan/pgas/nvshmem"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command with its arguments and output streams; it returns
// the exit status: 2 for bad flags, 1 for a failed run.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ring", flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "", "pgas backend: host, cuda, or nvshmem (under symrun); default: $SYMCHAN_BACKEND, else host")
	pes := fs.Int("pes", 0, "number of PEs (0: the backend's default: 8 on host, every GPU on cuda)")
	sizes := fs.String("size", "8,4K,1M", "payload sizes in bytes, comma-separated (K, M, G suffixes)")
	checkAll := fs.Bool("check-every-lap", false, "on GPU backends, checksum every lap (reading the payload to the host); by default only each size's last lap is, so the payload stays on the GPUs (the host backend checks every lap)")
	laps := fs.Int("laps", 100, "laps around the ring per size")
	mode := fs.String("actors", actorsGo, "on GPU backends: go (Go actors), kernel (kernel actors: no host in a hop) or mixed (odd PEs kernels, even PEs Go)")
	blocks := fs.Int("kernel-blocks", 0, "blocks of each kernel actor, 1 to 1024, which share its payload copies (0: from the SMs per PE on its GPU, at most 32)")
	warmup := fs.Bool("warmup", true, "run the first size's laps once, untimed, before the timed ones")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ring [flags]\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	sz, err := parseSizes(*sizes)
	if err == nil && *laps < 1 {
		err = errors.New("-laps must be at least 1")
	}
	if err == nil && *pes < 0 {
		err = errors.New("-pes must not be negative")
	}
	if err == nil && *mode != actorsGo && *mode != actorsKernel && *mode != actorsMixed {
		err = fmt.Errorf("-actors %q: want go, kernel or mixed", *mode)
	}
	if err == nil && (*blocks < 0 || *blocks > 1024) {
		err = errors.New("-kernel-blocks must be 0 … 1024")
	}
	if err == nil && fs.NArg() > 0 {
		err = fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err == nil {
		// Resolved here so that the table names the backend that ran.
		var cfg pgas.Config
		cfg, err = pgas.Config{Backend: *backend, PEs: *pes}.Resolve()
		*backend = cfg.Backend
	}
	// A usage error before any world starts: the host backend's PEs are
	// never GPUs (inside the world, pe.GPU says so for any backend).
	if err == nil && *mode != actorsGo && *backend == pgas.DefaultBackend {
		err = fmt.Errorf("-actors %s needs a GPU backend (-backend cuda or nvshmem)", *mode)
	}
	if err != nil {
		fmt.Fprintln(stderr, "ring:", err)
		fs.Usage()
		return 2
	}
	if err := ring(stdout, options{*backend, *pes, sz, *laps, *checkAll, *mode, *blocks, *warmup}); err != nil {
		fmt.Fprintln(stderr, "ring:", err)
		return 1
	}
	return 0
}

// maxPayload bounds -size so that the heap it asks for (two payloads and
// the mailboxes) cannot overflow; what the machine holds is checked when
// the world starts.
const maxPayload = 1 << 40

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := pgas.ParseSize(f)
		if err != nil {
			return nil, fmt.Errorf("-size: %w", err)
		}
		if n < 1 || n > maxPayload {
			return nil, fmt.Errorf("-size %s: want 1 byte … %s", f, sysmem.Format(maxPayload))
		}
		out = append(out, int(n))
	}
	return out, nil
}

type row struct {
	size              int
	hops              int
	median, p99, p999 time.Duration
}

// hop is the message a PE passes on: plain data, so it travels as raw
// bytes in the mailbox slot.
type hop struct {
	Round uint64     // laps so far over all sizes, 1-based: the order check
	Size  int64      // payload bytes
	CRC   uint32     // of the payload
	Data  actors.Ref // the payload in the sender's buffer
}

// options are the command's flags.
type options struct {
	backend  string
	pes      int
	sizes    []int
	laps     int
	checkAll bool
	mode     string // actorsGo, actorsKernel or actorsMixed
	blocks   int    // of each kernel actor; 0: kernelBlocks
	warmup   bool   // the first size's laps once, untimed, first
}

func ring(out io.Writer, o options) error {
	backend, pes, sizes, laps, checkAll := o.backend, o.pes, o.sizes, o.laps, o.checkAll
	maxSize := slices.Max(sizes)
	cfg := pgas.Config{Backend: backend, PEs: pes, HeapSize: 2*int64(maxSize) + 16<<20}
	if os.Getenv(pgas.EnvSymmetricSize) != "" {
		cfg.HeapSize = 0 // the user's setting rules; an allocation it cannot hold fails saying so
	}
	var rows []row
	var npes, nblocks int
	err := pgas.Run(context.Background(), cfg, func(ctx context.Context, pe *pgas.PE) error {
		n, me := pe.NumPEs(), pe.ID()
		kernel := isKernel(o.mode, me)
		if o.mode == actorsKernel && n < 2 {
			return errors.New("-actors kernel needs 2 PEs or more: a kernel actor does not send to its own PE")
		}
		blocks := o.blocks
		g, gpuErr := pe.GPU()
		switch {
		case gpuErr != nil && o.mode != actorsGo:
			return fmt.Errorf("-actors %s needs PEs that are GPUs (-backend cuda or nvshmem): %w", o.mode, gpuErr)
		case gpuErr == nil && blocks == 0 && o.mode != actorsGo:
			blocks = kernelBlocks(g, n)
		}
		// Every PE also holds a payload in Go memory (the same check on
		// every PE, so all stop here alike).
		if mem := sysmem.Machine(); mem > 0 && int64(n)*int64(maxSize) > mem/2 {
			return fmt.Errorf("%d PEs × a %s payload in Go memory exceed half of this machine's %s; lower -size or -pes",
				n, sysmem.Format(int64(maxSize)), sysmem.Format(mem))
		}
		// A lane per PE: kernel actors find a sender's slots by its id.
		ch, err := actors.NewChan[hop](ctx, pe, actors.Lanes(n))
		if err != nil {
			return err
		}
		defer ch.Close(ctx)
		buf, err := pgas.AllocZeroed[byte](ctx, pe, maxSize)
		if err != nil {
			return err
		}
		local := make([]byte, maxSize)
		var kpe *kernelPE
		if kernel {
			if kpe, err = newKernelPE(pe, laps); err != nil {
				return err
			}
			// After the last barrier: every PE's last actor has returned.
			defer kpe.close()
		}
		round := uint64(0)
		passes := sizes
		if o.warmup {
			passes = append([]int{sizes[0]}, sizes...)
		}
		for pass, size := range passes {
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			payload := buf.Slice(0, size)
			// PE 0 writes the payload once per size, outside the timing;
			// every hop moves it on and every check recomputes its CRC.
			var crc uint32
			if me == 0 {
				fill(local[:size], size)
				if err := pgas.Put(pe, payload, local[:size], me); err != nil {
					return err
				}
				crc = crc32.ChecksumIEEE(local[:size])
			}
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			// Every PE but 0 is ready before PE 0 starts the first lap.
			var a *actors.KernelActor
			if kernel && me != 0 {
				fill(local[:size], size) // the kernels pass no checksum on: each PE knows it
				crc = crc32.ChecksumIEEE(local[:size])
				if a, err = kpe.start(ctx, ch, payload, round+1, blocks, crc); err != nil {
					return err
				}
			}
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			var lapTimes []time.Duration
			if kernel {
				if me == 0 {
					if a, err = kpe.start(ctx, ch, payload, round+1, blocks, crc); err != nil {
						return err
					}
				}
				lapTimes, err = kpe.finish(ctx, a, payload, round+1, crc, local)
			} else {
				lapTimes, err = goLaps(ctx, pe, ch, payload, local, round+1, laps, crc, checkAll || gpuErr != nil)
			}
			if err != nil {
				return err
			}
			round += uint64(laps)
			if me == 0 && !(o.warmup && pass == 0) {
				slices.Sort(lapTimes)
				med := lapTimes[len(lapTimes)/2] / time.Duration(n)
				p99 := lapTimes[len(lapTimes)*99/100] / time.Duration(n)
				p999 := lapTimes[len(lapTimes)*999/1000] / time.Duration(n)
				rows = append(rows, row{size, n * laps, med, p99, p999})
				npes, nblocks = n, blocks
			}
		}
		return pe.Barrier(ctx)
	})
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil // PE 0 ran in another process (nvshmem backend): it prints
	}
	actorsAre := "Go actors"
	switch o.mode {
	case actorsKernel:
		actorsAre = fmt.Sprintf("kernel actors (%d×%d threads each)", nblocks, kernelThreads)
	case actorsMixed:
		actorsAre = fmt.Sprintf("Go actors on even PEs, kernel actors (%d×%d threads each) on odd", nblocks, kernelThreads)
	}
	fmt.Fprintf(out, "ring: %d PEs on the %s backend, %s, %d laps per size, Chan[hop] + payload fetched by Ref, order and checksums checked\n", npes, backend, actorsAre, laps)
	fmt.Fprintf(out, "%10s %8s %14s %14s %14s %14s\n", "size", "hops", "hop median", "hop p99", "hop p99.9", "hop GB/s")
	for _, r := range rows {
		fmt.Fprintf(out, "%10d %8d %14v %14v %14v %14.3f\n", r.size, r.hops, r.median, r.p99, r.p999, float64(r.size)/float64(r.median.Nanoseconds()))
	}
	return nil
}

// goLaps runs one size's laps on this PE in Go, the first of round
// round; PE 0 starts each lap (with the payload's checksum crc) and gets
// each lap's time. Every PE checks the hops' order, and the payload's
// checksum on the last lap or, with checkEvery, on every lap.
func goLaps(ctx context.Context, pe *pgas.PE, ch *actors.Chan[hop], payload pgas.Sym[byte], local []byte, round uint64, laps int, crc uint32, checkEvery bool) ([]time.Duration, error) {
	me, size := pe.ID(), int(payload.Bytes())
	next := (me + 1) % pe.NumPEs()
	var lapTimes []time.Duration
	for lap := range laps {
		r := round + uint64(lap)
		start := time.Now()
		var h hop
		var err error
		if me == 0 {
			h = hop{Round: r, Size: int64(size), CRC: crc}
		} else if h, err = receive(ctx, pe, ch, payload, r, size); err != nil {
			return nil, err
		}
		h.Data = actors.RefOf(pe, payload)
		if err := ch.Send(ctx, next, h); err != nil {
			return nil, err
		}
		if me == 0 {
			if h, err = receive(ctx, pe, ch, payload, r, size); err != nil {
				return nil, err
			}
			lapTimes = append(lapTimes, time.Since(start))
		}
		// The checksum is checked off the critical path: the buffer is
		// not written again before the next lap.
		if checkEvery || lap == laps-1 {
			if err := pgas.Get(pe, local[:size], payload, me); err != nil {
				return nil, err
			}
			if got := crc32.ChecksumIEEE(local[:size]); got != h.CRC {
				return nil, fmt.Errorf("PE %d, lap %d: payload checksum %08x, sent %08x", me, r, got, h.CRC)
			}
		}
	}
	return lapTimes, nil
}

// receive takes the next hop, checks its order and fetches its payload
// into dst.
func receive(ctx context.Context, pe *pgas.PE, ch *actors.Chan[hop], dst pgas.Sym[byte], round uint64, size int) (hop, error) {
	h, err := ch.Recv(ctx)
	if err != nil {
		return h, err
	}
	if h.Round != round || h.Size != int64(size) {
		return h, fmt.Errorf("PE %d: got lap %d of %d bytes, want lap %d of %d bytes", pe.ID(), h.Round, h.Size, round, size)
	}
	return h, actors.Fetch(pe, h.Data, dst)
}

func fill(b []byte, seed int) {
	for i := range b {
		b[i] = byte(i*31 + seed)
	}
}
