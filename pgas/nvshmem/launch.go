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
// launcher provides: PMIx where the launcher set PMIX_RANK (Open MPI 5,
// srun --mpi=pmix), PMI-2 under Slurm otherwise; NVSHMEM_BOOTSTRAP, when
// set, names the plugin instead. The plugins sit beside NVSHMEM's host
// library (and need the launcher's PMIx or PMI library).

// launcherBootstrap is the NVSHMEM bootstrap plugin to start with under
// info's launcher ("PMIX", "PMI2", …), or "" for the unique id through
// symchan's rendezvous.
func launcherBootstrap(info bootstrap.Info) string {
	return bootstrapFor(info, os.LookupEnv)
}

func bootstrapFor(info bootstrap.Info, lookup func(string) (string, bool)) string {
	if info.Source == "symrun" || info.Addr != "" || info.Size == 1 {
		return ""
	}
	if v, ok := lookup("NVSHMEM_BOOTSTRAP"); ok && v != "" {
		return v
	}
	if _, ok := lookup("PMIX_RANK"); ok {
		return "PMIX"
	}
	if info.Source == "slurm" {
		return "PMI2"
	}
	return "PMI"
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
