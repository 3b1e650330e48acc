// Package bootstrap tells a process of a multi-process world who it is —
// its rank, the world size, its rank on its node — and lets the ranks
// agree on startup data (the NVSHMEM unique id) before any GPU transport
// exists, through a small rendezvous server.
//
// The rank comes from the launcher's environment: symrun's SYMCHAN_RANK
// and SYMCHAN_NRANKS, else Open MPI's OMPI_COMM_WORLD_RANK/SIZE, a PMI
// launcher's PMI_RANK/PMI_SIZE, or Slurm's SLURM_PROCID/SLURM_NTASKS.
// SYMCHAN_BOOTSTRAP names the rendezvous (host:port) and
// SYMCHAN_BOOTSTRAP_SECRET the job's secret, which every request carries
// and the server checks, so that no other process can read or plant the
// job's startup data. symrun runs the server and makes the secret itself;
// under mpirun or srun, where the ranks are given both variables, rank 0
// serves it, listening on the address given (not on every interface), e.g.
//
//	mpirun -x SYMCHAN_BOOTSTRAP=node0:29500 -x SYMCHAN_BOOTSTRAP_SECRET=$(openssl rand -hex 16) ...
//
// Without them the nvshmem backend starts NVSHMEM with its own bootstrap
// plugin on what the launcher provides (see pgas/nvshmem).
package bootstrap

import (
	"errors"
	"fmt"
	"os"
	"strconv"
)

// Environment variables set by symrun (and read by FromEnv).
const (
	EnvRank       = "SYMCHAN_RANK"
	EnvNRanks     = "SYMCHAN_NRANKS"
	EnvLocalRank  = "SYMCHAN_LOCAL_RANK"
	EnvLocalRanks = "SYMCHAN_LOCAL_NRANKS"
	EnvAddr       = "SYMCHAN_BOOTSTRAP"
	// EnvServed, set to 1, says a launcher serves the rendezvous, so
	// rank 0 does not.
	EnvServed = "SYMCHAN_BOOTSTRAP_SERVED"
	// EnvSecret is the job's rendezvous secret: 16 to 128 characters,
	// the same for every rank.
	EnvSecret = "SYMCHAN_BOOTSTRAP_SECRET"
)

// ErrNoLauncher is returned by FromEnv when no launcher's variables are set.
var ErrNoLauncher = errors.New("bootstrap: no rank in the environment: start the program with symrun, mpirun or srun")

// Info is what a process learns from its launcher.
type Info struct {
	Rank, Size           int
	LocalRank, LocalSize int    // on this node; LocalSize 0 when unknown
	Addr                 string // the rendezvous, host:port; "" when unset
	Served               bool   // a launcher serves the rendezvous
	Secret               string // the job's rendezvous secret; "" when unset
	Source               string // where it came from: symrun, openmpi, pmi, slurm (a launcher's variables), uid (Join)
}

// launchers lists where ranks come from, in order of preference:
// variable names of rank, size, local rank, local size.
var launchers = []struct {
	name                     string
	rank, size, lrank, lsize string
}{
	{"symrun", EnvRank, EnvNRanks, EnvLocalRank, EnvLocalRanks},
	{"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE"},
	{"pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID", "MPI_LOCALNRANKS"},
	{"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE"},
}

// FromEnv reads the process's rank from the environment (see the package
// documentation), or returns ErrNoLauncher, or an error naming a bad value.
func FromEnv() (Info, error) { return fromLookup(os.LookupEnv) }

func fromLookup(lookup func(string) (string, bool)) (Info, error) {
	for _, l := range launchers {
		rs, ok := lookup(l.rank)
		if !ok {
			continue
		}
		info := Info{Source: l.name}
		var err error
		if info.Rank, err = atoi(l.rank, rs, 0); err != nil {
			return info, err
		}
		ss, ok := lookup(l.size)
		if !ok {
			return info, fmt.Errorf("bootstrap: %s is set but %s is not", l.rank, l.size)
		}
		if info.Size, err = atoi(l.size, ss, 1); err != nil {
			return info, err
		}
		if info.Rank >= info.Size {
			return info, fmt.Errorf("bootstrap: %s=%d is not below %s=%d", l.rank, info.Rank, l.size, info.Size)
		}
		info.LocalRank, info.LocalSize = info.Rank, 0
		if v, ok := lookup(l.lrank); ok {
			if info.LocalRank, err = atoi(l.lrank, v, 0); err != nil {
				return info, err
			}
		}
		if v, ok := lookup(l.lsize); ok {
			if info.LocalSize, err = atoi(l.lsize, v, 1); err != nil {
				return info, err
			}
		}
		info.Addr, _ = lookup(EnvAddr)
		v, _ := lookup(EnvServed)
		info.Served = v == "1"
		info.Secret, _ = lookup(EnvSecret)
		return info, nil
	}
	return Info{}, ErrNoLauncher
}

func atoi(name, v string, min int) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		return 0, fmt.Errorf("bootstrap: %s=%q: want an integer ≥ %d", name, v, min)
	}
	return n, nil
}
