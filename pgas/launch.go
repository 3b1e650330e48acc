package pgas

import (
	"fmt"
	"math"
	"reflect"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/kernels"
)

// symArg is what Launch asks of a Sym of any element type.
type symArg interface {
	symRef() (*allocRec, int64)
}

func (s Sym[T]) symRef() (*allocRec, int64) { return s.rec, s.off }

// Launch queues kernel (an extern "C" __global__ function of m, a module
// of p's GPU: GPU.Load of a Program, kernels.Compile's included) on the
// PE's stream, after the PE's routines issued before it, and returns
// without waiting for it; the PE's routines issued later run after it
// (GPU.Stream's rule). The arguments become the kernel's parameters, 8
// bytes each:
//
//   - a Sym[T] of p's world: the device address of its first element in
//     p's own partition, the symmetric address that symchan.cuh's routines
//     and NVSHMEM's take (a kernel reaches PE q's copy of it with them);
//   - a *Team of p: the device address of p's copy of its struct
//     symchan_team, which symchan.cuh's team routines and device
//     collectives take (as NVSHMEM's take a nvshmem_team_t); the team's
//     members must be evenly spaced world PEs, as every Split makes them;
//   - a device.Ptr (GPU.HeapDescriptor, the struct symchan_heap pointer
//     symchan.cuh's routines take first): as is;
//   - int, int32, int64, uint, uint32, uint64, uintptr: the value (a
//     4-byte parameter reads the low half); float64 and float32: their
//     bits; bool: 0 or 1.
//
// Anything else, or a Sym that p cannot use, is an error before anything
// is queued, and so is an argument list that does not match the
// kernel's parameters as m's PTX declares them (device.Function.Params):
// another number of arguments, an address or a float64 for a parameter
// of other than 8 bytes, a float32 for one of other than 4, an integer
// whose value a smaller parameter cannot hold (ErrBadArg, naming the
// kernel and the parameter). It fails with ErrNotGPU on a backend whose
// PEs are not GPUs.
//
// A device collective of a *Team argument whose members' arguments
// differed is reported, as ErrCollectiveMismatch, by the PE's next
// Stream.Sync or its next barrier, collective, allocation or free (which
// then fails on every member, the team left usable) once the kernel has
// run.
func Launch(p *PE, m *device.Module, kernel string, grid, block device.Dim3, shared int, args ...any) error {
	return launch(p, nil, false, m, kernel, grid, block, shared, args)
}

// LoadSource compiles src, a user's CUDA C program named name that
// includes symchan.cuh (kernels.Compile with opts), and loads it on p's
// GPU (GPU.Load): the module Launch takes, in one call instead of three
// (the GPU, the compile, the load). It fails with ErrNotGPU, before
// compiling, on a backend whose PEs are not GPUs, and otherwise with
// Compile's or Load's error.
func LoadSource(p *PE, name, src string, opts kernels.CompileOptions) (*device.Module, error) {
	g, err := p.GPU()
	if err != nil {
		return nil, err
	}
	prog, err := kernels.Compile(name, src, opts)
	if err != nil {
		return nil, err
	}
	return g.Load(prog)
}

// LaunchOnStream is Launch on s, a Stream of p's on a GPU backend, rather
// than on the PE's own stream: the kernel runs in order with the routines
// enqueued on s (PutSignalOnStream, SignalWaitUntilOnStream, …). Sync then
// reports a device collective of a *Team argument whose members' arguments
// differed (the collective itself returned SYMCHAN_ERR_MISMATCH), as it
// does the stream's own collectives.
func LaunchOnStream(s *Stream, m *device.Module, kernel string, grid, block device.Dim3, shared int, args ...any) error {
	if err := s.usable(); err != nil {
		return err
	}
	return launch(s.p, s, false, m, kernel, grid, block, shared, args)
}

// LaunchCollective is Launch for a kernel whose blocks wait on other PEs'
// (nvshmemx_collective_launch): a cooperative launch, so that every
// block of the grid runs at once, of a grid no larger than
// CollectiveGridSize, so that it also runs beside the same kernel of the
// other PEs on its GPU. A larger grid is refused with ErrBadArg before
// anything is queued; every PE of the kernel's collectives is to launch
// it.
func LaunchCollective(p *PE, m *device.Module, kernel string, grid, block device.Dim3, shared int, args ...any) error {
	return launch(p, nil, true, m, kernel, grid, block, shared, args)
}

// LaunchCollectiveOnStream is LaunchCollective on s, as LaunchOnStream is
// Launch on s.
func LaunchCollectiveOnStream(s *Stream, m *device.Module, kernel string, grid, block device.Dim3, shared int, args ...any) error {
	if err := s.usable(); err != nil {
		return err
	}
	return launch(s.p, s, true, m, kernel, grid, block, shared, args)
}

// launch is the one path of the four launches: on s, else on p's own
// stream; cooperative (collective) or not.
func launch(p *PE, s *Stream, collective bool, m *device.Module, kernel string, grid, block device.Dim3, shared int, args []any) error {
	g, err := p.GPU()
	if err != nil {
		return err
	}
	f, words, err := launchArgs(p, g, m, kernel, args)
	if err != nil {
		return err
	}
	st := g.Stream()
	if s != nil {
		st = s.Device()
	}
	enqueue := st.Launch
	if collective {
		most, err := collectiveGrid(p, g, f, block, shared)
		if err != nil {
			return err
		}
		if blocks := max(grid.X, 1) * max(grid.Y, 1) * max(grid.Z, 1); blocks > most {
			return fmt.Errorf("%w: LaunchCollective %s: a grid of %d blocks, and %d fit beside the other PEs' on the GPU (CollectiveGridSize)", ErrBadArg, kernel, blocks, most)
		}
		enqueue = st.LaunchCooperative
	}
	if err := enqueue(f, grid, block, shared, words...); err != nil {
		return err
	}
	if s == nil {
		p.noteLaunch(args)
		return nil
	}
	for _, a := range args {
		if t, ok := a.(*Team); ok {
			s.watch(t)
		}
	}
	return nil
}

