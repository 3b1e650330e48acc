// Package seal holds the hash that lets a reader tell a whole record from
// a torn one where no fence orders a record's words before the word that
// announces it: the agent's requests and answers (pgas/internal/gpuop)
// and mailbox slots on GPUs (package actors). The writer stores the XOR
// of Mix(w, i) over the record's words w at their indices i beside them;
// a reader re-reads until what it read agrees. kernels/symchan.cu
// (agent_mix) and kernels/symchan.cuh (symchan_seal_mix) compute the same
// function on the GPU.
package seal

// phi spreads a word's index over the hash.
const phi = 0x9e3779b97f4a7c15

// Mix is the hash term of word w at index i: splitmix64's finaliser over
// w ^ i·φ.
func Mix(w, i uint64) uint64 {
	w ^= i * phi
	w ^= w >> 30
	w *= 0xbf58476d1ce4e5b9
	w ^= w >> 27
	w *= 0x94d049bb133111eb
	return w ^ w>>31
}
