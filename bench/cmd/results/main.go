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

// The tables, each defined once; the targets pick from them.
var (
	hostRoundTrips  = table{title: "Host backend: messaging round trips and their anchors", file: "2026-11-25-go-vm-host.txt", match: `^(PingPong|ChanRoundTrip|FutureRoundTrip|SelfSendRecv|WaitAny1024)$`, unit: "sec/op", about: "Time per round trip (per operation for SelfSendRecv and WaitAny1024) on a 2-core VM, symchan and the anchors in the same run: gochan (an unbuffered Go channel pair), atomic (two goroutines handing one atomic word back and forth: the cross-core floor), atomic2 (two words on two cache lines, as two mailboxes have them), handoff (the parked hand-off alone), protoactor's RequestFuture."}
	hostOneWay      = table{title: "Host backend: one-way messages and barriers", file: "2026-11-25-go-vm-host.txt", match: `^(Throughput8B|Barrier/.*)$`, unit: "sec/op", about: "Throughput8B: time per 8-byte message streamed one way (gochan: a 16-slot buffered channel; protoactor: local Send). Barrier: one barrier of the world."}
	goOnGPUs        = table{title: "GPU from Go: round trips between two nvshmem processes (µs)", file: "2026-11-25-nvidia-h100-x1-nvshmem-gpu-bench.txt", match: `^GPU(Chan|Future)RoundTrip$`, unit: "us/RT", about: "A Chan and a Future round trip driven from Go between two nvshmem processes sharing one H100 under MPS: the mapped path (load/store through the agent) and the forced-remote one (NVSHMEM's routines, as to another host), two runs each."}
	deviceVsNVSHMEM = table{title: "GPU device API against NVSHMEM's (µs per half round trip)", file: "2026-11-25-nvidia-h100-x1-device-vs-anchor.txt", match: `^GPUDevicePingPong/.*$`, unit: "us/half-RT", about: "Device-initiated ping-pongs between two processes sharing one H100, in one call: symchan's symchan.cuh on the forced-remote path (NVSHMEM's device library underneath) against NVSHMEM's own device put-with-signal and signal ping-pongs (bench/anchors)."}
	kernelActors    = table{title: "GPU: kernel-actor and device ping-pong (µs per half round trip)", file: "2026-11-25-nvidia-h100-x1-gpu.txt", match: `^(GPUActorPingPong|GPUDevicePingPong/.*)$`, unit: "us/half-RT", about: "Two PEs sharing one H100 (cuda backend): a kernel actor's 8-byte echo, with its state in global or shared memory, and device-initiated put-with-signal and signal ping-pongs, by how the device waits and signals."}
	messageRate     = table{title: "GPU: messages from many warps to one receiver (million messages per second)", file: "2026-11-25-nvidia-h100-x1-gpu.txt", match: `^GPUActorMessageRate/.*$`, unit: "Mmsg/s", about: "Warps of a sending kernel on one PE, one receiver on another, sharing the H100: symchan's mailboxes and actors against raw put-with-signal into a ring (no flow control)."}
	blockPut        = table{title: "GPU: device block put (GB/s)", file: "2026-11-25-nvidia-h100-x1-gpu.txt", match: `^GPUDevicePutBlock/.*$`, unit: "GB/s", about: "A kernel's block-wide put between two PEs sharing the H100."}
	collectives     = table{title: "nvshmem backend: collectives, mapped and forced-remote", file: "2026-11-25-nvidia-h100-x1-nvshmem-paths.txt", match: `.`, unit: "sec/op", about: "Two nvshmem processes sharing one H100 under MPS, the mapped path against the forced-remote one: AllToAll of n int64 per peer, contiguous or strided (alltoalls); one barrier round."}
)

// buildAB is a table of a run of two builds, old and new, alternating in
// one call (a no-regression check), with new ÷ old.
func buildAB(title, file, match, unit, about string) table {
	return table{title: title, file: file, match: match, unit: unit, col: "build", ratio: [2]string{"old", "new"}, about: about}
}

// hostAB is a table of bench/ab.sh's raw file: every benchmark, old and
// new builds side by side with their ratio, a row per blocking mode and
// GOMAXPROCS.
func hostAB(title, file, about string) table {
	t := buildAB(title, file, `.`, "sec/op", about)
	t.keys = []string{"blocking", "gomaxprocs"}
	return t
}

// hostSealed is issue 33's check of the host backend after sealed slots
// (its line layout lost 8 payload bytes to the longer header).
var hostSealed = hostAB("Host backend after sealed slots: before and after", "2026-11-25-go-vm-host-ab-sealed.txt",
	"The messaging benchmarks and the ring's hop median (8 B and 4 KiB, 8 PEs) of 6e49905 (old) and f1fb472 (new: sealed slots; the host backend keeps its line layout, unsealed, with 32 payload bytes beside the word instead of 40), alternating, 3 rounds, in spin and park modes at GOMAXPROCS 2 and 8 on a 2-core VM (bench/ab.sh): no change beyond the VM's noise (benchstat: p > 0.05 everywhere).")

// hostAB259549a is issue 32's host fast path at 259549a against the
// commit before its move (c503695).
var hostAB259549a = hostAB("Host fast path: before its move (c503695) against 259549a", "2026-11-25-go-vm-host-ab-c503695-259549a.txt",
	"The messaging benchmarks and the ring's hop median (8 B and 4 KiB, 8 PEs) of c503695 (old: actors wrote partitions and rang their own doorbells) and of 259549a (new), alternating, 3 rounds, in spin and park modes at GOMAXPROCS 2 and 8 on a 2-core VM (bench/ab.sh). benchstat found no difference significant (p ≥ 0.1 everywhere, n = 3): geomeans −4% and −1% spinning, +15% and +6% parked.")

// hostAB41ae269 is the same comparison for the round trips alone, 8
// rounds, enough for benchstat to tell.
var hostAB41ae269 = hostAB("Host fast path: round trips before its move (c503695) against 41ae269, 8 rounds", "2026-11-25-go-vm-host-ab-c503695-41ae269.txt",
	"Chan and Future round trips of c503695 (old) and 41ae269 (new), alternating, 8 rounds (bench/ab.sh with RING=0), 2-core VM. benchstat: parked at GOMAXPROCS 2 the new build is slower, Chan +20% (p = 0.021) and Future +19% (p = 0.010); no other difference is significant.")

// The tables below are the same A/B at later commits, until the host
// path no longer regressed (8891130).
var hostAB6b6b9c3 = hostAB("Host fast path: round trips before its move (c503695) against 6b6b9c3, 8 rounds", "2026-11-25-go-vm-host-ab-c503695-6b6b9c3.txt",
	"The same A/B as above, again at 6b6b9c3 (bench/ab.sh c503695 6b6b9c3, RING=0, 8 rounds, 2-core VM). benchstat: Future is slower in every mode (+11% to +23%, p ≤ 0.038), Chan parked (+15% at GOMAXPROCS 2, p = 0.028; +5% at 8, p = 0.038); spinning Chan is within the noise.")

