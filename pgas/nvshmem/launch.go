package nvshmem

import (
	"hash/fnv"
	"os"

	"github.com/symchan/symchan/pgas/bootstrap"
)

// How the processes of a world meet. Under symrun, and wherever the ranks
// are given symchan's rendezvous (bootstrap.EnvAddr), rank 0 makes
// NVSHMEM's unique id and the others fetch it there. Under mpirun or srun
// without it, NVSHMEM starts with its own bootstrap plugin on what the
// launcher provides: under Open MPI's mpirun its MPI plugin
// (NVSHMEM_BOOTSTRAP=MPI: MPI_COMM_WORLD), under srun PMIx where the
// launcher set PMIX_RANK (srun --mpi=pmix), else PMI-2, and under other
// PMI launchers PMI (NVSHMEM_BOOTSTRAP=PMI, NVSHMEM_BOOTSTRAP_PMI=PMIX,
// PMI-2 or PMI). NVSHMEM_BOOTSTRAP, when set, is NVSHMEM's to read as it
// stands. The plugins sit beside NVSHMEM's host library and need the
// launcher's library of the same ABI they were built against (Open MPI
// 4's libmpi, PMIx 3's libpmix).

// launcherBootstrap returns the values of NVSHMEM_BOOTSTRAP and
// NVSHMEM_BOOTSTRAP_PMI to start NVSHMEM with under info's launcher
// (pmi "" leaves that variable as it is), or boot "" for the unique id
// through symchan's rendezvous.
func launcherBootstrap(info bootstrap.Info) (boot, pmi string) {
	return bootstrapFor(info, os.LookupEnv)
}

func bootstrapFor(info bootstrap.Info, lookup func(string) (string, bool)) (boot, pmi string) {
	if info.Source == "symrun" || info.Addr != "" || info.Size == 1 {
		return "", ""
	}
	if v, ok := lookup("NVSHMEM_BOOTSTRAP"); ok && v != "" {
		return v, ""
	}
	if v, ok := lookup("NVSHMEM_BOOTSTRAP_PMI"); ok && v != "" {
		return "PMI", v
	}
	switch _, pmix := lookup("PMIX_RANK"); {
	case info.Source == "openmpi":
		return "MPI", ""
	case pmix:
		return "PMI", "PMIX"
	case info.Source == "slurm":
		return "PMI", "PMI-2"
	}
	return "PMI", "PMI"
}

// hostKey is the key findNodes publishes for a host.
func hostKey(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64()
}

// nodesOf numbers the PEs' nodes: PEs with equal keys share a node, and
// nodes are numbered in the order of their lowest PE.
func nodesOf(keys []uint64) []int {
	ids := map[uint64]int{}
	nodes := make([]int, len(keys))
	for pe, k := range keys {
		id, ok := ids[k]
		if !ok {
			id = len(ids)
			ids[k] = id
		}
		nodes[pe] = id
	}
	return nodes
}
