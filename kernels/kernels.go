// Package kernels holds symchan's device side: the device API users'
// kernels and ours include (symchan.cuh), the runtime's kernels
// (symchan.cu, Runtime) with their PTX, generated with nvcc on a GPU
// machine by scripts/gpu-ptx.sh and committed beside them, Program, the
// form in which the GPU backends load CUDA C that includes the API
// (pgas.GPU.Load), Compile, which builds a Program from a user's CUDA C
// with NVRTC when the program runs, and Timings, which decodes a kernel's
// timing log. What only symchan's own packages need of the C side (the
// structs' layouts, the runtime's kernel names, the heap descriptor) is in
// internal/abi, generated from these sources.
//
// The cuda backend JIT-loads Runtime's PTX into every GPU's context; the
// nvshmem backend loads its variant, compiled relocatable with
// SYMCHAN_NVSHMEM, so that every routine of symchan.cuh reaches a PE this
// GPU cannot map through NVSHMEM's device library, which it links in. For
// kernel work without rebuilding Go binaries, SYMCHAN_PTX_DIR names a
// folder of regenerated PTX files (scripts/gpu-ptx.sh DIR on the GPU
// machine) that replace the embedded ones; a backend's PTXFile field
// names a single file for the runtime's.
package kernels

// The Go copy of what Go and CUDA share, generated from the CUDA C into
// internal/abi (TestLayout checks it is current): symchan.cuh's structs
// (sizes and field offsets), its collective kinds, signal operations,
// comparisons and reduction operators (layout.go), and symchan.cu's parts
// of a collective on a stream (parts.go). pgas's own names for these
// numbers are tested against them.
//go:generate go run github.com/symchan/symchan/internal/cstructs/cmd/cstructs -in symchan.cuh -o ../internal/abi/layout.go -pkg abi symchan_heap=Heap symchan_mailbox=Mailbox symchan_mbox_out=MboxOut symchan_replies=Replies symchan_actor=Actor symchan_team=Team SYMCHAN_TEAM_WORLD_OFF=TeamWorldOff SYMCHAN_TEAM_NODE_OFF=TeamNodeOff SYMCHAN_LOCAL_PES=LocalPEs SYMCHAN_TIMING_WORDS=TimingWords SYMCHAN_SLOT_HEADER=SlotHeader SYMCHAN_COLL_BARRIER=CollBarrier SYMCHAN_COLL_SYNC=CollSync SYMCHAN_COLL_BROADCAST=CollBroadcast SYMCHAN_COLL_FCOLLECT=CollFCollect SYMCHAN_COLL_ALLTOALL=CollAllToAll SYMCHAN_COLL_REDUCE=CollReduce SYMCHAN_COLL_ALLTOALLV=CollAllToAllV SYMCHAN_COLL_BLOCKING=CollBlocking SYMCHAN_CTL_CLOSING=CtlClosing SYMCHAN_CTL_CANCELLED=CtlCancelled SYMCHAN_SIGNAL_SET=SignalSet SYMCHAN_SIGNAL_ADD=SignalAdd SYMCHAN_CMP_EQ=CmpEQ SYMCHAN_CMP_NE=CmpNE SYMCHAN_CMP_GT=CmpGT SYMCHAN_CMP_GE=CmpGE SYMCHAN_CMP_LT=CmpLT SYMCHAN_CMP_LE=CmpLE SYMCHAN_REDUCE_SUM=ReduceSum SYMCHAN_REDUCE_PROD=ReduceProd SYMCHAN_REDUCE_MIN=ReduceMin SYMCHAN_REDUCE_MAX=ReduceMax SYMCHAN_REDUCE_AND=ReduceAnd SYMCHAN_REDUCE_OR=ReduceOr SYMCHAN_REDUCE_XOR=ReduceXor SYMCHAN_ELEM_I8=ElemI8 SYMCHAN_ELEM_U8=ElemU8 SYMCHAN_ELEM_I16=ElemI16 SYMCHAN_ELEM_U16=ElemU16 SYMCHAN_ELEM_I32=ElemI32 SYMCHAN_ELEM_U32=ElemU32 SYMCHAN_ELEM_I64=ElemI64 SYMCHAN_ELEM_U64=ElemU64 SYMCHAN_ELEM_INT=ElemInt SYMCHAN_ELEM_UINT=ElemUint SYMCHAN_ELEM_UINTPTR=ElemUintptr SYMCHAN_ELEM_F32=ElemF32 SYMCHAN_ELEM_F64=ElemF64 SYMCHAN_ELEM_C64=ElemC64 SYMCHAN_ELEM_C128=ElemC128 SYMCHAN_ELEM_SIZED=ElemSized
//go:generate go run github.com/symchan/symchan/internal/cstructs/cmd/cstructs -in symchan.cu -o ../internal/abi/parts.go -pkg abi PART_WHOLE=PartWhole PART_OPEN=PartOpen PART_DATA=PartData PART_CLOSE=PartClose PART_AGREE=PartAgree

import (
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/symchan/symchan/internal/abi"
)

//go:embed symchan.ptx
var symchanPTX string

//go:embed symchan_nvshmem.ptx
var nvshmemPTX string