var hostABb2fd6f0 = hostAB("Host fast path: round trips before its move (c503695) against b2fd6f0, 8 rounds", "2026-11-25-go-vm-host-ab-c503695-b2fd6f0.txt",
	"bench/ab.sh c503695 b2fd6f0 (ROUNDS=8, RING=0, the Chan and Future round trips only) on the 2-core VM: old and new alternating in each round, spin and park, GOMAXPROCS 2 and 8.")

var hostAB1577656 = hostAB("Host fast path: round trips before its move (c503695) against 1577656, 8 rounds", "2026-11-26-go-vm-host-ab-c503695-1577656.txt",
	"bench/ab.sh c503695 1577656 (ROUNDS=8, RING=0) on the 2-core VM after the trims of pgas's put-with-signal path (Sym.Slice inlined, one hold without a call, PutSignalIf issuing the claim itself): Chan is within the noise in every mode; Future is still slower, +9% to +10% spinning (p ≤ 0.038) and +20% to +23% parked (p ≤ 0.007).")

var hostABc9cc0a2 = hostAB("Host fast path: round trips before its move (c503695) against c9cc0a2, 8 rounds", "2026-11-26-go-vm-host-ab-c503695-c9cc0a2.txt",
	"bench/ab.sh c503695 c9cc0a2 (ROUNDS=8) on the 2-core VM after these host changes: Park runs the hand-off waiter's own loop with its ready function (no evaluator), a Spot's Watch and Stopped compare the context they kept, PlainCodec asks no reflection for scalars, Await leaves the world-ended check to Park. Parked, Chan is +5% to +6% (p = 0.000), Future +7% to +10% (p ≤ 0.021; +20% to +23% at 1577656), Throughput8B +4% to +5%, the ring +4%. The spinning rounds met a noisy machine (±40% to ±57%): no difference is significant there.")

// hostAB8891130 is issue 32's host check after 8891130 cut the message
// path's instructions.
var hostAB8891130 = hostAB("Host fast path: round trips before its move (c503695) against 8891130, 8 rounds", "2026-11-26-go-vm-host-ab-c503695-8891130.txt",
	"bench/ab.sh c503695 8891130 (ROUNDS=8) on the 2-core VM after the changes that cut the message path's instructions (the next two tables): per-sender head slots and per-destination next slots instead of divisions, the senders' list kept until it changes, small messages sent into and taken from their line without the header's decoder, PutSignal's checks and holds without calls, and the hand-off spot's stop check from three flags instead of two channel receives. Parked, every figure is faster than c503695's (Chan −12% to −13%, Throughput8B −11%, Future −5% to −6%, PingPong −10%, the ring −4%; p ≤ 0.042). Spinning at GOMAXPROCS 2, Chan −10% and the ring −18%; Future +4% is not significant (p = 0.72), nor is anything at GOMAXPROCS 8, where the spinning PEs overload the 2 cores (±97% to ±215%).")

// hostFutureABae36fe7 is a second look at the Future round trip, the one
// figure hostAB8891130 left uncertain (spinning, GOMAXPROCS 2).
var hostFutureABae36fe7 = hostAB("Host: the Future round trip alone, before the host path's move (c503695) against ae36fe7, 12 rounds", "2026-11-26-go-vm-host-ab-future-c503695-ae36fe7.txt",
	"bench/ab.sh c503695 ae36fe7 with BENCH=FutureRoundTrip, RING=0, ROUNDS=12, 2-core VM. Parked, −4% and −5% (p ≤ 0.028). Spinning, the VM put some runs of both builds in a mode where a round trip takes 640 to 1,300 ns (±95% to ±149%), and no difference is significant (p = 0.20 at GOMAXPROCS 2, 0.40 at 8). Without those runs, at GOMAXPROCS 2 c503695's round trips lie at 266 to 302 ns and the new build's in two groups, 256 to 284 and 305 to 325 ns: which group a world falls in was not explained (the VM has no hardware counters; isolating the mailbox, the System and the host backend's slices on cache lines of their own did not change it).")

// hostZeroValues checks that the zero-value guards (issue 51, item 3)
// leave the host round trips as they were.
var hostZeroValues = hostAB("Host: round trips before (1738c13) and after (59aa864) the zero-value guards of Mailbox, Chan and Future, 3 rounds", "2026-11-28-go-vm-host-ab-zero-values.txt",
	"bench/ab.sh 1738c13 59aa864 with BENCH='ChanRoundTrip$|FutureRoundTrip$', RING=0, ROUNDS=3, BENCHTIME=100ms, 2-core VM: the second build checks for a zero or nil Chan, Mailbox or Future on entry to Send, TrySend, Recv, TryRecv, Close and Await (two or three compares of fields the calls load anyway).")

// hostWorldEnd checks that the world's-end handling of the host parks
// (issue 51, item 5) leaves the host round trips as they were.
var hostWorldEnd = hostAB("Host: round trips before (9f4d46e) and after (54fa04f) a park checks for its world's close, 3 rounds", "2026-11-28-go-vm-host-ab-world-end.txt",
	"bench/ab.sh 9f4d46e 54fa04f with BENCH='ChanRoundTrip$|FutureRoundTrip$|PingPong$', RING=0, ROUNDS=3, BENCHTIME=100ms, 2-core VM: the second build loads the hand-off owner's closed flag before it takes the owner, and again after arming before it parks.")

// hostInstr and hostI1 are the instruction counts of the host round
// trips (bench/icount.sh) at c503695 (before the host path's move),
// 0f5ff22 and 74624ce.
var (
	hostInstr = buildAB("Host round trips: instructions per round trip (valgrind)", "2026-11-26-go-vm-icount-c503695-0f5ff22-74624ce.txt", `.`, "instr/op",
		"bench/icount.sh old=c503695 start=0f5ff22 new=74624ce: cachegrind's instruction count of a parked round trip (Throughput8B: a message) at GOMAXPROCS=1, both PEs and Go's scheduler together, the difference of 24,000 and 4,000 iterations. old is the commit before the host path's move into pgas, start 0f5ff22 and new 74624ce, before and after the instruction cuts. Repeated runs of one build differ by up to about 200 instructions.")
	hostI1 = buildAB("Host round trips: simulated L1 instruction-cache misses per round trip", hostInstr.file, `.`, "I1-misses/op",
		"The same runs: misses of a simulated 32 KiB 8-way L1 instruction cache (the VM's AMD EPYC has one). The round trip's code, Go's scheduler included, fills about 22 KiB, and which lines conflict depends on where the linker placed it: a change anywhere on the path moves these.")
)

var hostAB5716b15 = hostAB("Host: round trips at 6eb9b14 and 5716b15", "2026-11-25-go-vm-host-ab-6eb9b14-5716b15.txt",
	"bench/ab.sh 6eb9b14 5716b15, RING=0, 6 rounds, 2-core VM: the changes between them (team collectives, the team slot's device struct written at a world's start). benchstat finds no significant difference (p ≥ 0.24 everywhere).")

var hostAB83f34a5 = hostAB("Host: round trips at 67af140 and 83f34a5", "2026-11-25-go-vm-host-ab-67af140-83f34a5.txt",
	"bench/ab.sh 67af140 83f34a5, RING=0, 6 rounds, 2-core VM: the changes between them (the atomic fold, streams, the Go 1.23 spellings). benchstat finds no significant difference (p ≥ 0.09 everywhere; the VM's spread reached ±56% in this run).")

