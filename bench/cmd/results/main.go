// Command results writes the current tables of bench/RESULTS.md and the
// README's figures from the raw benchmark files under bench/results/ (benchstat's input format:
// key: value configuration lines, then benchmark lines): per table, a row
// per benchmark and a column per impl= variant, each cell the median of
// the table's unit over the file's runs. The tables sit between two
// markers in each file; this program rewrites what is between them, and
// its test fails when the committed tables differ from what it writes.
//
//	cd bench && go run ./cmd/results        # rewrite the tables
//	cd bench && go run ./cmd/results -check # exit 1 if they are stale
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A table is one generated table.
type table struct {
	title string // its heading
	file  string // the raw file, under results/
	match string // which benchmarks (a regexp over the row's name)
	unit  string // which metric: "sec/op" (the ns/op figure) or a custom unit
	about string // a line of what the figures mean, under the heading

	// For runs of several configurations in one file (bench/ab.sh): col
	// is the configuration key whose value names a line's column instead
	// of its impl= (e.g. build: old/new; an impl= other than symchan then
	// stays in the row's name, which match sees), and keys are the configuration
	// keys whose values lead its row's name (e.g. blocking, gomaxprocs).
	col  string
	keys []string
	// ratio, when set, adds a column of the medians' ratio
	// ratio[1] ÷ ratio[0] (e.g. new ÷ old); more adds more such columns.
	ratio [2]string
	more  [][2]string
	// form, when set, is a regexp whose first group, cut from the row's
	// name, leads its column's name (before a variant other than
	// symchan's): so that forms of one benchmark (GPUCollectiveBlocking,
	// GPUCollectiveOnStreamSync) and their anchors sit side by side.
	form string
	// units, when set (instead of unit), are several metrics of each
	// line, one column each.
	units []string
}

// A target is a file with a generated block: where it is from bench/, the
// level of its tables' headings, and its tables in order.
type target struct {
	file    string
	heading string
	tables  []table
}

// The tables, each defined once, one per question a user asks; the
// targets pick from them. A comparison of two builds goes in its
// commit message or CHANGELOG entry, with its raw file, not here.
const (
	targetsFile   = "2026-11-26-issue33-targets.txt"
	targetsAbout  = "One call on each kind (scripts/gpu-run.sh targets): the host↔GPU floors (bench/anchors/floor.cu: a round trip host → GPU → host, and host → GPU → other GPU (or the same GPU's other PE) → host), and symchan's figures measured after them; NVSHMEM's anchors (bench/anchors/nvshmem_bench.cu) run only where two GPUs let its two processes run. Each column a kind."
	overloadFile  = "2026-11-28-go-vm-service-overload-c5623e9.txt"
	overloadAbout = "cd bench && go test -bench ServiceOverload -overload.duration 10s: examples/service's server in process on the 2-core VM, 2 host PEs, a {\"n\":256,\"iters\":500} solve per request, offered 6× the capacity measured first (sequential solves) for 10 s by vegeta; shedding is the example's default flags (-concurrency 1, -queue-depth 4), unbounded the same server without an admission limit or queue-wait bound. Targets (issue 50): every request answered, 95% of the 503s within 50 ms, the 200s' p99 within 2× the unloaded p99 (measured in the same run at a quarter of capacity), file descriptors and RSS flat after the first second. The two PEs' solves take both of the VM's cores, and the 503s wait for a core too."
)

// Messaging from Go on the host, against Go channels, the cross-core floor and protoactor-go.
var (
	hostRoundTrips = table{title: "Host backend: messaging round trips and their anchors", file: "2026-11-25-go-vm-host.txt", match: `^(PingPong|ChanRoundTrip|FutureRoundTrip|SelfSendRecv|WaitAny1024)$`, unit: "sec/op", about: "Time per round trip (per operation for SelfSendRecv and WaitAny1024) on a 2-core VM, symchan and the anchors in the same run: gochan (an unbuffered Go channel pair), atomic (two goroutines handing one atomic word back and forth: the cross-core floor), atomic2 (two words on two cache lines, as two mailboxes have them), handoff (the parked hand-off alone), protoactor's RequestFuture."}
	hostOneWay     = table{title: "Host backend: one-way messages and barriers", file: "2026-11-25-go-vm-host.txt", match: `^(Throughput8B|Barrier/.*)$`, unit: "sec/op", about: "Throughput8B: time per 8-byte message streamed one way (gochan: a 16-slot buffered channel; protoactor: local Send). Barrier: one barrier of the world."}
)