// Source is symchan.cu, and Header the device API symchan.cuh, for users
// who build their kernels against the same definitions.
var (
	//go:embed symchan.cu
	Source string
	//go:embed symchan.cuh
	Header string
)

// EnvPTXDir names a folder of PTX files named after their programs
// (symchan.ptx and symchan_nvshmem.ptx for Runtime) that replace the
// embedded ones where the folder has them: kernel work without rebuilding
// Go binaries (scripts/gpu-ptx.sh DIR writes them). A program from
// Compile is never replaced.
const EnvPTXDir = "SYMCHAN_PTX_DIR"

// A Program is CUDA C that includes symchan.cuh, compiled to PTX the two
// ways the GPU backends load it (pgas.GPU.Load): as is for the cuda
// backend, and relocatable with SYMCHAN_NVSHMEM defined for the nvshmem
// backend, which links it with NVSHMEM's device library so that its
// routines reach PEs this GPU cannot map. A Program is either PTX given
// in its fields (Runtime's: scripts/gpu-ptx.sh compiles symchan.cu into
// symchan.ptx and symchan_nvshmem.ptx, which this package embeds) or what
// Compile returns.
type Program struct {
	Name       string // names its PTX files and its modules
	PTX        string
	NVSHMEMPTX string
	// A program from Compile: its identity (name and a hash of what it
	// was compiled from), its nvshmem variant, compiled on first use, or
	// why it has none, and its CompileOptions.CacheDir.
	compiled  string
	nvshmem   *variant
	noNVSHMEM string
	cache     string
}

// Key is what a GPU context keeps p's module under: its Name for
// symchan's own programs, and its name with a hash of its source and
// options for one from Compile, so that two compiled programs of one name
// (a user's ring.cu and examples/ring's ring) load as two modules.
func (p Program) Key() string {
	if p.compiled != "" {
		return p.compiled
	}
	return p.Name
}

// Runtime is symchan.cu: the kernels the GPU backends themselves run.
var Runtime = Program{Name: "symchan", PTX: symchanPTX, NVSHMEMPTX: nvshmemPTX}

// Code returns p's PTX for the cuda backend, or with nvshmem for the
// nvshmem backend: for symchan's own programs the file of EnvPTXDir's
// folder named after p when there is one, else p's own.
func (p Program) Code(nvshmem bool) (string, error) {
	file, code := p.Name+".ptx", p.PTX
	if nvshmem {
		file, code = p.Name+"_nvshmem.ptx", p.NVSHMEMPTX
	}
	if dir := os.Getenv(EnvPTXDir); dir != "" && p.compiled == "" {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err == nil {
			return string(b), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("kernels: %s: %w", EnvPTXDir, err)
		}
	}
	if code == "" && nvshmem && p.nvshmem != nil {
		return p.nvshmem.get()
	}
	if code == "" {
		if nvshmem && p.noNVSHMEM != "" {
			return "", fmt.Errorf("kernels: program %s has no PTX for the nvshmem backend: %s", p.Name, p.noNVSHMEM)
		}
		return "", fmt.Errorf("kernels: program %s has no PTX for the %s backend", p.Name, map[bool]string{false: "cuda", true: "nvshmem"}[nvshmem])
	}
	return code, nil
}

// PTX returns the PTX of symchan.cu: file's when file is not empty,
// else Runtime's (EnvPTXDir's symchan.ptx, else the embedded one).
func PTX(file string) (string, error) { return runtimePTX(file, false) }

// NVSHMEMPTX returns the nvshmem backend's PTX of symchan.cu (SYMCHAN_NVSHMEM
// defined; relocatable, to be linked with NVSHMEM's device library; it
// adds kernel RemoteAtomic): file's when file is not empty, else
// Runtime's.
func NVSHMEMPTX(file string) (string, error) { return runtimePTX(file, true) }

func runtimePTX(file string, nvshmem bool) (string, error) {
	if file == "" {
		return Runtime.Code(nvshmem)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("kernels: the PTX file: %w", err)
	}
	return string(b), nil
}

// TimingWords is the words a timing log (symchan_timing_start) holds
// before its repetitions' cycles: size a log of n repetitions 8·(TimingWords+n)
// bytes.
const TimingWords = abi.TimingWords

// Timings decodes a timing log of n repetitions that a kernel wrote
// (symchan.cuh's symchan_timing_start and _end: the global timer and clock64
// at the first one's start and the last one's end, then each one's
// cycles): each repetition's cycles scaled by the timer's nanoseconds per
// cycle over the whole log, since the timer's resolution can be as coarse
// as a microsecond and the clock's is a cycle.
func Timings(log []byte, n int) ([]time.Duration, error) {
	if len(log) < 8*(TimingWords+n) {
		return nil, fmt.Errorf("kernels: a timing log of %d repetitions needs %d bytes, got %d", n, 8*(TimingWords+n), len(log))
	}
	w := func(i int) uint64 { return binary.LittleEndian.Uint64(log[8*i:]) }
	ns, cycles := w(1)-w(0), w(3)-w(2)
	if cycles == 0 || ns == 0 || w(1) < w(0) || w(3) < w(2) {
		return nil, errors.New("kernels: the timing log is empty: its repetitions did not all run")
	}
	perCycle := float64(ns) / float64(cycles)
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(float64(w(TimingWords+i)) * perCycle)
	}
	return out, nil
}