// hostPaths is issue 32's before and after: the host fast path moved
// from package actors into the backend (pgas.Park), old and new builds
// alternating (bench/ab.sh).
var hostPaths = hostAB("Host fast path in actors (old) and through pgas.Park (new)", "2026-11-25-go-vm-host-ab.txt",
	"The messaging benchmarks and the ring's hop median (8 B and 4 KiB payloads, 2000 laps, 8 PEs) of c503695 (old: actors wrote partitions and rang their own doorbells) and of issue 32's change (new: PutSignal and pgas.Park), alternating in one run, 6 rounds, in spin and park modes at GOMAXPROCS 2 and 8 on a 2-core VM.")

// gpuPaths is the GPU check of issue 32's change: the round trips from Go
// on both backends at that commit.
var gpuPaths = table{title: "GPU from Go after the host path's move: round trips on both backends (µs)", file: "2026-11-25-nvidia-h100-x1-paths.txt",
	match: `^GPU(Chan|Future)RoundTrip$`, unit: "us/RT", col: "backend",
	about: "A Chan and a Future round trip driven from Go between two PEs sharing one H100: cuda (both PEs in one process) and nvshmem (two processes under MPS, mapped path), one call that also ran both suites and the forced-remote PGAS and actors suites (all passed)."}

// userKernels is issue 36's first item: users' CUDA C compiled with NVRTC
// at run time.
var userKernels = table{title: "Users' kernels compiled at run time (NVRTC)", file: "2026-11-25-nvidia-h100-x1-userkernel.txt",
	match: `.`, unit: "sec/op",
	about: "kernels.Compile of a small program that includes symchan.cuh, for the cuda backend: cold (a fresh cache; the first compile of a process also loads NVRTC) and from the disk cache; and a PE's first pgas.GPU.Load of it, which on the nvshmem backend compiles the nvshmem variant (NVSHMEM's device headers) and links it with libnvshmem_device.a. Medians over the processes of three test runs."}

// userKernelAnchors is issue 36's anchors for users' kernels: the same
// kernel from Go and from CuPy and Numba, source to launch.
var userKernelAnchors = table{title: "A user's kernel from source to launch: Go against CuPy and Numba", file: "2026-11-26-nvidia-h200-userkernel-anchors.txt",
	match: `^GPUUserKernel/`, unit: "sec/op",
	about: "One H200, three rounds alternating in one call (scripts/gpu-run.sh userkernel-anchors): the same one-line CUDA C kernel from Go (kernels.Compile, pgas.GPU.Load, LaunchOnStream) and from Python with CuPy 14.2's RawModule and Numba 0.68's cuda.jit (bench/anchors/python_kernels.py). compile-cold: a source never seen, from text to its first launch completed; compile-warm: the same source again (CuPy and symchan from their in-process caches, Numba from its disk cache with a new dispatcher); launch: one launch of the one-thread kernel with two arguments, over 2000 launches and a sync. Medians of each run's repetitions. nvshmem4py, the third anchor the issue names, is not installed on the GPU machines."}

// Issue 33's targets, each beside its floor or anchor, on the two H200
// kinds (scripts/gpu-run.sh targets, one call on each).
var (
	targetsFile    = "2026-11-26-issue33-targets.txt"
	targetsAbout   = "One call on each kind (scripts/gpu-run.sh targets): the host↔GPU floors (bench/anchors/floor.cu: a round trip host → GPU → host, and host → GPU → other GPU (or the same GPU's other PE) → host), and symchan's figures measured after them; NVSHMEM's anchors (bench/anchors/nvshmem_bench.cu) run only where two GPUs let its two processes run. Each column a kind."
	targetsFromGo  = table{title: "Issue 33's targets: round trips from Go and the floor (µs per round trip, median)", file: targetsFile, match: `^(GPUFloor/.*|GPUChanRoundTrip|GPUFutureRoundTrip)$`, unit: "us/RT", col: "kind", about: targetsAbout}
	targetsFromGoP = table{title: "Issue 33's targets: round trips from Go and the floor (µs per round trip, p99.9)", file: targetsFile, match: `^(GPUFloor/.*|GPUChanRoundTrip|GPUFutureRoundTrip)$`, unit: "us/RT-p99.9", col: "kind", about: "The same runs' p99.9 (of 20,000 round trips; the floor's of its own)."}
	targetsHalf    = table{title: "Issue 33's targets: half round trips (µs, median)", file: targetsFile, match: `^(GPUHostPingPong(/.*)?|GPUWaitAnyWakeup|GPUActorPingPong/.*|GPUDevicePingPong/kind=put-signal-8B(/impl=symchan-user-kernel)?)$`, unit: "us/half-RT", col: "kind", about: "The host-driven put-with-signal ping-pong (symchan's from Go, symchan's and NVSHMEM's queued on a stream), WaitAny's wake-up, the kernel-actor ping-pong (state in global memory, or local) and the device put-with-signal ping-pong it is held to."}
	targetsHalfP   = table{title: "Issue 33's targets: half round trips (µs, p99.9)", file: targetsFile, match: `^(GPUHostPingPong(/.*)?|GPUWaitAnyWakeup|GPUActorPingPong/.*)$`, unit: "us/half-RT-p99.9", col: "kind", about: "The same runs' p99.9."}
	targetsRing    = table{title: "Issue 33's targets: the ring's 8-byte hop (median)", file: targetsFile, match: `^RingHop/`, unit: "sec/op", col: "kind", about: "examples/ring, 2 PEs, 2000 laps, with Go actors and with kernel actors."}
	targetsRingP   = table{title: "Issue 33's targets: the ring's 8-byte hop (µs, p99.9)", file: targetsFile, match: `^RingHop/`, unit: "us/hop-p99.9", col: "kind", about: "The same runs' p99.9."}
	targetsRates   = table{title: "Issue 33's targets: message rates (million messages per second)", file: targetsFile, match: `^(GPUChanStream/.*|GPUActorMessageRate/warps=(8|64|256)/impl=(symchan-actor-block|nvshmem|put-signal))$`, unit: "Mmsg/s", col: "kind", about: "8-byte Chan messages streamed from Go by 1 and 8 goroutines, beside NVSHMEM's host-initiated put-with-signal stream; many warps to one receiver (block receivers), beside NVSHMEM's anchor and raw put-with-signal into a ring."}
)

// putVMM is the bandwidth check after the cuda backend's partitions moved
// onto reserved windows (RegisterSymmetric's foreign buffers).
var putVMM = table{title: "Between two H200s, the heap on reserved windows: PutSym against cuMemcpyPeer (GB/s)", file: "2026-11-26-nvidia-h200-x2-put-vmm.txt",
	match: `^GPUPut/`, unit: "GB/s",
	about: "Host-initiated PutSym GPU 0 → GPU 1 of a symmetric buffer (symchan), beside cuMemcpyPeer (memcpypeer) and symchan's copy kernel (copykernel) in the same run, after each PE's partition became a window of reserved addresses with its heap mapped at the start (device.Window, so that registered buffers map past it): symchan stays at cuMemcpyPeer's bandwidth (0.96–1.0× from 16 KiB; 4 KiB goes through the agent)."}