// Messaging from Go between GPUs, against the host↔GPU floor.
var (
	targetsFromGo = table{title: "Between GPUs: round trips from Go against the host↔GPU floor (µs per round trip, median)", file: targetsFile, match: `^(GPUFloor/.*|GPUChanRoundTrip|GPUFutureRoundTrip)$`, unit: "us/RT", col: "kind", about: targetsAbout}
	twoGPUFromGo  = table{title: "Between two GPUs: round trips from Go (µs)", file: "2026-11-25-nvidia-h100-x2-gpus.txt",
		match: `^GPU(Chan|Future)RoundTrip$`, unit: "us/RT",
		about: "A Chan and a Future round trip driven from Go between PEs on two H100s (cuda backend)."}
)

// The device API and kernel actors against NVIDIA's NVSHMEM.
var (
	deviceVsNVSHMEM = table{title: "GPU device API against NVSHMEM's (µs per half round trip)", file: "2026-11-25-nvidia-h100-x1-device-vs-anchor.txt", match: `^GPUDevicePingPong/.*$`, unit: "us/half-RT", about: "Device-initiated ping-pongs between two processes sharing one H100, in one call: symchan's symchan.cuh on the forced-remote path (NVSHMEM's device library underneath) against NVSHMEM's own device put-with-signal and signal ping-pongs (bench/anchors)."}
	checksRate      = table{title: "Between two GPUs: messages from many warps to one receiver (million messages per second)", file: "2026-11-25-nvidia-h100-x2-sealed-checks.txt",
		match: `^GPUActorMessageRate/`, unit: "Mmsg/s",
		about: "Warps of a sending kernel on one H100, one receiver on the other, with sealed slots: symchan's mailboxes and kernel actors (mp: a thread per message; many: a warp takes a run; block: a block takes a run; deep: more slots), raw put-with-signal into a ring (no flow control), and NVSHMEM's anchor, same call, two runs."}
	checksRing = table{title: "Between two GPUs: the ring's hop with kernel actors", file: "2026-11-25-nvidia-h100-x2-sealed-checks.txt",
		match: `^RingHop/`, unit: "sec/op",
		about: "examples/ring -backend cuda -pes 2 -actors kernel -laps 2000 on two H100s with sealed slots: the hop's median (no host in a hop)."}
)

// Collectives at 2 and 4 GPUs against NVSHMEM's.
var (
	blockingCUDA = table{title: "Four H100s: blocking collectives from Go, one launch on the device, against the stream form synced after each call and NVSHMEM's (µs per collective)", file: "2026-11-28-nvidia-h100-x4-coll-blocking-cuda.txt",
		match: `^GPUCollective(Blocking|OnStreamSync|OnStreamEvents)/pes=\d+/op=[\w-]+/size=(0|8|4096|32768)$`, form: `^GPUCollective(\w+)/`, unit: "us/op",
		ratio: [2]string{"OnStreamSync", "Blocking"}, more: [][2]string{{"OnStreamSync nvshmem", "Blocking"}, {"OnStreamEvents nvshmem", "Blocking"}},
		about: "The world team on the cuda backend, a PE per GPU (pes=2: GPUs 0 and 1; pes=4: all four), one call. Blocking: k of pe.TeamWorld().Barrier, pgas.Broadcast, ReduceAll (float32, float64 sums), FCollect and AllToAll called from Go one after the other, each one launch of symchan_team_step on the PE's collective stream and its wait (the build before the wait polled: the table after next). OnStreamSync: the *OnStream form with a Stream.Sync after each call. NVSHMEM's (bench/anchors/nvshmem_coll.cu, as many processes as PEs): OnStreamSync, each nvshmemx_*_on_stream followed by cudaStreamSynchronize, by the wall clock; OnStreamEvents, timed as its perftests do (CUDA events around each call, then a synchronisation; the events' time). Median of 5 repetitions after 2 of k calls, over k. Issue 47's targets: Blocking ÷ OnStreamSync ≤ 1.2, Blocking ÷ NVSHMEM's ≤ 1.5."}
	blockingNVSHMEM = table{title: "Four H100s: the same under the nvshmem backend, a process per GPU (µs per collective)", file: "2026-11-28-nvidia-h100-x4-coll-blocking-nvshmem.txt",
		match: `^GPUCollective(Blocking|OnStreamSync|OnStreamEvents)/pes=4/op=[\w-]+/size=(0|8|4096|32768)$`, form: `^GPUCollective(\w+)/`, unit: "us/op",
		ratio: [2]string{"OnStreamSync", "Blocking"}, more: [][2]string{{"OnStreamSync nvshmem", "Blocking"}, {"OnStreamEvents nvshmem", "Blocking"}},
		about: "The same call: symrun -n 4 on the nvshmem backend against NVSHMEM's anchor at 4 processes."}
)

