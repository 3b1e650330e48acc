package pgas

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/symchan/symchan/pgas/driver"
)

// Environment variables read by [Run] for fields a [Config] leaves zero, in
// the style of NVSHMEM's NVSHMEM_* variables.
const (
	EnvBackend       = "SYMCHAN_BACKEND"        // backend name, e.g. "host"
	EnvPEs           = "SYMCHAN_PES"            // number of PEs, e.g. "8"
	EnvSymmetricSize = "SYMCHAN_SYMMETRIC_SIZE" // heap bytes per PE, e.g. "512M"
	EnvBlocking      = "SYMCHAN_BLOCKING"       // "spin" or "park" (see Blocking)
	EnvForceRemote   = "SYMCHAN_FORCE_REMOTE"   // "1" or "true": Config.ForceRemote
)

// Defaults for fields that neither the Config nor the environment set.
const (
	DefaultBackend  = "host"
	DefaultHeapSize = 128 << 20 // bytes per PE
)

// Config says where and how a world runs. Zero fields are filled from the
// environment (EnvBackend, EnvPEs, EnvSymmetricSize, EnvBlocking,
// EnvForceRemote), then
// from the defaults; a field set here wins over the environment. A
// malformed environment value is an error even where the Config's own
// field wins, so that a typo in a job script never goes unnoticed.
type Config struct {
	// Backend is the registered backend name ("host", "cuda", ...).
	Backend string
	// Driver is the backend by value, in the spirit of sql.OpenDB: a
	// configured value of a backend package (host.Backend{},
	// cuda.Backend{ShareGPUs: true}, nvshmem.Backend{Library: …}),
	// registered or not. It wins over Backend and EnvBackend; Backend
	// then only names it in messages (by default, the value's type).
	Driver driver.Backend
	// PEs is the number of PEs; zero lets the backend choose (host: 8).
	PEs int
	// HeapSize is the symmetric heap size per PE in bytes. A small part of
	// it (ControlBytes) is reserved for the runtime's own signal words, and
	// on the GPU backends at most 1/64 of it (256 KiB at most) for the
	// teams' small-message buffers (docs/design.md).
	HeapSize int64
	// Blocking says how a blocking wait on host memory passes the time
	// (the host backend's waits, and the actors' receives and awaits
	// there). Zero leaves it to EnvBlocking, then to the PE count: PEs
	// that could not each poll on a processor of their own (more of them
	// than GOMAXPROCS, or than CPUs if fewer) park, others spin. Backends
	// whose waits run on a GPU ignore it. World.Config reports the choice.
	Blocking Blocking
	// ForceRemote makes a backend whose PEs may be on several hosts
	// (nvshmem) treat every other PE as one this GPU cannot map, as if it
	// were on another host: every operation on another PE then takes the
	// remote path (NVSHMEM's own routines), never a peer pointer or
	// symchan's agent on that PE's memory. It is a test mode, for proving
	// the paths across hosts on one host. False leaves it to
	// EnvForceRemote. Backends whose PEs all share one process (host,
	// cuda) have no remote path and ignore it, so that one setting can
	// cover a test run that also starts such worlds.
	ForceRemote bool
	// ProcessLocal says that a world of a backend whose PEs all share one
	// process (host, cuda) is meant to be this process's own even where
	// symrun started the process as one of several ranks: a reference run
	// beside the job's world, say. Without it such a world is refused
	// there, since every rank would open one of its own, and nothing
	// would say so.
	ProcessLocal bool
}

// Blocking is how a blocking wait on host memory passes the time.
type Blocking uint8

const (
	// BlockDefault leaves the choice to EnvBlocking, then to the PE
	// count (see Config.Blocking).
	BlockDefault Blocking = iota
	// BlockSpin polls the awaited words for up to about 50 µs (yielding
	// the processor between polls) before it parks: a message from a PE
	// running on another core is seen within a cache-line transfer. Best
	// when each PE has a core and messages stream; it costs the waiter's
	// core while it polls.
	BlockSpin
	// BlockPark parks at once; the write that satisfies the wait makes
	// the waiter runnable on the writer's own processor, as a send on a
	// Go channel does. Best for request/response traffic and for more
	// busy PEs than cores: no core is spent polling, and a pair of PEs
	// that answer each other runs on one core.
	BlockPark
)

// String returns "spin", "park" or "default".
func (b Blocking) String() string {
	switch b {
	case BlockSpin:
		return "spin"
	case BlockPark:
		return "park"
	case BlockDefault:
		return "default"
	}
	return fmt.Sprintf("Blocking(%d)", uint8(b))
}

// autoBlocking is the Blocking of a world of n PEs (0: as many as the
// backend chooses, def) on procs processors that neither the Config nor
// the environment sets: spinning pays only while every PE can poll on a
// processor of its own; beyond that, spinners take turns and each hop
// waits for a time slice.
func autoBlocking(n, def, procs int) Blocking {
	if cmp.Or(n, def) > procs {
		return BlockPark
	}
	return BlockSpin
}