// noRegressF9fc10c is issue 33's no-regression check of f9fc10c against
// 447d72c on two H200s.
var noRegressF9fc10c = buildAB("Between two H200s: 447d72c (old) against f9fc10c (new)", "2026-11-26-nvidia-h200-x2-noregress-447d72c-f9fc10c.txt",
	`^(GPUDevicePingPong/kind=(put-signal-8B|signal)|GPUHostPingPong(/impl=symchan-onstream)?|GPUChanRoundTrip|GPUFutureRoundTrip|GPUPut/size=(4096|1048576|67108864|268435456)|GPUDevicePutBlock/size=(1048576|16777216)|RingHop/size=8)$`, "sec/op",
	"scripts/gpu-run.sh noregress: the bench binary and examples/ring built from 447d72c (old) and from f9fc10c (new), alternating, two rounds, in one call. The changes between them: kernels resolved at module load, a world sharing GPUs asking for 32 hardware queues, pgas's trimmed put-with-signal path, Compile's in-process cache, the one-kernel put-with-signal on a stream, and the partitions on reserved windows (RegisterSymmetric). The round trips' figure is ns/op of the whole run (20,000 round trips), the ping-pongs' a half round trip, PutSym's and the block put's the time of one put.")

// noRegress22b071e is issue 32's GPU check of the host path changes of
// 22b071e against 0f5ff22 on two H200s.
var noRegress22b071e = buildAB("Between two H200s: 0f5ff22 (old) against its host-path changes, 22b071e (new)", "2026-11-26-nvidia-h200-x2-noregress-0f5ff22-22b071e.txt",
	noRegressF9fc10c.match, "sec/op",
	"scripts/gpu-run.sh noregress: the bench binary and examples/ring built from 0f5ff22 (old) and 22b071e (new), alternating, two rounds, in one call. The changes between them are the host message path's (issue 32): on GPUs only pgas's put-with-signal checks (written out, without calls) and the mailbox's slot arithmetic (per-sender and per-destination counters instead of divisions) run there. The round trips' figure is ns/op of the whole run (20,000 round trips), the ping-pongs' a half round trip, PutSym's and the block put's the time of one put.")

// mismatchCost is what the collectives' signatures (issue 36, item 7)
// cost the barrier and small collectives, on a stream and in a kernel.
var mismatchCost = buildAB("Between two H200s: small collectives before (old) and after (new) they reject members that disagree (µs)", "2026-11-26-nvidia-h200-x2-mismatch-cost.txt",
	`^GPUCollective(OnStream|Device)/`, "us/op",
	"scripts/gpu-run.sh mismatch: BenchmarkGPUCollectiveOnStream and BenchmarkGPUCollectiveDevice (-coll.max 512) built from 4cfa9d5 (old) and from the change's first form (new, dc07f65), alternating, three rounds, in one call. The opening phase of every device collective now adds 1 + sig<<32 instead of 1 to the members' arrival words (one word per parity instead of one), the check is a compare after the wait, and Stream.Sync reads the team's mismatch record once (the in-kernel figure includes it, over 200 collectives a launch).")

// mismatchCostVote is the same after the phase's verdict moved into the
// group's barrier.
var mismatchCostVote = buildAB("Between two H200s: small collectives before (old) and after (new) they reject members that disagree, the verdict in the group's barrier (µs)", "2026-11-26-nvidia-h200-x2-mismatch-cost-vote.txt",
	`^GPUCollective(OnStream|Device)/`, "us/op",
	"As the table above, a second call, with the phase returning thread 0's verdict through __syncthreads_and (a warp's shuffle) instead of every thread reading the struct's differed word after the barrier (ed4f5bc).")

// abortStream and abortColl are issue 51's check that the world's abort
// word (every wait of the runtime on the device also watching it) does not
// slow the waits, on two H100s of four.
var (
	abortStream = buildAB("Between two H100s: a stream's wait before (old) and after (new) the abort word (ns per round trip)", "2026-11-28-nvidia-h100-x4-abort-word.txt",
		`^GPUStreamPingPong$`, "sec/op",
		"scripts/gpu-run.sh abort-bench: BenchmarkGPUStreamPingPong, two PEs passing a token on their streams alone (PutSignalOnStream, SignalWaitUntilOnStream with ≥), 500 rounds queued then one Sync, median of 9 repetitions after 2; old/ built from 90ede6b, where the wait was a stream memory operation (cuStreamWaitValue64), new from 634cbf5, where it is the wait kernel watching the world's abort word too; alternating, two rounds, in one call.")
	abortColl = buildAB("Between two H100s: small collectives before (old) and after (new) the abort word (µs)", abortStream.file,
		`^GPUCollective(OnStream|Device)/`, "us/op",
		"The same call: BenchmarkGPUCollectiveOnStream and BenchmarkGPUCollectiveDevice (-coll.max 4096). A phase's wait now counts its turns and reads the abort word (mapped host memory) every 256th; the block's verdict is still one __syncthreads_and.")
)

// Issue 47's collectives at every world size on four H100s, beside
// NVSHMEM's in the same call.
var (
	worldsOnStream = table{title: "Four H100s: team collectives on a stream at 2 and 4 PEs against NVSHMEM's (µs per collective)", file: "2026-11-28-nvidia-h100-x4-coll-worlds-cuda.txt",
		match: `^GPUCollectiveOnStream/pes=`, unit: "us/op", ratio: [2]string{"nvshmem", "symchan"},
		about: "The world team on the cuda backend, a PE per GPU (pes=2: GPUs 0 and 1; pes=4: all four), against NVSHMEM's nvshmemx_*_on_stream at as many processes (bench/anchors/nvshmem_coll.cu under mpirun), one call (scripts/gpu-run.sh coll-worlds). k collectives queued, then one synchronisation; median of 5 repetitions after 2, over k. size: the bytes each member contributes. Ratio: symchan ÷ NVSHMEM."}
	worldsDevice = table{title: "Four H100s: team collectives in a kernel at 2 and 4 PEs against NVSHMEM's (µs per collective)", file: worldsOnStream.file,
		match: `^GPUCollectiveDevice/pes=`, unit: "us/op", ratio: [2]string{"nvshmem", "symchan"},
		about: "The same call: k of symchan.cuh's block collectives in one kernel of 256 threads against NVSHMEM's nvshmemx_*_block, collectively launched."}
	worldsBlocking = table{title: "Four H100s: the blocking collectives from Go at 2 and 4 PEs (µs per collective)", file: worldsOnStream.file,
		match: `^GPUCollectiveBlocking/pes=`, unit: "us/op",
		about: "The same call: k of pe.TeamWorld().Barrier, pgas.Broadcast, ReduceAll, FCollect and AllToAll called from Go one after the other, each returning before the next, as they ran before they moved onto the device (9a87521: synchronisation rounds through the agent, then the data by puts and gets from the host): the baseline of the tables below."}
	worldsNVSHMEMBackend = table{title: "Four H100s: the collectives under nvshmem, a process per GPU, against NVSHMEM's (µs per collective)", file: "2026-11-28-nvidia-h100-x4-coll-worlds-nvshmem.txt",
		match: `^GPUCollective(OnStream|Device|Blocking)/pes=4/`, unit: "us/op", ratio: [2]string{"nvshmem", "symchan"},
		about: "The same call: the three forms on the nvshmem backend under symrun -n 4 (the heap sized for 4 PEs, which the 2-PE sizing exhausted), against NVSHMEM's anchor at 4 processes; the blocking form has no NVSHMEM counterpart here."}
)