// The collectives against NVIDIA's own perftests, same call.
var perftestColl = table{title: "Four H100s: collectives in a kernel and from Go against NVIDIA's perftests at 2 and 4 PEs (µs per collective)", file: "2026-11-28-nvidia-h100-x4-coll-perftest-39b00e6.txt",
	match: `^GPUCollective(Device|Blocking|OnStreamEvents)/pes=\d+/op=[\w-]+/size=(0|64|512)$`, form: `^GPUCollective(\w+)/`, unit: "us/op",
	ratio: [2]string{"Device perftest", "Device"}, more: [][2]string{{"OnStreamEvents perftest", "Blocking"}},
	about: "One call on four H100s (cuda backend, a PE per GPU; NVIDIA/nvshmem's perftests at tag v3.4.5-0, built with nvcc in the call by scripts/perftests.sh, as many processes as PEs under mpirun). Device: symchan.cuh's block collectives, k in one kernel of 256 threads (BenchmarkGPUCollectiveDevice), against the perftests' block-scope device collectives (perftest/device/coll: barrier_device, bcast and fcollect and alltoall of 32-bit elements, reductions as int32 and int64 sums beside symchan's float32 and float64 sums). Blocking: the collective called from Go, one launch and its wait (BenchmarkGPUCollectiveBlocking), against the perftests' host on-stream collectives (perftest/host/coll/*_on_stream: CUDA events around each call, then a synchronisation), and NVSHMEM's own anchor timed the same way (bench/anchors/nvshmem_coll.cu, OnStreamEvents nvshmem). size: bytes each member contributes (NVIDIA's fcollect and alltoall sizes, which count every member's block, divided by P; scripts/perftests.sh names). A perftest figure is one run of its default iterations, symchan's the median of 5 repetitions after 2. Targets: issue 48, small collectives in a kernel at NVSHMEM's latency; issue 47, Blocking ÷ NVSHMEM's on-stream call ≤ 1.5."}

