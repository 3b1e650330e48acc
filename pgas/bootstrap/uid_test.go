package bootstrap

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The child processes of TestUniqueIDAcrossProcesses find their part in
// these variables (the test binary runs itself).
const (
	envTestUID  = "SYMCHAN_TEST_UID"
	envTestRank = "SYMCHAN_TEST_UID_RANK"
	envTestSize = "SYMCHAN_TEST_UID_SIZE"
)

// Processes started by the test form one job from a unique id with no
// launcher: the parent makes the id and is rank 0; three children get its
// text in their environment, Join, and all four agree on rank 0's value
// through the job's rendezvous (Share, as a backend's start does); each
// child then reports its rank under a key of its own, which the parent
// reads.
func TestUniqueIDAcrossProcesses(t *testing.T) {
	if os.Getenv(envTestUID) != "" {
		t.Skip("a child of this test")
	}
	const size = 4
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id, err := NewUniqueID(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	children := make([]*exec.Cmd, 0, size-1)
	outs := make([]*strings.Builder, 0, size-1)
	for r := 1; r < size; r++ {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestUniqueIDChild$", "-test.v")
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		cmd.Env = append(os.Environ(), envTestUID+"="+string(id), envTestRank+"="+strconv.Itoa(r), envTestSize+"="+strconv.Itoa(size))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		children, outs = append(children, cmd), append(outs, out)
	}
	info, err := Join(ctx, id, 0, size)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Share(ctx, info, "greeting", func() ([]byte, error) { return []byte("from rank 0"), nil })
	if err != nil || string(v) != "from rank 0" {
		t.Fatalf("Share on rank 0: %q, %v", v, err)
	}
	for r := 1; r < size; r++ {
		got, err := Get(ctx, info.Addr, info.Secret, fmt.Sprintf("child.%d", r))
		if err != nil || string(got) != fmt.Sprintf("rank %d of %d got from rank 0", r, size) {
			t.Errorf("child %d reported %q, %v", r, got, err)
		}
	}
	for i, cmd := range children {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v\n%s", i+1, err, outs[i])
		}
	}
}

// TestUniqueIDChild is a process of TestUniqueIDAcrossProcesses's job.
func TestUniqueIDChild(t *testing.T) {
	id := os.Getenv(envTestUID)
	if id == "" {
		t.Skip("run by TestUniqueIDAcrossProcesses")
	}
	rank, _ := strconv.Atoi(os.Getenv(envTestRank))
	size, _ := strconv.Atoi(os.Getenv(envTestSize))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	info, err := Join(ctx, UniqueID(id), rank, size)
	if err != nil {
		t.Fatal(err)
	}
	if info.Rank != rank || info.Size != size || info.Source != "uid" || !info.Served {
		t.Fatalf("Join: %+v", info)
	}
	v, err := Share(ctx, info, "greeting", func() ([]byte, error) { return nil, errors.New("only rank 0 produces") })
	if err != nil {
		t.Fatal(err)
	}
	if err := Put(ctx, info.Addr, info.Secret, fmt.Sprintf("child.%d", rank), []byte(fmt.Sprintf("rank %d of %d got %s", rank, size, v))); err != nil {
		t.Fatal(err)
	}
}

// Join refuses what is not a unique id and ranks outside the job, before
// it dials; NewUniqueID wants a host the others can dial.
func TestUniqueIDRefusals(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	good := UniqueID(uidPrefix + "127.0.0.1:1/" + testSecret)
	for _, c := range []struct {
		name       string
		id         UniqueID
		rank, size int
		want       string
	}{
		{"empty", "", 0, 2, ErrBadUniqueID.Error()},
		{"no prefix", "127.0.0.1:1/" + testSecret, 0, 2, ErrBadUniqueID.Error()},
		{"no secret", uidPrefix + "127.0.0.1:1", 0, 2, ErrBadUniqueID.Error()},
		{"short secret", uidPrefix + "127.0.0.1:1/abc", 0, 2, ErrBadUniqueID.Error()},
		{"no port", UniqueID(uidPrefix + "127.0.0.1/" + testSecret), 0, 2, ErrBadUniqueID.Error()},
		{"rank negative", good, -1, 2, "want 0 ≤ rank < size"},
		{"rank too big", good, 2, 2, "want 0 ≤ rank < size"},
		{"size zero", good, 0, 0, "want 0 ≤ rank < size"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Join(ctx, c.id, c.rank, c.size); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Join: %v, want an error containing %q", err, c.want)
			}
		})
	}
	for _, addr := range []string{":0", "127.0.0.1", "nonsense"} {
		if _, err := NewUniqueID(ctx, addr); err == nil {
			t.Errorf("NewUniqueID(%q) succeeded", addr)
		}
	}
}

// Join waits for a rendezvous that does not answer yet, and gives up with
// its context.
func TestJoinEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	// A port nothing listens on: taken, then given back.
	mk, stop := context.WithCancel(context.Background())
	id, err := NewUniqueID(mk, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop()
	time.Sleep(50 * time.Millisecond)
	if _, err := Join(ctx, id, 1, 2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Join with no rendezvous: %v, want the context's deadline", err)
	}
}

// parse takes any text without panicking, and what it accepts is an
// address Join can dial and a secret the rendezvous accepts, which make
// the same id again.
func FuzzUniqueIDParse(f *testing.F) {
	f.Add(uidPrefix + "127.0.0.1:29500/" + testSecret)
	f.Add(uidPrefix + "[::1]:1/" + testSecret)
	f.Add(uidPrefix + "host:0/short")
	f.Add("symchan-uid-v2:127.0.0.1:1/" + testSecret)
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		addr, secret, err := UniqueID(s).parse()
		if err != nil {
			return
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			t.Fatalf("%q: accepted address %q: %v", s, addr, err)
		}
		if err := checkSecret(secret); err != nil {
			t.Fatalf("%q: accepted secret %q: %v", s, secret, err)
		}
		if again := UniqueID(uidPrefix + addr + "/" + secret); again != UniqueID(s) {
			t.Fatalf("%q parsed as %q and %q, which make %q", s, addr, secret, again)
		}
	})
}