// Issue 47, item 1: the blocking collectives on the device, against the
// same collective on a stream synced after each call and NVSHMEM's
// host-called on-stream collective timed both ways, in one call.
var (
	blockingCUDA = table{title: "Four H100s: blocking collectives from Go, one launch on the device, against the stream form synced after each call and NVSHMEM's (µs per collective)", file: "2026-11-28-nvidia-h100-x4-coll-blocking-cuda.txt",
		match: `^GPUCollective(Blocking|OnStreamSync|OnStreamEvents)/pes=`, form: `^GPUCollective(\w+)/`, unit: "us/op",
		ratio: [2]string{"OnStreamSync", "Blocking"}, more: [][2]string{{"OnStreamSync nvshmem", "Blocking"}, {"OnStreamEvents nvshmem", "Blocking"}},
		about: "The world team on the cuda backend, a PE per GPU (pes=2: GPUs 0 and 1; pes=4: all four), one call. Blocking: k of pe.TeamWorld().Barrier, pgas.Broadcast, ReduceAll (float32, float64 sums), FCollect and AllToAll called from Go one after the other, each one launch of symchan_team_step on the PE's collective stream and its wait (the build before the wait polled: the table after next). OnStreamSync: the *OnStream form with a Stream.Sync after each call. NVSHMEM's (bench/anchors/nvshmem_coll.cu, as many processes as PEs): OnStreamSync, each nvshmemx_*_on_stream followed by cudaStreamSynchronize, by the wall clock; OnStreamEvents, timed as its perftests do (CUDA events around each call, then a synchronisation; the events' time). Median of 5 repetitions after 2 of k calls, over k. Issue 47's targets: Blocking ÷ OnStreamSync ≤ 1.2, Blocking ÷ NVSHMEM's ≤ 1.5."}
	blockingNVSHMEM = table{title: "Four H100s: the same under the nvshmem backend, a process per GPU (µs per collective)", file: "2026-11-28-nvidia-h100-x4-coll-blocking-nvshmem.txt",
		match: `^GPUCollective(Blocking|OnStreamSync|OnStreamEvents)/pes=4/`, form: `^GPUCollective(\w+)/`, unit: "us/op",
		ratio: [2]string{"OnStreamSync", "Blocking"}, more: [][2]string{{"OnStreamSync nvshmem", "Blocking"}, {"OnStreamEvents nvshmem", "Blocking"}},
		about: "The same call: symrun -n 4 on the nvshmem backend against NVSHMEM's anchor at 4 processes."}
	pollCUDA = table{title: "Four H100s: blocking collectives and OnStream+Sync, the wait blocking in the driver (old) or polling first (new) (µs per collective)", file: "2026-11-28-nvidia-h100-x4-poll-90047ff-49e9458-cuda.txt",
		match: `^GPUCollective(Blocking|OnStreamSync)/`, unit: "us/op", col: "build", ratio: [2]string{"old", "new"},
		about: "The cuda backend, a PE per GPU, sizes to 4 KiB, old and new alternating, three rounds in one call: a wait for a GPU stream (Stream.Sync, a blocking collective's) polls the stream for up to 200 µs from the calling goroutine before it blocks in cuStreamSynchronize on a goroutine of its own."}
	pollNVSHMEM = table{title: "Four H100s: the same under the nvshmem backend, 4 processes (µs per collective)", file: "2026-11-28-nvidia-h100-x4-poll-90047ff-49e9458-nvshmem.txt",
		match: `^GPUCollective(Blocking|OnStreamSync)/`, unit: "us/op", col: "build", ratio: [2]string{"old", "new"},
		about: "The same call, two rounds."}
)

// Issue 47, item 4: what grows with the world on the host backend.
var scaleHost = table{title: "Host backend, 2-core VM: a world of P PEs (µs; KiB per PE)", file: "2026-11-28-go-vm-scale-host-aff59c6.txt",
	match: `^Scale/pes=`, units: []string{"us/start-stop", "chan-sym-KiB/PE", "chan-sym-needed-KiB/PE", "chan-go-KiB/PE", "us/chan-RT", "us/barrier", "us/alltoall-8"},
	about: "BenchmarkScale: Run of a function that returns at once (start-stop, median of 3); one Chan with the default options (16 slots of 1 KiB per sender): its symmetric bytes per PE and its Go memory (the world's heap growth over P), or at 4096 PEs the bytes it would need (256 GiB over the world: not made); a Chan round trip between PEs 0 and 1; a world barrier; an AllToAll of 8 int64 per peer (medians of 5 repetitions, on PE 0). PEs are goroutines on 2 cores: past 2 PEs a barrier's rounds wait for the scheduler, and the AllToAll's P Gets and Puts per member (P² in all) are the host's algorithm (one round of data between two synchronisations)."}

// Issue 50's overload: examples/service at 6x its capacity, shedding
// (its default flags) against unbounded (as it shipped before), one run.
var (
	overloadFile     = "2026-11-28-go-vm-service-overload.txt"
	overloadAbout    = "cd bench && go test -bench ServiceOverload -overload.duration 10s: examples/service's server in process on the 2-core VM, 2 host PEs, a {\"n\":256,\"iters\":500} solve per request, offered 6× the capacity measured first (sequential solves) for 10 s by vegeta; shedding is the example's default flags (-concurrency 1, -queue-depth 4), unbounded the same server without an admission limit or queue-wait bound. Targets (issue 50): every request answered, 95% of the 503s within 50 ms, the 200s' p99 within 2× the unloaded p99 (measured in the same run at a quarter of capacity), file descriptors and RSS flat after the first second. The two PEs' solves take both of the VM's cores, and the 503s wait for a core too."
	overloadRejected = table{title: "examples/service under 6× overload: the 503s' 95th percentile (ms)", file: overloadFile, match: `^ServiceOverload$`, unit: "rejected-p95-ms", about: overloadAbout}
	overloadOK       = table{title: "examples/service under 6× overload: the 200s' p99 over the unloaded p99", file: overloadFile, match: `^ServiceOverload$`, unit: "ok-p99-ratio", about: "The same run."}
	overloadFDs      = table{title: "examples/service under 6× overload: file descriptors gained after the first second", file: overloadFile, match: `^ServiceOverload$`, unit: "fd-growth", about: "The same run; the process holds vegeta's client side as well as the server."}
	overloadRSS      = table{title: "examples/service under 6× overload: RSS gained after the first second (MiB)", file: overloadFile, match: `^ServiceOverload$`, unit: "rss-growth-MiB", about: "The same run."}
)

