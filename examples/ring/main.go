// Command ring passes a message around a ring of PEs, lap after lap, with
// put-with-signal: PE i puts the payload into PE i+1's buffer and sets its
// signal word to the hop number; PE i+1 waits for that value, checks the
// payload's checksum, and passes it on. It prints per-hop latency and
// bandwidth for each payload size.
//
//	go run ./examples/ring                    # 8 host PEs, default sizes
//	go run ./examples/ring -pes 4 -size 8,4K,1M -laps 200
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/signals"
)

func main() {
	backend := flag.String("backend", "host", "pgas backend")
	pes := flag.Int("pes", 0, "number of PEs (0: the backend's default, 8 on host)")
	sizes := flag.String("size", "8,4K,1M", "payload sizes in bytes, comma-separated (K, M, G suffixes)")
	laps := flag.Int("laps", 100, "laps around the ring per size")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: ring [flags]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	sz, err := parseSizes(*sizes)
	if err == nil && *laps < 1 {
		err = errors.New("-laps must be at least 1")
	}
	if err == nil && *pes < 0 {
		err = errors.New("-pes must not be negative")
	}
	if err == nil && flag.NArg() > 0 {
		err = fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ring:", err)
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*backend, *pes, sz, *laps); err != nil {
		fmt.Fprintln(os.Stderr, "ring:", err)
		os.Exit(1)
	}
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := pgas.ParseSize(f)
		if err != nil {
			return nil, fmt.Errorf("-size: %w", err)
		}
		out = append(out, int(n))
	}
	return out, nil
}

type row struct {
	size        int
	hops        int
	median, p99 time.Duration
}

func run(backend string, pes int, sizes []int, laps int) error {
	maxSize := slices.Max(sizes)
	cfg := pgas.Config{Backend: backend, PEs: pes, HeapSize: int64(maxSize) + 8<<20}
	var rows []row
	err := pgas.Run(context.Background(), cfg, func(ctx context.Context, pe *pgas.PE) error {
		n, me := pe.NumPEs(), pe.ID()
		next := (me + 1) % n
		buf, err := pgas.AllocZeroed[byte](ctx, pe, maxSize+4) // payload + CRC
		if err != nil {
			return err
		}
		sig, err := pgas.AllocZeroed[uint64](ctx, pe, 1)
		if err != nil {
			return err
		}
		msg := make([]byte, maxSize+4)
		round := uint64(0) // laps so far over all sizes: the signal value of this lap
		for _, size := range sizes {
			if err := pe.Barrier(ctx); err != nil {
				return err
			}
			var lapTimes []time.Duration
			for lap := range laps {
				round++
				start := time.Now()
				if me == 0 {
					fill(msg[:size], lap)
					putCRC(msg, size)
				} else if err := receive(ctx, pe, buf, sig, round, msg, size); err != nil {
					return err
				}
				if err := pgas.PutSignal(pe, buf, msg[:size+4], sig, round, pgas.SignalSet, next); err != nil {
					return err
				}
				if me == 0 {
					if err := receive(ctx, pe, buf, sig, round, msg, size); err != nil {
						return err
					}
					lapTimes = append(lapTimes, time.Since(start))
				}
			}
			if me == 0 {
				slices.Sort(lapTimes)
				med := lapTimes[len(lapTimes)/2] / time.Duration(n)
				p99 := lapTimes[len(lapTimes)*99/100] / time.Duration(n)
				rows = append(rows, row{size, n * laps, med, p99})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Printf("ring: %d PEs on the %s backend, %d laps per size, every payload checksummed\n", rows[0].hops/laps, backend, laps)
	fmt.Printf("%10s %8s %14s %14s %14s\n", "size", "hops", "hop median", "hop p99", "hop GB/s")
	for _, r := range rows {
		fmt.Printf("%10d %8d %14v %14v %14.3f\n", r.size, r.hops, r.median, r.p99, float64(r.size)/float64(r.median.Nanoseconds()))
	}
	return nil
}

// receive waits for lap round's signal, reads the payload and checks its
// CRC.
func receive(ctx context.Context, pe *pgas.PE, buf pgas.Sym[byte], sig pgas.Sym[uint64], round uint64, msg []byte, size int) error {
	if err := signals.WaitUntil(ctx, pe, sig, signals.EQ, round); err != nil {
		return err
	}
	if err := pgas.Get(pe, msg[:size+4], buf, pe.ID()); err != nil {
		return err
	}
	if got, want := crc32.ChecksumIEEE(msg[:size]), getCRC(msg, size); got != want {
		return fmt.Errorf("PE %d, lap %d: payload checksum %08x, sent %08x", pe.ID(), round, got, want)
	}
	return nil
}

func fill(b []byte, lap int) {
	for i := range b {
		b[i] = byte(i*31 + lap)
	}
}

func putCRC(msg []byte, size int) {
	c := crc32.ChecksumIEEE(msg[:size])
	msg[size], msg[size+1], msg[size+2], msg[size+3] = byte(c), byte(c>>8), byte(c>>16), byte(c>>24)
}

func getCRC(msg []byte, size int) uint32 {
	return uint32(msg[size]) | uint32(msg[size+1])<<8 | uint32(msg[size+2])<<16 | uint32(msg[size+3])<<24
}
