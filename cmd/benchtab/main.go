// Command benchtab turns `go test -bench` output (several -count runs)
// into a Markdown table of medians and ratios against anchors measured in
// the same run.
//
//	go test -run '^$' -bench . -count 5 ./bench/ | go run ./cmd/benchtab \
//	    -pair 'PingPong/putsignal=PingPong/gochan' -pair 'Put/*=Copy/*'
//
// Each -pair is OURS=ANCHOR; a '*' in both stands for the same suffix, so
// Put/*=Copy/* pairs Put/8B with Copy/8B and so on. Unpaired benchmarks
// are listed with their medians.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

type pairs []string

func (p *pairs) String() string     { return strings.Join(*p, ",") }
func (p *pairs) Set(s string) error { *p = append(*p, s); return nil }

type sample struct{ ns, mbps []float64 }

func main() {
	var ps pairs
	flag.Var(&ps, "pair", "OURS=ANCHOR benchmark names (without Benchmark and -N); '*' matches a common suffix")
	flag.Parse()
	res, order, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtab:", err)
		os.Exit(1)
	}
	if err := table(os.Stdout, res, order, ps); err != nil {
		fmt.Fprintln(os.Stderr, "benchtab:", err)
		os.Exit(1)
	}
}

// parse reads benchmark lines: "BenchmarkName-N  iters  123 ns/op  [45 MB/s]".
func parse(r io.Reader) (map[string]*sample, []string, error) {
	res := map[string]*sample{}
	var order []string
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndex(name, "-"); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		s := res[name]
		if s == nil {
			s = &sample{}
			res[name] = s
			order = append(order, name)
		}
		for i := 2; i+1 < len(f); i++ {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			switch f[i+1] {
			case "ns/op":
				s.ns = append(s.ns, v)
			case "MB/s":
				s.mbps = append(s.mbps, v)
			}
		}
	}
	return res, order, sc.Err()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func table(w io.Writer, res map[string]*sample, order []string, ps pairs) error {
	used := map[string]bool{}
	fmt.Fprintln(w, "| benchmark | median ns/op | anchor | anchor median ns/op | ratio (time, ours ÷ anchor) | runs |")
	fmt.Fprintln(w, "| --- | ---: | --- | ---: | ---: | ---: |")
	for _, p := range ps {
		ours, anchor, ok := strings.Cut(p, "=")
		if !ok {
			return fmt.Errorf("-pair %q: want OURS=ANCHOR", p)
		}
		op, os_, star := strings.Cut(ours, "*")
		for _, name := range order {
			var an string
			if star {
				if !strings.HasPrefix(name, op) || !strings.HasSuffix(name, os_) {
					continue
				}
				suffix := strings.TrimSuffix(strings.TrimPrefix(name, op), os_)
				an = strings.Replace(anchor, "*", suffix, 1)
			} else if name == ours {
				an = anchor
			} else {
				continue
			}
			a := res[an]
			if a == nil {
				return fmt.Errorf("anchor %s of %s not in the input", an, name)
			}
			o := res[name]
			mo, ma := median(o.ns), median(a.ns)
			fmt.Fprintf(w, "| %s | %.1f | %s | %.1f | %.2f× | %d |\n", name, mo, an, ma, mo/ma, len(o.ns))
			used[name], used[an] = true, true
		}
	}
	for _, name := range order {
		if !used[name] {
			fmt.Fprintf(w, "| %s | %.1f | | | | %d |\n", name, median(res[name].ns), len(res[name].ns))
		}
	}
	return nil
}