// CollectiveGridSize is the largest grid, in blocks of block's threads
// with shared bytes of dynamic shared memory, that LaunchCollective takes
// for kernel on p's GPU (nvshmemx_collective_launch_query_gridsize): what
// the GPU's multiprocessors hold at once, less one block each for the
// runtime's own resident kernels, shared among the PEs that run on the
// GPU (this process's on its context, and at least the node's PEs per
// visible GPU, for processes sharing it). 0: none fits.
func CollectiveGridSize(p *PE, m *device.Module, kernel string, block device.Dim3, shared int) (int, error) {
	g, err := p.GPU()
	if err != nil {
		return 0, err
	}
	if m == nil {
		return 0, fmt.Errorf("%w: CollectiveGridSize %s: nil module", ErrBadArg, kernel)
	}
	f, err := m.Function(kernel)
	if err != nil {
		return 0, err
	}
	return collectiveGrid(p, g, f, block, shared)
}

// collectiveGrid is CollectiveGridSize of f.
func collectiveGrid(p *PE, g GPU, f *device.Function, block device.Dim3, shared int) (int, error) {
	threads := max(block.X, 1) * max(block.Y, 1) * max(block.Z, 1)
	perSM, err := f.MaxActiveBlocks(threads, shared)
	if err != nil {
		return 0, err
	}
	info, err := device.Describe(g.Context().Ordinal())
	if err != nil {
		return 0, err
	}
	gpus, err := device.Count()
	if err != nil {
		return 0, err
	}
	node := p.TeamNode().NumPEs()
	sharers := max(p.w.ctxPEs[g.Context()], (node+gpus-1)/max(gpus, 1), 1)
	return max(perSM-1, 0) * info.SMs / sharers, nil
}

// launchArgs finds kernel in m and turns args into its parameters.
func launchArgs(p *PE, g GPU, m *device.Module, kernel string, args []any) (*device.Function, []uint64, error) {
	if m == nil {
		return nil, nil, fmt.Errorf("%w: Launch %s: nil module", ErrBadArg, kernel)
	}
	words := make([]uint64, len(args))
	for i, a := range args {
		var v uint64
		switch a := a.(type) {
		case symArg:
			rec, off := a.symRef()
			if err := p.checkSym(rec); err != nil {
				return nil, nil, fmt.Errorf("Launch %s: argument %d: %w", kernel, i, err)
			}
			v = uint64(g.Addr(p.id, off))
		case *Team:
			d, err := a.deviceTeam(p, g)
			if err != nil {
				return nil, nil, fmt.Errorf("Launch %s: argument %d: %w", kernel, i, err)
			}
			v = uint64(d)
		case device.Ptr:
			v = uint64(a)
		case int:
			v = uint64(a)
		case int32:
			v = uint64(uint32(a))
		case int64:
			v = uint64(a)
		case uint:
			v = uint64(a)
		case uint32:
			v = uint64(a)
		case uint64:
			v = a
		case uintptr:
			v = uint64(a)
		case float64:
			v = math.Float64bits(a)
		case float32:
			v = uint64(math.Float32bits(a))
		case bool:
			if a {
				v = 1
			}
		default:
			return nil, nil, fmt.Errorf("%w: Launch %s: argument %d is a %T (want a Sym, a *Team, a device.Ptr, an integer, a float or a bool)", ErrBadArg, kernel, i, a)
		}
		words[i] = v
	}
	f, err := m.Function(kernel)
	if err != nil {
		return nil, nil, err
	}
	if sizes, known := f.Params(); known {
		if err := argsFit(kernel, sizes, args); err != nil {
			return nil, nil, err
		}
	}
	return f, words, nil
}

// argsFit checks Launch's arguments against the byte sizes of kernel's
// parameters: as many, each fitting its parameter. Addresses (a Sym, a
// *Team, a device.Ptr) and float64 need 8 bytes and float32 4; an
// integer fits a smaller parameter where its value does (as a signed or
// an unsigned number of that size, for a signed Go type), and a bool
// fits any.
func argsFit(kernel string, sizes []int, args []any) error {
	if len(args) != len(sizes) {
		return fmt.Errorf("%w: Launch %s: %d arguments, and the kernel takes %d parameters", ErrBadArg, kernel, len(args), len(sizes))
	}
	for i, a := range args {
		size, bits := sizes[i], 8*sizes[i]
		var ok bool
		switch a := a.(type) {
		case bool:
			ok = size <= 8
		case float32:
			ok = size == 4
		case float64, symArg, *Team, device.Ptr:
			ok = size == 8
		case int, int32, int64:
			x := reflect.ValueOf(a).Int()
			ok = size == 8 || size < 8 && x >= -1<<(bits-1) && x < 1<<bits
		default: // unsigned
			ok = size == 8 || size < 8 && reflect.ValueOf(a).Uint() < 1<<bits
		}
		if !ok {
			return fmt.Errorf("%w: Launch %s: argument %d (%T %v) does not fit the kernel's %d-byte parameter %d", ErrBadArg, kernel, i, a, a, size, i)
		}
	}
	return nil
}
