// Command moe is the token exchange of a mixture-of-experts layer across
// every PE of a world: each PE holds -tokens tokens of -hidden bf16
// values and routes each to -topk of the world's experts (-experts on
// each PE). Dispatch sends every (token, expert) copy to its expert's PE
// with pgas.AllToAllV, whose per-peer counts differ on every call; the
// experts work on what arrived (on a GPU backend a kernel compiled when
// the program runs, moe.cu; on the host backend the same arithmetic in
// Go); combine sends the results back with a second AllToAllV, in the
// order they left, and each token's copies are summed with its gates.
// Every copy's round trip is checked bit for bit, and every token's sum.
//
//	moe -pes 4                                      # the host backend
//	SYMCHAN_CUDA_SHARE_GPUS=1 moe -backend cuda -pes 2   # built with -tags cuda
//	moe -backend cuda                               # one PE per GPU
//	symrun -n 2 moe -backend nvshmem
package main

import (
	"context"
	_ "embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"time"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
	"github.com/symchan/symchan/pgas"
	_ "github.com/symchan/symchan/pgas/cuda"    // the GPU backends
	_ "github.com/symchan/symchan/pgas/nvshmem" // register themselves
)

//go:embed moe.cu
var expertSource string

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// params are the run's shape.
type params struct {
	tokens, hidden, topk, experts, iters int
}

// run is the command with its arguments and output streams; it returns
// the exit status: 2 for bad flags, 1 for a failed run.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("moe", flag.ContinueOnError)
	fs.SetOutput(stderr)
	backend := fs.String("backend", "", "pgas backend: host, cuda, or nvshmem (under symrun); default: $SYMCHAN_BACKEND, else host")
	pes := fs.Int("pes", 0, "number of PEs (0: the backend's default)")
	var p params
	fs.IntVar(&p.tokens, "tokens", 128, "tokens on each PE")
	fs.IntVar(&p.hidden, "hidden", 7168, "bf16 values per token")
	fs.IntVar(&p.topk, "topk", 8, "experts each token goes to")
	fs.IntVar(&p.experts, "experts", 8, "experts on each PE")
	fs.IntVar(&p.iters, "iters", 20, "timed dispatch-expert-combine rounds after one checked round")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if p.tokens < 1 || p.hidden < 1 || p.topk < 1 || p.experts < 1 || p.iters < 0 || *pes < 0 {
		fmt.Fprintln(stderr, "moe: -tokens, -hidden, -topk and -experts must be at least 1, -iters and -pes not negative")
		return 2
	}
	cfg := pgas.Config{Backend: *backend, PEs: *pes}
	err := pgas.Run(context.Background(), cfg, func(ctx context.Context, pe *pgas.PE) error {
		if p.topk > p.experts*pe.NumPEs() {
			return fmt.Errorf("-topk %d exceeds the world's %d experts", p.topk, p.experts*pe.NumPEs())
		}
		took, err := layer(ctx, pe, p)
		if err != nil || pe.ID() != 0 {
			return err
		}
		fmt.Fprintf(stdout, "moe: %d PEs on the %s backend, %d tokens of %d bf16 each per PE, top-%d of %d experts: every round trip as expected; %.1f µs per dispatch, experts and combine (median of %d)\n",
			pe.NumPEs(), pe.World().Config().Backend, p.tokens, p.hidden, p.topk, p.experts*pe.NumPEs(), float64(took.Nanoseconds())/1e3, p.iters)
		return nil
	})
	if err != nil {
		fmt.Fprintln(stderr, "moe:", err)
		return 1
	}
	return 0
}

// route is token t's experts on PE pe: topk distinct experts of the
// world's, the same for every run.
func route(pe, t, topk, total int) []int {
	r := rand.New(rand.NewPCG(uint64(pe), uint64(t)))
	return r.Perm(total)[:topk]
}

// copiesOf is PE pe's copies under route, grouped by the PE of their
// expert (of n): the order they leave in and come back in.
func copiesOf(pe, n int, p params) [][]copyOf {
	byPE := make([][]copyOf, n)
	for t := range p.tokens {
		for _, e := range route(pe, t, p.topk, p.experts*n) {
			byPE[e/p.experts] = append(byPE[e/p.experts], copyOf{t, e})
		}
	}
	return byPE
}

// mostReceived is the most copies any PE receives, given every PE's
// copiesOf.
func mostReceived(all [][][]copyOf) int {
	got := make([]int, len(all))
	for _, byPE := range all {
		for j, cs := range byPE {
			got[j] += len(cs)
		}
	}
	return slices.Max(got)
}

