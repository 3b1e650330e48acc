package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
)

// A UniqueID lets processes that already share a few bytes by means of
// their own (service discovery, a key-value store, a flag) form one job
// with no launcher, as NCCL's and NVSHMEM's unique-id bootstraps do: one
// process makes it with NewUniqueID, which serves the job's rendezvous,
// and hands its text to the others; every process, the maker too, then
// calls Join with its rank and the job's size, and gives what Join returns
// to a multi-process backend (nvshmem.Backend's Job). The text holds the
// rendezvous' address and the job's secret, so share it as a secret.
type UniqueID string

// uidPrefix leads every UniqueID's text, naming its layout:
// symchan-uid-v1:host:port/secret.
const uidPrefix = "symchan-uid-v1:"

// uidReady is the key NewUniqueID sets before it serves: Join reads it
// to find the rendezvous up and the secret right.
const uidReady = "uid.ready"

// NewUniqueID makes a job's unique id and serves its rendezvous until ctx
// ends, so ctx must outlast every process's Join and its backend's start.
// addr is host:port where the job's other processes reach this one; port 0
// picks a free port, and the host must be named (the id carries it), e.g.
// "10.0.0.5:0" or, for processes of one machine, "127.0.0.1:0". It listens
// on that address only, not on every interface.
func NewUniqueID(ctx context.Context, addr string) (UniqueID, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("bootstrap: NewUniqueID(%q): want host:port: %w", addr, err)
	}
	if host == "" {
		return "", fmt.Errorf("bootstrap: NewUniqueID(%q): name the host the other processes dial", addr)
	}
	secret := NewSecret()
	srv, err := NewServer(secret)
	if err != nil {
		return "", err
	}
	if err := srv.put(uidReady, []byte{1}); err != nil {
		return "", err
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return "", fmt.Errorf("bootstrap: NewUniqueID: %w", err)
	}
	go srv.Serve(ctx, ln)
	return UniqueID(uidPrefix + ln.Addr().String() + "/" + secret), nil
}

// ErrBadUniqueID is returned by Join for a text that is not a UniqueID.
var ErrBadUniqueID = errors.New("bootstrap: not a unique id (want the text NewUniqueID made)")

// parse splits id into its rendezvous' address and secret.
func (id UniqueID) parse() (addr, secret string, err error) {
	rest, ok := strings.CutPrefix(string(id), uidPrefix)
	if !ok {
		return "", "", ErrBadUniqueID
	}
	addr, secret, ok = strings.Cut(rest, "/")
	if _, _, err := net.SplitHostPort(addr); !ok || err != nil {
		return "", "", ErrBadUniqueID
	}
	if err := checkSecret(secret); err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrBadUniqueID, err)
	}
	return addr, secret, nil
}

// Join returns this process's place in the job that id names: rank of
// size, with id's rendezvous to agree on startup data. It waits, until
// ctx ends, for the rendezvous to answer (the maker may not serve yet).
// Its rank on its node is taken to be its rank (with several GPUs, a
// backend uses GPU rank mod their count, right where each node runs as
// many ranks as it has GPUs); set LocalRank and LocalSize when it differs.
func Join(ctx context.Context, id UniqueID, rank, size int) (Info, error) {
	addr, secret, err := id.parse()
	if err != nil {
		return Info{}, err
	}
	if size < 1 || rank < 0 || rank >= size {
		return Info{}, fmt.Errorf("bootstrap: Join: rank %d of %d: want 0 ≤ rank < size", rank, size)
	}
	if _, err := Get(ctx, addr, secret, uidReady); err != nil {
		return Info{}, fmt.Errorf("bootstrap: Join: %w", err)
	}
	return Info{Rank: rank, Size: size, LocalRank: rank, Addr: addr, Served: true, Secret: secret, Source: "uid"}, nil
}