// Between two GPUs (nvidia-h100-x2): the examples against the NVSHMEM
// anchor, and the round trips from Go and between kernel actors.
var (
	twoGPUJacobi = table{title: "Between two GPUs: examples/jacobi against NVSHMEM's (16384² × 1000)", file: "2026-11-25-nvidia-h100-x2-gpus.txt",
		match: `^Jacobi16384/`, unit: "sec/op", ratio: [2]string{"nvshmem", "symchan"},
		about: "examples/jacobi on the cuda backend (-verify passed) and the same solver written against NVSHMEM in C (bench/anchors/nvshmem_jacobi.cu, vec4 kernel), on 1 and 2 H100s, in one call."}
	twoGPURing = table{title: "Between two GPUs: the ring's hop (median)", file: "2026-11-25-nvidia-h100-x2-gpus.txt",
		match: `^RingHop/`, unit: "sec/op",
		about: "examples/ring on the cuda backend, 2 PEs on 2 H100s, 1000 laps: a Chan[hop] message and its payload fetched by Ref, with Go actors and with kernel actors (no host in a hop)."}
	twoGPUFromGo = table{title: "Between two GPUs: round trips from Go (µs)", file: "2026-11-25-nvidia-h100-x2-gpus.txt",
		match: `^GPU(Chan|Future)RoundTrip$`, unit: "us/RT",
		about: "A Chan and a Future round trip driven from Go between PEs on two H100s (cuda backend)."}
	twoGPUActors = table{title: "Between two GPUs: kernel-actor ping-pong (µs per half round trip)", file: "2026-11-25-nvidia-h100-x2-gpus.txt",
		match: `^GPUActorPingPong$`, unit: "us/half-RT",
		about: "An 8-byte echo between kernel actors on two H100s, with the actor's state in global or in shared memory."}
)

// collectiveArgs is the cost of comparing a collective's arguments
// across its members (issue 36, item 7): before and after, alternating.
var collectiveArgs = hostAB("Collectives that compare their arguments: before and after", "2026-11-25-go-vm-host-collective-args.txt",
	"A barrier (2, 8, 64 host PEs) and a to-all sum of 8 int64 (2, 8 PEs) before (old) and after (new) the argument signatures joined the round words and a reduction's arguments its slot, alternating in one run, 6 rounds, 2-core VM (bench/ab.sh with BENCH and RING=0).")

// serviceLoad is issue 37's observability cost at max load.
var serviceLoad = table{title: "examples/service at its highest sustained rate (requests/s)", file: "2026-11-25-go-vm-service-load.txt",
	match: `^ServiceLoad$`, unit: "max-req/s", ratio: [2]string{"symchan-bare", "symchan"},
	about: "vegeta against POST /v1/jacobi (2 host PEs, {\"n\":64,\"iters\":20}), rising rates of 4 s each bisected to 3%, sustained: 99.9% answered 200, throughput ≥ 95% of the rate, p99 ≤ 50 ms; two sweeps each, 2-core VM (bench/load.sh). symchan: as examples/service ships (per-call histograms, promstats); symchan-bare: no per-call observability; symchan-otel: OpenTelemetry's tracing and metrics middleware and trace context carried, beside the histograms; workerpool: the same endpoint on a plain Go worker pool."}

// Issue 33's sealed mailbox slots between two GPUs: before and after in
// one call, and the stream from Go against NVSHMEM's.
var (
	sealedFromGo = buildAB("Sealed mailbox slots between two GPUs: round trips from Go, before and after (µs)", "2026-11-25-nvidia-h100-x2-sealed.txt",
		`^GPU(Chan|Future)RoundTrip$`, "us/RT",
		"A Chan and a Future round trip driven from Go between PEs on two H100s (cuda backend), 6e49905 (old: a fence between each slot's data and its word) against sealed slots (new: no fence, the receiver checks the seal), alternating, two rounds in one call. Futures' reply slots are not sealed: their figure is the control (the new build's second Future run had a slow episode, p99 149 µs against 27–38 µs in the other three, which moves this median of two). A Chan message read torn, and read again: 5.5% (the raw file's torn-reads/msg; 0.5% over 20,000 round trips in the tail runs).")
	sealedActors = buildAB("Sealed mailbox slots between two GPUs: kernel actors, before and after (µs per half round trip)", "2026-11-25-nvidia-h100-x2-sealed.txt",
		`^GPU(ActorPingPong/impl=.*|DevicePingPong/kind=put-signal-8B)$`, "us/half-RT",
		"An 8-byte echo between kernel actors on two H100s (state in global memory, and in shared memory: -local), beside the device put-with-signal ping-pong (symchan.cuh, not a mailbox: the anchor of the kernel-actor target), same call.")
	sealedRing = buildAB("Sealed mailbox slots between two GPUs: the ring's 8-byte hop, before and after", "2026-11-25-nvidia-h100-x2-sealed.txt",
		`^RingHop/`, "sec/op",
		"examples/ring -backend cuda -pes 2 -size 8 -laps 2000, Go actors on two H100s: the hop's median, same call.")
	sealedStream = table{title: "Between two GPUs: a stream of 8-byte Chan messages from Go (million messages per second)", file: "2026-11-25-nvidia-h100-x2-sealed.txt",
		match: `^GPUChanStream`, unit: "Mmsg/s",
		about: "One or eight goroutines of PE 0 send 8-byte Chan messages to PE 1's mailbox on the other H100 as fast as they can, PE 1 receives them from Go; the anchor: PE 0's host queues NVSHMEM's putmem_signal_on_stream of 8 bytes, PE 1 waits on its stream for the last (bench/anchors/nvshmem_bench.cu). 20,000 messages a rep, median of 5 after 2 warm-up reps, same call."}
)

// Issue 33's no-regression check between two GPUs: bandwidth and Jacobi.
var (
	noRegressBW = buildAB("Between two GPUs after sealed slots: bandwidth, before and after (GB/s)", "2026-11-25-nvidia-h100-x2-sealed-noregress.txt",
		`^GPU(Put|DevicePutBlock)/size=[0-9]+$`, "GB/s",
		"symchan's PutSym (copy engines) and a kernel's block put between two H100s, 6e49905 (old) against 83cbfe2 (new), alternating, two rounds in one call.")
	noRegressJacobi = buildAB("Between two GPUs after sealed slots: examples/jacobi, before and after", "2026-11-25-nvidia-h100-x2-sealed-noregress.txt",
		`^Jacobi16384/`, "sec/op",
		"examples/jacobi -backend cuda -verify (16384² × 1000 sweeps) on two H100s, the same call; -verify passed in every run.")
)

// The same on one GPU (two PEs sharing an H100).
var (
	sealedFromGo1 = buildAB("Sealed mailbox slots on one GPU: round trips from Go, before and after (µs)", "2026-11-25-nvidia-h100-x1-sealed.txt",
		`^GPU(Chan|Future)RoundTrip$`, "us/RT",
		"As between two GPUs, with the two PEs sharing one H100: 6e49905 (old) against 76b948d (new), alternating, two rounds in one call (old times 2,000 round trips, new 20,000).")
	sealedActors1 = buildAB("Sealed mailbox slots on one GPU: kernel actors, before and after (µs per half round trip)", "2026-11-25-nvidia-h100-x1-sealed.txt",
		`^GPU(ActorPingPong/impl=.*|DevicePingPong/kind=put-signal-8B)$`, "us/half-RT",
		"Kernel actors' 8-byte echo and the device put-with-signal ping-pong, the two PEs sharing one H100, same call.")
	sealedRing1 = buildAB("Sealed mailbox slots on one GPU: the ring's 8-byte hop, before and after", "2026-11-25-nvidia-h100-x1-sealed.txt",
		`^RingHop/`, "sec/op",
		"examples/ring -backend cuda -pes 2 -size 8 -laps 2000, Go actors sharing one H100, same call.")
)