// tokenValue is value j of token t on PE pe in bf16: a nonzero value of
// exponent near 1 (or zero, every 97th), so that an expert's scaling by
// at most 8 stays exact.
func tokenValue(pe, t, j int) uint16 {
	if (pe+t+j)%97 == 0 {
		return 0
	}
	f := float32(1+(pe*131+t*31+j*7)%113) / 37
	if (t+j)%2 == 1 {
		f = -f
	}
	return uint16(math.Float32bits(f) >> 16)
}

// expert is expert e's work on one bf16 value (moe.cu's, in Go).
func expert(e int, v uint16) uint16 {
	if v&0x7f80 == 0 {
		return v
	}
	return v + uint16(1+e%3)<<7
}

func bf16(v uint16) float32 { return math.Float32frombits(uint32(v) << 16) }

// A copy is one (token, expert) pair this PE sends.
type copyOf struct{ token, expert int }

// layer runs one checked round of the layer on pe, then p.iters timed
// ones, and returns their median.
func layer(ctx context.Context, pe *pgas.PE, p params) (time.Duration, error) {
	me, n := pe.ID(), pe.NumPEs()
	// Every PE's routing, which every PE works out alike: this PE's
	// copies, and the most any PE receives, which the experts' buffers
	// hold (they are symmetric). Every PE sends (and gets back) its
	// tokens·topk copies.
	all := make([][][]copyOf, n)
	for q := range n {
		all[q] = copiesOf(q, n, p)
	}
	byPE := all[me]
	sent := slices.Concat(byPE...)
	copies, most := len(sent), mostReceived(all)
	var x, recv, y, back pgas.Sym[uint16]
	var meta, rmeta pgas.Sym[int64]
	var counts, peerCounts, layout pgas.Sym[int64]
	err := pgas.AllocAll(ctx, pe,
		pgas.ArrayOf(&x, copies*p.hidden), pgas.ArrayOf(&recv, most*p.hidden), pgas.ArrayOf(&y, most*p.hidden), pgas.ArrayOf(&back, copies*p.hidden),
		pgas.ArrayOf(&meta, 2*copies), pgas.ArrayOf(&rmeta, 2*most),
		pgas.ArrayOf(&counts, n), pgas.ArrayOf(&peerCounts, n), pgas.ArrayOf(&layout, 8*n))
	if err != nil {
		return 0, err
	}
	// The tokens' copies in sending order, and each copy's token and
	// expert.
	xs := make([]uint16, len(sent)*p.hidden)
	ms := make([]int64, 2*len(sent))
	for i, c := range sent {
		for j := range p.hidden {
			xs[i*p.hidden+j] = tokenValue(me, c.token, j)
		}
		ms[2*i], ms[2*i+1] = int64(c.token), int64(c.expert)
	}
	if err := errors.Join(pgas.Put(pe, x.Slice(0, len(xs)), xs, me), pgas.Put(pe, meta.Slice(0, len(ms)), ms, me)); err != nil {
		return 0, err
	}
	// How many copies go to each PE, and (one AllToAll) how many come
	// from each.
	cs := make([]int64, n)
	for j := range n {
		cs[j] = int64(len(byPE[j]))
	}
	if err := pgas.Put(pe, counts, cs, me); err != nil {
		return 0, err
	}
	world := pe.TeamWorld()
	if err := pgas.AllToAll(ctx, world, peerCounts, counts, 1); err != nil {
		return 0, err
	}
	from := make([]int64, n)
	if err := pgas.Get(pe, from, peerCounts, me); err != nil {
		return 0, err
	}
	var received int
	for _, c := range from {
		received += int(c)
	}
	// The layouts, in elements: tokens (× hidden) and metadata (× 2), each
	// as send counts, send offsets, receive counts, receive offsets.
	lay := func(width, base int) (sc, so, rc, ro pgas.Sym[int64], err error) {
		base *= n
		sc, so, rc, ro = layout.Slice(base, base+n), layout.Slice(base+n, base+2*n), layout.Slice(base+2*n, base+3*n), layout.Slice(base+3*n, base+4*n)
		v := make([]int64, 4*n)
		var s, r int64
		for j := range n {
			v[j], v[n+j], v[2*n+j], v[3*n+j] = cs[j]*int64(width), s, from[j]*int64(width), r
			s, r = s+cs[j]*int64(width), r+from[j]*int64(width)
		}
		return sc, so, rc, ro, pgas.Put(pe, layout.Slice(base, base+4*n), v, me)
	}
	tsc, tso, trc, tro, err1 := lay(p.hidden, 0)
	msc, mso, mrc, mro, err2 := lay(2, 4)
	if err := errors.Join(err1, err2); err != nil {
		return 0, err
	}
	work, err := experts(pe)
	if err != nil {
		return 0, err
	}
	round := func() error {
		// Dispatch: the tokens and their metadata to the experts' PEs.
		if err := errors.Join(pgas.AllToAllV(ctx, world, recv, x, tsc, tso, trc, tro), pgas.AllToAllV(ctx, world, rmeta, meta, msc, mso, mrc, mro)); err != nil {
			return err
		}
		if err := work(ctx, recv, rmeta, y, received, p.hidden); err != nil {
			return err
		}
		// Combine: the results back, the layout reversed.
		return pgas.AllToAllV(ctx, world, back, y, trc, tro, tsc, tso)
	}
	if err := round(); err != nil {
		return 0, err
	}
	if err := check(pe, back, sent, p); err != nil {
		return 0, err
	}
	times := make([]time.Duration, p.iters)
	for i := range times {
		if err := pe.Barrier(ctx); err != nil {
			return 0, err
		}
		t0 := time.Now()
		if err := round(); err != nil {
			return 0, err
		}
		times[i] = time.Since(t0)
	}
	if p.iters == 0 {
		return 0, nil
	}
	slices.Sort(times)
	return times[len(times)/2], nil
}

