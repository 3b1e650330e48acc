// Package nvshmem is symchan's scale-out backend: every process is one PE
// on one GPU under NVSHMEM, which carries the traffic (NVLink, InfiniBand,
// UCX). Import it for its side effect and name "nvshmem" in
// pgas.Config.Backend or SYMCHAN_BACKEND (or give pgas.Config.Driver a
// Backend value with its settings), and start the program with
// symrun (cmd/symrun) or, across hosts, mpirun or srun (see pgas/bootstrap
// for the variables they pass):
//
//	symrun -n 2 ./app
//
// or with no launcher, from a unique id that one process makes and the
// program hands to the others by its own means:
//
//	id, err := bootstrap.NewUniqueID(ctx, "10.0.0.5:0") // one process; serves while ctx lasts
//	job, err := bootstrap.Join(ctx, id, rank, size)     // every process
//	err = pgas.Run(ctx, pgas.Config{Driver: nvshmem.Backend{Job: &job}}, fn)
//
// It is compiled in with the build tag cuda. The NVSHMEM host library is
// loaded at run time — SYMCHAN_NVSHMEM_LIB (the library file), else
// $NVSHMEM_HOME/lib, else well-known locations including a pip-installed
// nvidia-nvshmem — so one binary runs wherever NVSHMEM is installed and
// says so clearly where it is not. NVSHMEM 3.x is required (its
// initialisation structures are declared here for that ABI).
//
// Mapping: the symmetric heap is one nvshmem_malloc per world of
// SYMCHAN_SYMMETRIC_SIZE bytes; NVSHMEM_SYMMETRIC_SIZE, unless set, is
// set from the first world's size (plus 4 MiB of staging and 256 MiB for
// NVSHMEM's own allocations; never below NVSHMEM's default 1 GiB) before
// NVSHMEM starts, so one variable sizes both; NVSHMEM_CUMEM_GRANULARITY,
// unless set, becomes the GPU's own granularity (2 MiB, against NVSHMEM's
// 512 MiB), the unit in which NVSHMEM maps registered buffers
// (pgas.RegisterSymmetric, through nvshmemx_buffer_register_symmetric,
// which places them; the backend checks that its kernels reach them at
// the heap's distance on every mapped peer). NVSHMEM starts once per
// process: a later, larger world must fit in that. Routines of up to
// 1536 bytes (copies between partitions: 4 KiB) on PEs whose partitions
// this GPU maps (nvshmem_ptr: the PEs of this node over NVLink or PCIe),
// and atomics, run on symchan's agent (as on the cuda backend:
// a resident kernel told through mapped pinned memory); the others are
// NVSHMEM's putmem/getmem/putmem_signal/signal_op on stream (host data
// through a symmetric staging buffer). The two paths keep program order;
// Fence and Quiet also call quiet_on_stream. Waits on local words run on
// the agent too.
//
// Symchan's kernels are the SYMCHAN_NVSHMEM variant of kernels' symchan.cu
// (kernels.NVSHMEMPTX), linked when the backend starts with the
// libnvshmem_device.a beside the host library (or in $NVSHMEM_HOME/lib)
// and initialised with nvshmemx_cumodule_init: every routine of
// symchan.cuh — puts, gets, signals, atomics, strided, mailboxes, kernel
// actors, replies, Jacobi's halos — reaches a PE this GPU cannot map
// (another node) through NVSHMEM's device library, and a mapped one with
// its own loads and stores. An atomic from the host on an unmapped PE is
// one of those kernels (NVSHMEM's host API has none); with it,
// PutSignalIf, locks, futures and service calls reach such PEs too.
//
// pgas.Config.ForceRemote (SYMCHAN_FORCE_REMOTE=1) treats every other PE
// as unmapped, as if on another host, so that one host proves the remote
// paths (NVSHMEM still carries the bytes over P2P underneath). NVSHMEM
// calls are made one at a
// time, each on a locked OS thread with the GPU's primary context current
// (NVSHMEM_THREAD_SERIALIZED).
// NVSHMEM is initialised once per
// process and never finalised (it cannot start again in the same process);
// each world allocates and frees its own heap, collectively.
//
// A PE that fails (error or panic) tells the others through NVSHMEM
// (pgas/driver.FailureNotifier): their blocking calls return an error naming it,
// with its message, as within one process; a watcher's wait on the agent
// listens for that during the world's life. A process that dies without
// saying so (killed, crashed) is left to the launcher, which stops the
// rest. A context cancelled in one process ends only that process's PE.
// Node(pe) comes from the processes' host names, gathered through NVSHMEM
// at start: right for any placement of ranks on nodes. Under mpirun or
// srun without symchan's rendezvous NVSHMEM starts with its own bootstrap
// plugin (launch.go; docs/many-hosts.md), and a program calls Finalize
// before it exits. Processes that share a GPU (more ranks than GPUs on a node)
// work but are slow: CUDA time-slices their contexts, so one process's
// agent or Jacobi kernels wait for the other's slice (hops of about 2 ms
// with 4 processes on 2 GPUs); run one process per GPU, or use MPS.
package nvshmem

import (
	"github.com/symchan/symchan/pgas"
	"github.com/symchan/symchan/pgas/bootstrap"
)

// Environment variables the backend reads.
const (
	EnvLib  = "SYMCHAN_NVSHMEM_LIB" // path of libnvshmem_host.so: mirrors Backend.Library
	EnvHome = "NVSHMEM_HOME"
)

func init() { pgas.Register("nvshmem", Backend{}) }

// Backend is the nvshmem backend by value (pgas.Config.Driver), with the
// settings the environment otherwise gives; the one registered as
// "nvshmem" is the zero value, which leaves them to the environment. A
// field set here wins; the environment fills a zero one. NVSHMEM starts
// once per process: the first world's Backend chooses for the process.
type Backend struct {
	// Library is the path of NVSHMEM's host library,
	// libnvshmem_host.so.3 (EnvLib; by default it is looked for beside
	// NVSHMEM_HOME, in the usual system places and in NVIDIA's pip
	// package).
	Library string
	// PTXFile names a PTX file of the backend's variant of symchan.cu to
	// link instead of the one the binary embeds (or SYMCHAN_PTX_DIR's
	// symchan_nvshmem.ptx).
	PTXFile string
	// Job is this process's place in its job where no launcher started
	// it: what bootstrap.Join returns for the job's unique id
	// (bootstrap.UniqueID, made by one process and handed to the others
	// by the program's own means). Nil reads the launcher's environment
	// (bootstrap.FromEnv).
	Job *bootstrap.Info
}

// job is the process's place in its job: b.Job, else the launcher's.
func (b Backend) job() (bootstrap.Info, error) {
	if b.Job != nil {
		return *b.Job, nil
	}
	return bootstrap.FromEnv()
}

// MultiProcess reports that the backend's PEs are processes (one each):
// symrun, mpirun or srun start them (driver.MultiProcess).
func (Backend) MultiProcess() bool { return true }
