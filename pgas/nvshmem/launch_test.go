package nvshmem

import (
	"slices"
	"testing"

	"github.com/symchan/symchan/pgas/bootstrap"
)

// Nodes are numbered by their lowest PE, whatever the placement: blocks,
// round-robin, or uneven.
func TestNodesOf(t *testing.T) {
	a, b, c := hostKey("a"), hostKey("b"), hostKey("c")
	cases := []struct {
		keys []uint64
		want []int
	}{
		{[]uint64{a, a, b, b}, []int{0, 0, 1, 1}},       // blocks
		{[]uint64{a, b, a, b}, []int{0, 1, 0, 1}},       // round-robin
		{[]uint64{b, a, a, c, b}, []int{0, 1, 1, 2, 0}}, // uneven
		{[]uint64{a}, []int{0}},
		{nil, []int{}},
	}
	for _, c := range cases {
		if got := nodesOf(c.keys); !slices.Equal(got, c.want) {
			t.Errorf("nodesOf(%v) = %v, want %v", c.keys, got, c.want)
		}
	}
}

// Under symrun, or given symchan's rendezvous, the ranks meet there;
// under another launcher, through NVSHMEM's plugin for what it provides.
func TestBootstrapFor(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	cases := []struct {
		name      string
		info      bootstrap.Info
		env       func(string) (string, bool)
		boot, pmi string
	}{
		{"symrun", bootstrap.Info{Source: "symrun", Size: 2}, env("PMIX_RANK", "0"), "", ""},
		{"rendezvous given", bootstrap.Info{Source: "openmpi", Size: 2, Addr: "a:1"}, env("PMIX_RANK", "0"), "", ""},
		{"one rank", bootstrap.Info{Source: "openmpi", Size: 1}, env("PMIX_RANK", "0"), "", ""},
		{"mpirun", bootstrap.Info{Source: "openmpi", Size: 2}, env("PMIX_RANK", "1"), "MPI", ""},
		{"srun with PMIx", bootstrap.Info{Source: "slurm", Size: 2}, env("PMIX_RANK", "1"), "PMI", "PMIX"},
		{"srun without PMIx", bootstrap.Info{Source: "slurm", Size: 2}, env(), "PMI", "PMI-2"},
		{"PMI", bootstrap.Info{Source: "pmi", Size: 2}, env(), "PMI", "PMI"},
		{"the user's PMI", bootstrap.Info{Source: "slurm", Size: 2}, env("NVSHMEM_BOOTSTRAP_PMI", "PMIX"), "PMI", "PMIX"},
		{"the user's bootstrap", bootstrap.Info{Source: "slurm", Size: 2}, env("NVSHMEM_BOOTSTRAP", "MPI", "PMIX_RANK", "0"), "MPI", ""},
	}
	for _, c := range cases {
		if boot, pmi := bootstrapFor(c.info, c.env); boot != c.boot || pmi != c.pmi {
			t.Errorf("%s: %q, %q; want %q, %q", c.name, boot, pmi, c.boot, c.pmi)
		}
	}
}
