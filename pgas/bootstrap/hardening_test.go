package bootstrap

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

const testSecret = "0123456789abcdef0123"

// raw sends one raw request line (or bytes without a newline) and returns
// the reply line.
func raw(t *testing.T, addr, req string) string {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	go fmt.Fprint(c, req)
	line, _ := bufio.NewReader(c).ReadString('\n')
	return strings.TrimSuffix(line, "\n")
}

// Only the job's ranks, which know its secret, can read or plant values:
// a stranger's PUT of the key the ranks will set is refused, and so is a
// wrong secret on a GET.
func TestRendezvousSecret(t *testing.T) {
	addr := serve(t)
	if got := raw(t, addr, "PUT uid 00\n"); !strings.HasPrefix(got, "ERR") {
		t.Errorf("PUT without the secret: %q", got)
	}
	if got := raw(t, addr, "wrongwrongwrongwrong PUT uid 00\n"); got != "ERR wrong secret" {
		t.Errorf("PUT with a wrong secret: %q", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := Put(ctx, addr, testSecret, "uid", []byte{1}); err != nil {
		t.Fatalf("the job's own PUT after the strangers': %v", err)
	}
	if _, err := Get(ctx, addr, "wrongwrongwrongwrong", "uid"); err == nil || !strings.Contains(err.Error(), "wrong secret") {
		t.Errorf("GET with a wrong secret: %v", err)
	}
	if _, err := NewServer("short"); err == nil {
		t.Error("NewServer with a 5-character secret: no error")
	}
	if a, b := NewSecret(), NewSecret(); len(a) < minSecret || a == b {
		t.Error("NewSecret does not make fresh secrets of a valid length")
	}
}

// A line that never ends, one over the limit, and more keys than MaxKeys
// are refused rather than grow the server.
func TestRendezvousLimits(t *testing.T) {
	addr := serve(t)
	long := testSecret + " PUT k " + strings.Repeat("00", MaxValue+200)
	if got := raw(t, addr, long); !strings.Contains(got, "ERR request line over") {
		t.Errorf("a request line without a newline, over the limit: %q", got[:min(len(got), 80)])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := range MaxKeys {
		if err := Put(ctx, addr, testSecret, fmt.Sprintf("k%d", i), []byte{1}); err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
	}
	if err := Put(ctx, addr, testSecret, "one-more", []byte{1}); err == nil || !strings.Contains(err.Error(), "keys already") {
		t.Errorf("key %d: %v, want a refusal", MaxKeys+1, err)
	}
}

// A client that connects and sends nothing is dropped after the request
// timeouts (AuthTimeout, RequestTimeout; shortened here).
func TestRendezvousSilentClientDropped(t *testing.T) {
	srv, _ := NewServer(testSecret)
	srv.timeout, srv.authTimeout = 50*time.Millisecond, 50*time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, ln)
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	if _, err := c.Read(make([]byte, 1)); err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("a silent client was kept %v (read: %v)", time.Since(start), err)
	}
}

// flakyListener fails its first accepts as a process out of file
// descriptors does.
type flakyListener struct {
	net.Listener
	fails atomic.Int32
}

func (l *flakyListener) Accept() (net.Conn, error) {
	if l.fails.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Err: syscall.EMFILE}
	}
	return l.Listener.Accept()
}

// Failed accepts are waited out: the server still answers afterwards.
func TestRendezvousSurvivesAcceptErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fl := &flakyListener{Listener: ln}
	fl.fails.Store(5)
	srv, _ := NewServer(testSecret)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, fl) }()
	cctx, ccancel := context.WithTimeout(ctx, 10*time.Second)
	defer ccancel()
	if err := Put(cctx, ln.Addr().String(), testSecret, "k", []byte{7}); err != nil {
		t.Fatalf("Put after accept errors: %v", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	// A listener closed by someone else ends Serve with an error.
	ln2, _ := net.Listen("tcp", "127.0.0.1:0")
	go func() { time.Sleep(20 * time.Millisecond); ln2.Close() }()
	srv2, _ := NewServer(testSecret)
	if err := srv2.Serve(context.Background(), ln2); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Serve on a closed listener: %v", err)
	}
}

// Rank 0 listens on the rendezvous address itself, not on every
// interface: a port taken on that address is an error naming it.
func TestShareListensOnTheAddressGiven(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	info := Info{Rank: 0, Size: 2, Addr: ln.Addr().String(), Secret: testSecret}
	if _, err := Share(ctx, info, "uid", func() ([]byte, error) { return []byte("x"), nil }); err == nil || !strings.Contains(err.Error(), ln.Addr().String()) {
		t.Fatalf("Share on a taken address: %v", err)
	}
}

// Strangers that connect and never send the secret cannot keep the job's
// ranks out: they hold a pending slot for AuthTimeout at most, and a rank
// refused as busy tries again.
func TestRendezvousIdleStrangersDoNotStarveRanks(t *testing.T) {
	addr := serve(t)
	var idle []net.Conn
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for range MaxPending + 88 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), AuthTimeout+5*time.Second)
	defer cancel()
	start := time.Now()
	if err := Put(ctx, addr, testSecret, "uid", []byte{1}); err != nil {
		t.Fatalf("a rank's Put behind %d idle strangers: %v", len(idle), err)
	}
	if v, err := Get(ctx, addr, testSecret, "uid"); err != nil || len(v) != 1 {
		t.Fatalf("a rank's Get: %v, %v", v, err)
	}
	t.Logf("served after %v", time.Since(start))
}