// check compares every copy that came back with its expert's work on its
// token, bit for bit, and each token's combined output (its copies
// summed with gates 1/topk, in float32) with its value times its
// experts' mean scale.
func check(pe *pgas.PE, back pgas.Sym[uint16], sent []copyOf, p params) error {
	me := pe.ID()
	got := make([]uint16, len(sent)*p.hidden)
	if err := pgas.Get(pe, got, back.Slice(0, len(got)), me); err != nil {
		return err
	}
	out := make([]float32, p.tokens*p.hidden)
	scale := make([]float32, p.tokens) // Σ gate · 2^(1 + e % 3) over the token's experts
	gate := 1 / float32(p.topk)
	for i, c := range sent {
		scale[c.token] += gate * float32(int(1)<<(1+c.expert%3))
		for j := range p.hidden {
			v, w := got[i*p.hidden+j], expert(c.expert, tokenValue(me, c.token, j))
			if v != w {
				return fmt.Errorf("PE %d: token %d's copy for expert %d came back with %#04x at value %d, want %#04x", me, c.token, c.expert, v, j, w)
			}
			out[c.token*p.hidden+j] += gate * bf16(v)
		}
	}
	for i, o := range out {
		t, j := i/p.hidden, i%p.hidden
		if want := bf16(tokenValue(me, t, j)) * scale[t]; math.Abs(float64(o-want)) > 1e-5*math.Abs(float64(want)) {
			return fmt.Errorf("PE %d: token %d's output %d is %v, want %v", me, t, j, o, want)
		}
	}
	return nil
}

// An expertsFunc applies each received copy's expert (meta[2i+1]) to its
// token in x, writing y: copies tokens of hidden values.
type expertsFunc func(ctx context.Context, x pgas.Sym[uint16], meta pgas.Sym[int64], y pgas.Sym[uint16], copies, hidden int) error

// experts is pe's expert work: moe.cu's kernel on a GPU backend, Go on
// the host backend.
func experts(pe *pgas.PE) (expertsFunc, error) {
	g, err := pe.GPU()
	if errors.Is(err, pgas.ErrNotGPU) {
		return func(ctx context.Context, x pgas.Sym[uint16], meta pgas.Sym[int64], y pgas.Sym[uint16], copies, hidden int) error {
			xs, err1 := pgas.Local(pe, x)
			ms, err2 := pgas.Local(pe, meta)
			ys, err3 := pgas.Local(pe, y)
			if err := errors.Join(err1, err2, err3); err != nil {
				return err
			}
			for i := range copies {
				e := int(ms[2*i+1])
				for j := i * hidden; j < (i+1)*hidden; j++ {
					ys[j] = expert(e, xs[j])
				}
			}
			return nil
		}, nil
	}
	if err != nil {
		return nil, err
	}
	mod, err := pgas.LoadSource(pe, "moe.cu", expertSource, kernels.CompileOptions{})
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context, x pgas.Sym[uint16], meta pgas.Sym[int64], y pgas.Sym[uint16], copies, hidden int) error {
		if copies == 0 {
			return nil
		}
		if err := pgas.Launch(pe, mod, "moe_expert", device.D1(min(copies, 4096)), device.D1(256), 0, x, meta, y, copies, hidden); err != nil {
			return err
		}
		return g.Stream().Sync()
	}, nil
}