// The small-message path of the device collectives, one H100.
var (
	smallColl = table{title: "One H100: small collectives in a kernel and on a stream, one phase (new) against two (old) (µs per collective)", file: "2026-12-06-nvidia-h100-x1-small-collectives-ab2.txt",
		match: `^GPUCollective(Device|OnStream)/pes=2/op=[\w-]+/size=(0|8|512|4096|32768)$`, form: `^GPUCollective(\w+)/`, unit: "us/op",
		ratio: [2]string{"Device old", "Device new"}, more: [][2]string{{"OnStream old", "OnStream new"}},
		about: "One call on one H100. old: 9b33674, before the small-message path; new: this build. Alternating after a warm-up run of each, two runs each, 2 PEs sharing the GPU on the cuda backend; Device: k of symchan.cuh's block collectives in one kernel of 256 threads (the benchmark's kernel one a scope: holding every scope's forms it spilled registers, which an earlier run measured as a 3–11% loss at 32 KiB: 2026-12-06-nvidia-h100-x1-small-collectives-ab.txt, where the warp and thread forms' figures are too), OnStream: k *OnStream calls and one Stream.Sync; median of 5 repetitions after 2, over k, then over the runs. The small path (buffers of 16 KiB at this heap) covers what lands on a member up to 16 KiB; 32768 takes two phases in both builds, and there new is still slower on a stream (the runtime's kernel, which spills nothing; a trial of the team struct's layout was no faster: 2026-12-06-nvidia-h100-x1-team-layout-ab.txt). NVIDIA's perftests beside symchan in one layout: the next table. Issue 48's targets: small sizes within 1.0× NVIDIA's; no size above 4 KiB slower than the old build (missed at 32 KiB)."}
	smallCollMPS = table{title: "One H100, two nvshmem processes under MPS: small collectives in a kernel against NVIDIA's perftests (µs per collective)", file: "2026-12-06-nvidia-h100-x1-small-collectives-mps.txt",
		match: `^GPUCollectiveDevice/pes=2/op=[\w-]+/size=(0|8|512|4096)$`, unit: "us/op", ratio: [2]string{"perftest", "symchan"},
		about: "One call: NVIDIA's perftests (block scope) and symchan's BenchmarkGPUCollectiveDevice on the nvshmem backend (symrun -n 2), both as two processes sharing the GPU under MPS, one-phase small collectives. The old build in this layout, in another call beside the perftests again: bench/results/2026-12-06-nvidia-h100-x1-small-collectives-old-mps.txt."}
)

// Jacobi against NVIDIA's.
var (
	twoGPUJacobi = table{title: "Between two GPUs: examples/jacobi against NVSHMEM's (16384² × 1000)", file: "2026-11-25-nvidia-h100-x2-gpus.txt",
		match: `^Jacobi16384/`, unit: "sec/op", ratio: [2]string{"nvshmem", "symchan"},
		about: "examples/jacobi on the cuda backend (-verify passed) and the same solver written against NVSHMEM in C (bench/anchors/nvshmem_jacobi.cu, vec4 kernel), on 1 and 2 H100s, in one call."}
)

// The service against a worker pool, and under overload.
var (
	serviceLoad = table{title: "examples/service at its highest sustained rate (requests/s)", file: "2026-11-25-go-vm-service-load.txt",
		match: `^ServiceLoad$`, unit: "max-req/s", ratio: [2]string{"symchan-bare", "symchan"},
		about: "vegeta against POST /v1/jacobi (2 host PEs, {\"n\":64,\"iters\":20}), rising rates of 4 s each bisected to 3%, sustained: 99.9% answered 200, throughput ≥ 95% of the rate, p99 ≤ 50 ms; two sweeps each, 2-core VM (bench/load.sh). symchan: as examples/service ships (per-call histograms, promstats); symchan-bare: no per-call observability; symchan-otel: OpenTelemetry's tracing and metrics middleware and trace context carried, beside the histograms; workerpool: the same endpoint on a plain Go worker pool."}
	overloadRejected = table{title: "examples/service under 6× overload: the 503s' 95th percentile (ms)", file: overloadFile, match: `^ServiceOverload$`, unit: "rejected-p95-ms", about: overloadAbout}
	overloadOK       = table{title: "examples/service under 6× overload: the 200s' p99 over the unloaded p99", file: overloadFile, match: `^ServiceOverload$`, unit: "ok-p99-ratio", about: "The same run."}
)