// backendOf is the backend c names: Driver, or the one registered as
// Backend.
func (c Config) backendOf() (driver.Backend, error) {
	if c.Driver != nil {
		return c.Driver, nil
	}
	return lookupBackend(c.Backend)
}

// defaultPEs is how many PEs c's backend starts when asked for none, when
// it says (driver.DefaultSizer); 0 otherwise.
func (c Config) defaultPEs() int {
	if b, err := c.backendOf(); err == nil {
		if d, ok := b.(driver.DefaultSizer); ok {
			return d.DefaultPEs()
		}
	}
	return 0
}

// processors is how many goroutines of this process run at once.
func processors() int { return min(runtime.GOMAXPROCS(0), runtime.NumCPU()) }

// parseBlocking reads EnvBlocking's value.
func parseBlocking(s string) (Blocking, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return BlockDefault, nil
	case "spin":
		return BlockSpin, nil
	case "park":
		return BlockPark, nil
	}
	return 0, fmt.Errorf("pgas: %s=%q: want spin or park", EnvBlocking, s)
}

// Resolve returns c with zero fields filled from the environment and the
// defaults, or an error naming a bad value.
func (c Config) Resolve() (Config, error) {
	if c.PEs < 0 {
		return c, fmt.Errorf("pgas: config: PEs = %d, want > 0", c.PEs)
	}
	if c.HeapSize < 0 {
		return c, fmt.Errorf("pgas: config: HeapSize = %d, want > 0", c.HeapSize)
	}
	if c.Blocking > BlockPark {
		return c, fmt.Errorf("pgas: config: Blocking = %v, want BlockSpin or BlockPark", c.Blocking)
	}
	// An empty variable counts as unset, as os.Getenv reports it.
	envBackend := strings.TrimSpace(os.Getenv(EnvBackend))
	var envPEs int
	if s := os.Getenv(EnvPEs); s != "" {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			return c, fmt.Errorf("pgas: %s=%q: want a positive integer", EnvPEs, s)
		}
		envPEs = n
	}
	var envHeap int64
	if s := os.Getenv(EnvSymmetricSize); s != "" {
		n, err := ParseSize(s)
		if err != nil {
			return c, fmt.Errorf("pgas: %s: %w", EnvSymmetricSize, err)
		}
		envHeap = n
	}
	envBlocking, err := parseBlocking(os.Getenv(EnvBlocking))
	if err != nil {
		return c, err
	}
	if s := strings.TrimSpace(os.Getenv(EnvForceRemote)); s != "" {
		on, err := strconv.ParseBool(s)
		if err != nil {
			return c, fmt.Errorf("pgas: %s=%q: want 1, true, 0 or false", EnvForceRemote, s)
		}
		c.ForceRemote = c.ForceRemote || on
	}
	switch {
	case c.Driver != nil && c.Backend == "":
		c.Backend = fmt.Sprintf("%T", c.Driver)
	case c.Backend == "":
		c.Backend = cmp.Or(envBackend, DefaultBackend)
	}
	if c.PEs == 0 {
		c.PEs = envPEs
	}
	if c.Blocking == BlockDefault {
		c.Blocking = cmp.Or(envBlocking, autoBlocking(c.PEs, c.defaultPEs(), processors()))
	}
	if c.HeapSize == 0 {
		c.HeapSize = cmp.Or(envHeap, DefaultHeapSize)
	}
	if c.HeapSize < minHeapSize {
		return c, fmt.Errorf("pgas: heap size %d bytes is below the minimum %d (the runtime reserves %d)", c.HeapSize, minHeapSize, ControlBytes)
	}
	return c, nil
}

// ParseSize parses a byte count the way NVSHMEM_SYMMETRIC_SIZE does: a
// positive integer with an optional binary suffix K, M, G or T (any case,
// optionally followed by "B" or "iB"): "4096", "64K", "512M", "2G", "1GiB".
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, errors.New("empty size")
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q: want digits with an optional K/M/G/T suffix", s)
	}
	n, err := strconv.ParseUint(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	var shift uint
	switch strings.ToUpper(t[i:]) {
	case "", "B":
	case "K", "KB", "KIB":
		shift = 10
	case "M", "MB", "MIB":
		shift = 20
	case "G", "GB", "GIB":
		shift = 30
	case "T", "TB", "TIB":
		shift = 40
	default:
		return 0, fmt.Errorf("size %q: unknown suffix %q (want K, M, G or T)", s, t[i:])
	}
	if n == 0 {
		return 0, fmt.Errorf("size %q: must be positive", s)
	}
	if n > math.MaxInt64>>shift {
		return 0, fmt.Errorf("size %q: overflows int64", s)
	}
	return int64(n << shift), nil
}
