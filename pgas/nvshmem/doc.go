// Package nvshmem is symchan's scale-out backend: every process is one PE
// on one GPU under NVSHMEM, which carries the traffic (NVLink, InfiniBand,
// UCX). Import it for its side effect and name "nvshmem" in
// pgas.Config.Backend or SYMCHAN_BACKEND, and start the program with
// symrun (cmd/symrun) or, across hosts, mpirun or srun (see pgas/bootstrap
// for the variables they pass):
//
//	symrun -n 2 ./app
//
// It is compiled in with the build tag cuda. The NVSHMEM host library is
// loaded at run time — SYMCHAN_NVSHMEM_LIB (the library file), else
// $NVSHMEM_HOME/lib, else well-known locations including a pip-installed
// nvidia-nvshmem — so one binary runs wherever NVSHMEM is installed and
// says so clearly where it is not. NVSHMEM 3.x is required (its
// initialisation structures are declared here for that ABI).
//
// Mapping: the symmetric heap is one nvshmem_malloc per world of
// SYMCHAN_SYMMETRIC_SIZE bytes; Put, Get and PutSignal are NVSHMEM's
// putmem/getmem/putmem_signal_on_stream (host data through a symmetric
// staging buffer), Fence and Quiet are quiet_on_stream, waits on local
// words are symchan's waiting kernel (as on the cuda backend), and atomics
// are symchan's atomic kernel on the peer's memory through nvshmem_ptr, so
// an atomic to a PE on another node is an error (NVSHMEM's host-side
// atomics are not used yet). NVSHMEM calls are made one at a time, each on a locked OS
// thread with the GPU's primary context current (NVSHMEM_THREAD_SERIALIZED).
// NVSHMEM is initialised once per
// process and never finalised (it cannot start again in the same process);
// each world allocates and frees its own heap, collectively.
//
// Limits: a PE that fails stops only its own process's PEs; symrun stops
// the other processes. Node(pe) assumes ranks are placed on nodes in
// blocks of the launcher's local size.
package nvshmem

// Environment variables the backend reads.
const (
	EnvLib  = "SYMCHAN_NVSHMEM_LIB" // path of libnvshmem_host.so
	EnvHome = "NVSHMEM_HOME"
)