// What grows with the world.
var (
	scaleCUDA = table{title: "Four H100s, cuda backend, PEs sharing the GPUs: a world of P PEs (µs; KiB per PE)", file: "2026-11-28-nvidia-h100-x4-scale-cuda-184adc3.txt",
		match: `^Scale/pes=`, units: []string{"us/start-stop", "chan-sym-KiB/PE", "chan-go-KiB/PE", "us/chan-RT", "us/barrier", "us/alltoall-8"},
		about: "BenchmarkScale -scale.backend cuda: PE i on GPU i mod 4 (SYMCHAN_CUDA_SHARE_GPUS=1), PEs of a GPU sharing its context and its agent; the same measurements as the host table's. The 1024-PE world did not finish within the call (its barriers and all-to-alls at 512 PEs already take 1.5 s and 0.45 s each: every PE's collective kernel shares its GPU with 127 others, and the host goroutines polling their streams share 64 cores)."}
	scaleHost = table{title: "Host backend, 2-core VM: a world of P PEs (µs; KiB per PE)", file: "2026-11-28-go-vm-scale-host-91b1f3a.txt",
		match: `^Scale/pes=`, units: []string{"us/start-stop", "chan-sym-KiB/PE", "chan-go-KiB/PE", "us/chan-RT", "us/barrier", "us/alltoall-8"},
		about: "BenchmarkScale: Run of a function that returns at once (start-stop, median of 3); one Chan with the default options (64 lanes of 16 slots of 1 KiB): the symmetric heap it takes per PE (PE.HeapFree before and after) and its Go memory (the world's heap growth over P, GC-noisy); a Chan round trip between PEs 0 and 1 while the others wait on a Go channel; a world barrier; an AllToAll of 8 int64 per peer (medians of 5 repetitions, on PE 0). Every PE parks when it waits (pgas.BlockPark, what a world of more PEs than the VM's 2 cores does by default; a 2-PE world spins by default, 0.25 µs a round trip). Issue 47's targets: one Chan ≤ 1.5 MiB per PE at 4096 PEs; the round trip at 4096 PEs within 1.2× of 2 PEs'. The barrier's ⌈log₂ P⌉ rounds wait for the scheduler, and the AllToAll's P Gets and Puts per member (P² in all) are the host's algorithm."}
)

// How long a program with a user's kernel takes to start.
var startup = table{title: "One H100: start-up of a program with a user's kernel, cold and warm cache", file: "2026-12-06-nvidia-h100-x1-startup.txt",
	match: `^Startup/`, units: []string{"s-wall", "ms-compile", "ms-load", "ms-ready"},
	about: "examples/devicering -laps 100 (kernels.Compile of ring.cu, then pgas.GPU.Load on every PE, then the ring): two PEs sharing the GPU on the cuda backend, two processes under MPS on the nvshmem backend. cold: an empty cache folder; warm: the cache the cold run left (two runs). wall: the whole command (symrun included); compile, load: PE 0's kernels.Compile and its GPU's Load (on nvshmem the variant's NVRTC compile and the link with NVSHMEM's device library, or the cached image); ready: from PE 0's process start to its program loaded (NVSHMEM's start and the runtime's load included). build=last: the commit before the cache of linked images and the start-up lines (it prints neither). Issue 49's targets: a warm start loads a program in at most 1 s per process on both backends; a cold start no slower than before."}

// targets are the files this program writes.
var targets = []target{
	{"RESULTS.md", "###", []table{hostRoundTrips, hostOneWay, targetsFromGo, twoGPUFromGo, deviceVsNVSHMEM, checksRate, checksRing, blockingCUDA, blockingNVSHMEM, perftestColl, smallColl, smallCollMPS, twoGPUJacobi, serviceLoad, overloadRejected, overloadOK, scaleHost, scaleCUDA, startup}},
	{"../README.md", "####", []table{
		{title: "Host backend, 2-core VM", file: hostRoundTrips.file, match: `^(ChanRoundTrip|FutureRoundTrip)$`, unit: "sec/op",
			about: "A round trip, symchan beside its anchors in the same run (`bench/RESULTS.md` says what each anchor is)."},
		twoGPUFromGo, twoGPUJacobi, checksRing, deviceVsNVSHMEM, blockingCUDA,
	}},
	{"../docs/scale.md", "###", []table{scaleHost, scaleCUDA}},
}

const (
	startMark = "<!-- tables: generated by `go run ./cmd/results` in bench/ from bench/results/; do not edit by hand -->"
	endMark   = "<!-- end of the generated tables -->"
)