// Issue 33's tail: what makes the slow round trips from Go, and the
// agent's next launch queued behind a busy one.
var (
	tailP999 = buildAB("Between two GPUs: the round trips' p99.9, agent launched on demand (old) or queued ahead (new) (µs)", "2026-11-25-nvidia-h100-x2-tail.txt",
		`^GPU(Chan|Future)RoundTrip$`, "us/RT-p99.9",
		"p99.9 of 20,000 round trips driven from Go between PEs on two H100s, two rounds alternating in one call; new-gogc-off: the new build with the garbage collector off. The Future's slow round trips came one agent lifetime (5 ms) apart, and half as many with the next launch queued ahead; the Chan's come about 1.5 ms apart, GC or not: their cause is still open.")
	tailHist = table{title: "Between two GPUs: histogram of the round trips from Go (round trips per bucket, of 20,000)", file: "2026-11-25-nvidia-h100-x2-tail.txt",
		match: `^GPU(Chan|Future)RoundTrip/(hist=.*|slow)$`, unit: "RTs", col: "build",
		about: "The same runs: round trips per power-of-two bucket of µs, and (slow) those over 3× the median."}
	tailGap = table{title: "Between two GPUs: median gap between slow round trips (ms)", file: "2026-11-25-nvidia-h100-x2-tail.txt",
		match: `^GPU(Chan|Future)RoundTrip/slow$`, unit: "gap-ms", col: "build",
		about: "The same runs: the median time between two round trips over 3× the median; 5 ms is the agent's lifetime, after which it was launched again on demand."}
)

// The agent's lifetime on one GPU: what makes the tail there.
var (
	lifetimeP999 = table{title: "On one GPU: the round trips' p99.9 with the agent's lifetime 5 ms (as shipped) and 50 ms (µs)", file: "2026-11-25-nvidia-h100-x1-lifetime.txt",
		match: `^GPU(ChanRoundTrip|FutureRoundTrip)$`, unit: "us/RT-p99.9", col: "lifetime", ratio: [2]string{"5ms", "50ms"},
		about: "p99.9 of 20,000 round trips from Go, the two PEs sharing one H100, the shipped build against the same build with a 50 ms agent lifetime (an experiment), alternating, two rounds in one call; 5ms-gogc-off: the shipped build with the garbage collector off."}
	lifetimeHist = table{title: "On one GPU: histogram of the round trips from Go by the agent's lifetime (round trips per bucket, of 20,000)", file: "2026-11-25-nvidia-h100-x1-lifetime.txt",
		match: `^GPU(Chan|Future)RoundTrip/(hist=.*|slow)$`, unit: "RTs", col: "lifetime",
		about: "The same runs: the cluster at 128–256 µs (one relaunch of the agent every 5 ms) shrinks tenfold with a 50 ms lifetime; GC off changes nothing."}
	lifetimeHalf = table{title: "On one GPU: host ping-pong and WaitAny p99.9 by the agent's lifetime (µs per half round trip)", file: "2026-11-25-nvidia-h100-x1-lifetime.txt",
		match: `^GPU(HostPingPong|WaitAnyWakeup)$`, unit: "us/half-RT-p99.9", col: "lifetime", ratio: [2]string{"5ms", "50ms"},
		about: "The same runs, per half round trip."}
)

// Queuing the agent's next launch from a goroutine of its own, on one GPU.
var (
	queueAgent = table{title: "On one GPU: a round trip through the agent across a new launch, queued by the request (sync) or by a goroutine (async) (µs)", file: "2026-11-25-nvidia-h100-x1-queue-ahead.txt",
		match: `^AgentRoundTrip/`, unit: "us", col: "queue", ratio: [2]string{"sync", "async"},
		about: "pgas/internal/gpuop's TestAgentRelaunchCost, since BenchmarkAgentRelaunch: put-then-wait round trips on one lane for 20 lifetimes, medians of those during which a new launch began and of the others, per run (sync: 3 runs, async: 2, on two warm one-H100 machines)."}
	queueFromGo = table{title: "On one GPU: the round trips' p99.9 from Go, the next launch queued sync or async (µs)", file: "2026-11-25-nvidia-h100-x1-queue-ahead.txt",
		match: `^GPU(Chan|Future)RoundTrip$`, unit: "us/RT-p99.9", col: "queue", ratio: [2]string{"sync", "async"},
		about: "The same call, alternating, two rounds: with two PEs sharing the H100 the cluster at 128–256 µs stays (41–55 of 20,000 either way; histograms in the raw file), so something else the agent's lifetime brings makes it there."}
)

// Issue 33's checks after sealed slots, between two GPUs: the host-driven
// ping-pong and the many-warps message rate against NVSHMEM's, the ring
// with kernel actors.
var (
	checksHostPP = table{title: "Between two GPUs: host-driven put-with-signal ping-pong (µs per half round trip)", file: "2026-11-25-nvidia-h100-x2-sealed-checks.txt",
		match: `^GPUHostPingPong$`, unit: "us/half-RT",
		about: "PutSignal and SignalWaitUntil from Go between PEs on two H100s (cuda backend), against NVSHMEM's putmem_signal_on_stream and signal_wait_until_on_stream driven by the host, queued (onstream) and synchronised at each step (blocking), same call (bench/anchors/nvshmem_bench.cu host)."}
	checksRate = table{title: "Between two GPUs: messages from many warps to one receiver (million messages per second)", file: "2026-11-25-nvidia-h100-x2-sealed-checks.txt",
		match: `^GPUActorMessageRate/`, unit: "Mmsg/s",
		about: "Warps of a sending kernel on one H100, one receiver on the other, with sealed slots: symchan's mailboxes and kernel actors (mp: a thread per message; many: a warp takes a run; block: a block takes a run; deep: more slots), raw put-with-signal into a ring (no flow control), and NVSHMEM's anchor, same call, two runs."}
	checksRing = table{title: "Between two GPUs: the ring's hop with kernel actors", file: "2026-11-25-nvidia-h100-x2-sealed-checks.txt",
		match: `^RingHop/`, unit: "sec/op",
		about: "examples/ring -backend cuda -pes 2 -actors kernel -laps 2000 on two H100s with sealed slots: the hop's median (no host in a hop)."}
)

// The host backend's atomics, 32- and 64-bit twins against two folds
// (issue 32, part 6).
var atomicFold = table{title: "Host backend: one atomic, the 32- and 64-bit twins against two folds (ns)", file: "2026-11-25-go-vm-host-atomic-fold.txt",
	match: `^AtomicOps/`, unit: "sec/op", col: "build", ratio: [2]string{"twins", "switch"},
	about: "pgas/host's BenchmarkAtomicOps on an uncontended word, 2-core VM, three runs each: twins (atomic32 and atomic64, as before), generic (one function over sync/atomic's typed words: their methods go through a dictionary) and switch (one function, the size a branch in each case: what ships)."}