func main() {
	check := flag.Bool("check", false, "exit 1 if a generated block differs from what the raw files give")
	flag.Parse()
	if err := run(".", *check); err != nil {
		log.Fatal(err)
	}
}

// run renders every target's tables from the raw files of bench (the
// bench module's directory), or with check only compares.
func run(bench string, check bool) error {
	for _, t := range targets {
		if err := write(filepath.Join(bench, t.file), filepath.Join(bench, "results"), t, check); err != nil {
			return err
		}
	}
	return nil
}

// write renders t's tables into file between the markers.
func write(file, dir string, t target, check bool) error {
	old, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	body, err := render(dir, t.heading, t.tables)
	if err != nil {
		return err
	}
	i, j := bytes.Index(old, []byte(startMark)), bytes.Index(old, []byte(endMark))
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %q … %q block", file, startMark, endMark)
	}
	updated := append(append(append([]byte{}, old[:i+len(startMark)]...), "\n\n"+body+"\n\n"...), old[j:]...)
	if bytes.Equal(updated, old) {
		return nil
	}
	if check {
		return fmt.Errorf("%s's generated tables are stale: run go run ./cmd/results in bench/", file)
	}
	return os.WriteFile(file, updated, 0o644)
}

// parsed is one file's configuration and its benchmark lines.
type parsed struct {
	config map[string]string
	// values[row][impl] are the figures of the table's unit, one per line.
	values map[string]map[string][]float64
	rows   []string
	impls  []string
}

// parse reads file's lines for t: its unit, the rows matching t.match.
// The file's configuration is its first value of each key.
func parse(file string, t table) (*parsed, error) {
	unit := t.unit
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	re, err := regexp.Compile(t.match)
	if err != nil {
		return nil, err
	}
	var form *regexp.Regexp
	if t.form != "" {
		if form, err = regexp.Compile(t.form); err != nil {
			return nil, err
		}
	}
	r := &parsed{config: map[string]string{}, values: map[string]map[string][]float64{}}
	now := map[string]string{} // the configuration at this line
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimPrefix(sc.Text(), "[PE 0] ")
		if !strings.HasPrefix(line, "Benchmark") {
			if k, v, ok := strings.Cut(line, ": "); ok && !strings.ContainsAny(k, " \t") {
				if _, seen := r.config[k]; !seen {
					r.config[k] = v
				}
				now[k] = v
			}
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 4 {
			continue
		}
		name := strings.TrimPrefix(fields[0], "Benchmark")
		if k := strings.LastIndex(name, "-"); k > 0 {
			if _, err := strconv.Atoi(name[k+1:]); err == nil {
				name = name[:k] // the GOMAXPROCS suffix
			}
		}
		var row []string
		impl := "symchan" // a benchmark without variants measures symchan alone
		for _, part := range strings.Split(name, "/") {
			if v, ok := strings.CutPrefix(part, "impl="); ok {
				impl = v
			} else {
				row = append(row, part)
			}
		}
		rowName := strings.Join(row, "/")
		if t.col != "" {
			// The configuration names the column: a variant other than
			// symchan's plain one stays in the row.
			if impl != "symchan" {
				rowName += "/impl=" + impl
			}
			impl = now[t.col]
		}
		if !re.MatchString(rowName) {
			continue
		}
		if form != nil {
			m := form.FindStringSubmatchIndex(rowName)
			if m == nil || m[2] < 0 {
				continue
			}
			col := rowName[m[2]:m[3]]
			if impl != "symchan" {
				col += " " + impl
			}
			impl, rowName = col, rowName[:m[0]]+rowName[m[1]:]
		}
		for i := len(t.keys) - 1; i >= 0; i-- {
			rowName = t.keys[i] + "=" + now[t.keys[i]] + " " + rowName
		}
		for k := 2; k+1 < len(fields); k += 2 {
			u := fields[k+1]
			if contains(t.units, u) {
				v, err := strconv.ParseFloat(fields[k], 64)
				if err != nil {
					return nil, fmt.Errorf("%s: %q: %w", file, line, err)
				}
				if r.values[rowName] == nil {
					r.values[rowName] = map[string][]float64{}
					r.rows = append(r.rows, rowName)
				}
				r.values[rowName][u] = append(r.values[rowName][u], v)
				continue
			}
			if u == "ns/op" && unit == "sec/op" || u == unit {
				v, err := strconv.ParseFloat(fields[k], 64)
				if err != nil {
					return nil, fmt.Errorf("%s: %q: %w", file, line, err)
				}
				if u == "ns/op" {
					v /= 1e9
				}
				if r.values[rowName] == nil {
					r.values[rowName] = map[string][]float64{}
					r.rows = append(r.rows, rowName)
				}
				if r.values[rowName][impl] == nil && !contains(r.impls, impl) {
					r.impls = append(r.impls, impl)
				}
				r.values[rowName][impl] = append(r.values[rowName][impl], v)
				break
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(t.units) > 0 {
		r.impls = t.units
	}
	if len(r.rows) == 0 {
		return nil, fmt.Errorf("%s: no benchmark matches %q with unit %s", file, t.match, unit)
	}
	// symchan's variants first, then the anchors, each as they came.
	sort.SliceStable(r.impls, func(a, b int) bool {
		return strings.HasPrefix(r.impls[a], "symchan") && !strings.HasPrefix(r.impls[b], "symchan")
	})
	return r, nil
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// render writes every table as markdown.
func render(dir, heading string, tables []table) (string, error) {
	var b strings.Builder
	for _, t := range tables {
		r, err := parse(filepath.Join(dir, t.file), t)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s %s\n\n%s\n\n", heading, t.title, t.about)
		fmt.Fprintf(&b, "Source: `bench/results/%s` (%s, %s; commit %s), medians of %s.\n\n", t.file, r.config["date"], r.config["machine"], r.config["commit"], runsOf(r))
		b.WriteString("| benchmark |")
		cols := len(r.impls)
		for _, impl := range r.impls {
			fmt.Fprintf(&b, " %s |", impl)
		}
		ratios := t.more
		if t.ratio[0] != "" {
			ratios = append([][2]string{t.ratio}, ratios...)
		}
		for _, q := range ratios {
			fmt.Fprintf(&b, " %s ÷ %s |", q[1], q[0])
			cols++
		}
		b.WriteString("\n| --- |" + strings.Repeat(" ---: |", cols) + "\n")
		for _, row := range r.rows {
			fmt.Fprintf(&b, "| `%s` |", row)
			for _, impl := range r.impls {
				vs := r.values[row][impl]
				if len(vs) == 0 {
					b.WriteString(" — |")
					continue
				}
				fmt.Fprintf(&b, " %s |", format(median(vs), t.unit))
			}
			for _, q := range ratios {
				a, z := r.values[row][q[0]], r.values[row][q[1]]
				if len(a) == 0 || len(z) == 0 {
					b.WriteString(" — |")
				} else {
					fmt.Fprintf(&b, " %.2f× |", median(z)/median(a))
				}
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// runsOf says how many runs the medians are of: the most lines of one
// cell.
func runsOf(r *parsed) string {
	n := 0
	for _, row := range r.values {
		for _, vs := range row {
			n = max(n, len(vs))
		}
	}
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("up to %d runs", n)
}

func median(vs []float64) float64 {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// format writes a figure: a time in ns, µs, ms or s; else the number, to
// four significant digits, and whole from 10,000 on (a count, not 1.83e+04).
func format(v float64, unit string) string {
	if unit != "sec/op" {
		if v >= 1e4 {
			return strconv.FormatFloat(v, 'f', 0, 64)
		}
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	switch {
	case v < 1e-6:
		return strconv.FormatFloat(v*1e9, 'g', 4, 64) + " ns"
	case v < 1e-3:
		return strconv.FormatFloat(v*1e6, 'g', 4, 64) + " µs"
	case v < 1:
		return strconv.FormatFloat(v*1e3, 'g', 4, 64) + " ms"
	}
	return strconv.FormatFloat(v, 'g', 4, 64) + " s"
}