// A user's kernel against symchan's own (issue 36): the device
// put-with-signal ping-pong.
var userPingPongTable = table{title: "On one GPU: a user's kernel compiled at run time against symchan's own (µs per half round trip)", file: "2026-11-25-nvidia-h100-x1-userkernel-pingpong.txt",
	match: `^GPUDevicePingPong/kind=put-signal-8B$`, unit: "us/half-RT", ratio: [2]string{"symchan", "symchan-user-kernel"},
	about: "The device 8-byte put-with-signal ping-pong between two PEs sharing one H100 (cuda backend): symchan's own kernel (bench.cu's bench_pingpong, offsets) against the same loop as a user writes it in NVSHMEM's terms (symchan_putmem_signal, symchan_wait_until), compiled with NVRTC when the benchmark runs and launched with pgas.Launch; 20,000 round trips a run, median of 5 after 2, three rounds in one call (gpu-run.sh userkernel)."}

// Stream-ordered routines (issue 36, item 3) between two GPUs: the
// on-stream ping-pong against NVSHMEM's.
var streamPingPongH200 = table{title: "Between two H200s: put-with-signal ping-pong queued on a stream, one kernel a small put-with-signal (µs per half round trip)", file: "2026-11-26-nvidia-h200-x2-streams.txt",
	match: `^GPUHostPingPong$`, unit: "us/half-RT", ratio: [2]string{"nvshmem-onstream", "symchan-onstream"},
	about: "As the table below, on two H200s, after a small put-with-signal on a stream became one launch of symchan_put_signal_on_stream (the copy and the signal in one block) instead of a peer copy and a stream write. Against the build before it in one call (the no-regression table of 447d72c against f9fc10c: 9.48 µs before, 9.46 after) the change moves nothing; the 9.79 µs of the targets run of 2026-11-26, another call, was that call's."}

var streamPingPong = table{title: "Between two GPUs: put-with-signal ping-pong queued on a stream (µs per half round trip)", file: "2026-11-25-nvidia-h100-x2-streams.txt",
	match: `^GPUHostPingPong$`, unit: "us/half-RT", ratio: [2]string{"nvshmem-onstream", "symchan-onstream"},
	about: "8 bytes and a signal between PEs on two H100s, queued from the host and synchronised once per 2,000 round trips: symchan-onstream, pgas.PutSignalOnStream and SignalWaitUntilOnStream on a pgas.Stream (cuda backend: a peer copy and a stream write, a stream wait), against NVSHMEM's putmem_signal_on_stream and signal_wait_until_on_stream (nvshmem-onstream); symchan and nvshmem-blocking wait on the host at every step. Median of 5 runs after 2, three rounds in one call (gpu-run.sh streams)."}

// Team collectives on GPUs (issue 33, item 5) against NVSHMEM's, between
// two GPUs: on a stream, and in a kernel.
var (
	collOnStream = table{title: "Between two GPUs: team collectives on a stream against NVSHMEM's (µs per collective)", file: "2026-11-25-nvidia-h200-x2-collectives.txt",
		match: `^GPUCollectiveOnStream/.*$`, unit: "us/op", ratio: [2]string{"nvshmem", "symchan"},
		about: "The world team of 2 PEs on two H200s (cuda backend), one call: pgas.BarrierOnStream, BroadcastOnStream, ReduceAllOnStream (float32 and float64 sums), FCollectOnStream and AllToAllOnStream against NVSHMEM's nvshmemx_barrier_on_stream, _int64_broadcast_, _float/_double_sum_reduce_, _int64_fcollect_ and _int64_alltoall_on_stream (bench/anchors/nvshmem_coll.cu). size: the bytes each member contributes (an alltoall's block for each member). k collectives (200 down to 4 as size grows) queued, then one synchronisation; median of 5 repetitions after 2, over k. Ratio: symchan ÷ NVSHMEM (below 1: symchan faster)."}
	collDevice = table{title: "Between two GPUs: team collectives in a kernel against NVSHMEM's (µs per collective)", file: "2026-11-25-nvidia-h200-x2-collectives.txt",
		match: `^GPUCollectiveDevice/.*$`, unit: "us/op", ratio: [2]string{"nvshmem", "symchan"},
		about: "The same collectives from one block of 256 threads on each GPU, k of them in one kernel: symchan.cuh's symchan_barrier_block, _broadcastmem_block, _float/_double_sum_reduce_block, _fcollectmem_block and _alltoallmem_block in a user's kernel compiled at run time (NVRTC) and launched with a *pgas.Team, against NVSHMEM's nvshmemx_*_block in a collectively launched kernel. Median of 5 launches after 2, over k."}
)

// targets are the files this program writes.
var targets = []target{
	{"RESULTS.md", "###", []table{hostRoundTrips, hostOneWay, atomicFold, hostSealed, hostAB259549a, hostAB41ae269, hostAB6b6b9c3, hostABb2fd6f0, hostAB1577656, hostABc9cc0a2, hostAB8891130, hostFutureABae36fe7, hostZeroValues, hostWorldEnd, hostInstr, hostI1, hostAB5716b15, hostAB83f34a5, hostPaths, collectiveArgs, serviceLoad, overloadRejected, overloadOK, overloadFDs, overloadRSS, blockingCUDA, blockingNVSHMEM, pollCUDA, pollNVSHMEM, scaleHost, worldsOnStream, worldsDevice, worldsBlocking, worldsNVSHMEMBackend, collOnStream, collDevice, streamPingPongH200, streamPingPong, userPingPongTable, sealedFromGo, sealedActors, sealedRing, sealedStream, sealedFromGo1, sealedActors1, sealedRing1, noRegressBW, noRegressJacobi, tailP999, tailHist, tailGap, lifetimeP999, lifetimeHalf, lifetimeHist, queueAgent, queueFromGo, checksHostPP, checksRate, checksRing, twoGPUJacobi, twoGPURing, twoGPUFromGo, twoGPUActors, goOnGPUs, gpuPaths, userKernels, userKernelAnchors, putVMM, noRegressF9fc10c, noRegress22b071e, mismatchCost, mismatchCostVote, abortStream, abortColl, targetsFromGo, targetsFromGoP, targetsHalf, targetsHalfP, targetsRing, targetsRingP, targetsRates, deviceVsNVSHMEM, kernelActors, messageRate, blockPut, collectives}},
	{"../README.md", "####", []table{
		{title: "Host backend, 2-core VM", file: hostRoundTrips.file, match: `^(ChanRoundTrip|FutureRoundTrip)$`, unit: "sec/op",
			about: "A round trip, symchan beside its anchors in the same run (`bench/RESULTS.md` says what each anchor is)."},
		twoGPUJacobi, sealedFromGo, sealedRing, checksRing, sealedActors, sealedStream, deviceVsNVSHMEM,
	}},
	{"../docs/scale.md", "###", []table{scaleHost}},
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
