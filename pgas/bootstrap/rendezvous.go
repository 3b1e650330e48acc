package bootstrap

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"strings"
	"sync"
	"time"
)

// The rendezvous protocol: one request per TCP connection, one line each
// way; every request starts with the job's secret.
//
//	<secret> PUT <key> <hex value>   →  OK
//	<secret> GET <key>               →  VAL <hex value>   (once some rank has PUT it)
//	anything wrong                   →  ERR <reason>
//
// Keys are 1 to 64 characters of [A-Za-z0-9._-]; values at most MaxValue
// bytes; a server holds at most MaxKeys keys (set or awaited). A key is
// set once: a second PUT of it is an error. A request line longer than a
// PUT of MaxValue bytes, one not sent within RequestTimeout, or one
// without the server's secret is refused.
//
// A connection holds one of MaxPending slots until it has sent the secret,
// within AuthTimeout, and then one of MaxConns slots: strangers that
// connect and send nothing hold only the first kind, briefly, so they
// cannot keep the job's ranks out. A server with no free slot answers
// "ERR busy", and clients try again with back-off until their context
// ends.

// Limits of a rendezvous server.
const (
	MaxValue       = 64 << 10         // largest value, in bytes
	MaxKeys        = 1024             // keys set or awaited at once
	MaxConns       = 512              // connections past the secret served at once
	MaxPending     = 512              // connections not yet past the secret
	AuthTimeout    = 2 * time.Second  // to send the secret, from the connection's start
	RequestTimeout = 10 * time.Second // to send a request line
	maxLine        = 2*MaxValue + 256
	minSecret      = 16
	maxSecret      = 128
)

// NewSecret returns a fresh random secret for a job's rendezvous.
func NewSecret() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func checkSecret(s string) error {
	if len(s) < minSecret || len(s) > maxSecret || strings.ContainsAny(s, " \t\r\n") {
		return fmt.Errorf("bootstrap: the rendezvous secret (%s) must be %d to %d characters without spaces", EnvSecret, minSecret, maxSecret)
	}
	return nil
}

// request is one parsed request line.
type request struct {
	op, key string
	val     []byte
}

// parseRequest decodes a request line (without its newline) whose secret
// has been checked and removed.
func parseRequest(line string) (request, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return request{}, errors.New("empty request")
	}
	r := request{op: f[0]}
	switch {
	case r.op == "GET" && len(f) == 2:
	case r.op == "PUT" && len(f) == 3:
		if len(f[2]) > 2*MaxValue {
			return r, fmt.Errorf("value over %d bytes", MaxValue)
		}
		v, err := hex.DecodeString(f[2])
		if err != nil {
			return r, fmt.Errorf("value: %v", err)
		}
		r.val = v
	default:
		return r, fmt.Errorf("bad request %.40q", line)
	}
	r.key = f[1]
	if !validKey(r.key) {
		return r, fmt.Errorf("bad key %.70q", r.key)
	}
	return r, nil
}

func validKey(k string) bool {
	if len(k) == 0 || len(k) > 64 {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Server is a rendezvous: a key-value store whose reads wait for the write,
// for the clients that know its secret.
type Server struct {
	secret      string
	pending     chan struct{} // a token per connection yet to send the secret
	conns       chan struct{} // a token per connection past the secret
	authTimeout time.Duration // to send the secret: AuthTimeout
	timeout     time.Duration // to send a request line: RequestTimeout

	mu    sync.Mutex
	vals  map[string][]byte
	ready map[string]chan struct{} // closed when the key is set
}

// NewServer returns an empty rendezvous that answers requests carrying
// secret (see EnvSecret).
func NewServer(secret string) (*Server, error) {
	if err := checkSecret(secret); err != nil {
		return nil, err
	}
	return &Server{secret: secret, pending: make(chan struct{}, MaxPending), conns: make(chan struct{}, MaxConns),
		authTimeout: AuthTimeout, timeout: RequestTimeout, vals: map[string][]byte{}, ready: map[string]chan struct{}{}}, nil
}

// readyCh returns key's channel, or nil when the server holds MaxKeys
// keys already. Callers hold s.mu.
func (s *Server) readyCh(key string) chan struct{} {
	ch, ok := s.ready[key]
	if !ok {
		if len(s.ready) >= MaxKeys {
			return nil
		}
		ch = make(chan struct{})
		s.ready[key] = ch
	}
	return ch
}

// errFull is what a request for a new key gets once MaxKeys are held.
var errFull = fmt.Errorf("the rendezvous holds %d keys already", MaxKeys)

// put sets key's value, once.
func (s *Server) put(key string, val []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch := s.readyCh(key)
	if ch == nil {
		return errFull
	}
	if _, dup := s.vals[key]; dup {
		return fmt.Errorf("key %s is already set", key)
	}
	s.vals[key] = val
	close(ch)
	return nil
}

// Serve answers requests on ln until ctx ends (then it closes ln and
// returns nil). Failures to accept a connection (out of file
// descriptors, say) are waited out, not fatal; it returns an error only
// when ln itself is closed by someone else.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	backoff := time.Duration(0)
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			if errors.Is(err, net.ErrClosed) {
				return err
			}
			backoff = nextBackoff(backoff, 5*time.Millisecond)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(backoff):
			}
			continue
		}
		backoff = 0
		if !take(s.pending) {
			busy(c)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.handle(ctx, c)
		}()
	}
}

// nextBackoff doubles a wait from floor up to a second.
func nextBackoff(d, floor time.Duration) time.Duration { return min(max(2*d, floor), time.Second) }

// take takes a token of slots if one is free.
func take(slots chan struct{}) bool {
	select {
	case slots <- struct{}{}:
		return true
	default:
		return false
	}
}

// busy refuses c: no slot is free (the client tries again).
func busy(c net.Conn) {
	fmt.Fprint(c, "ERR busy\n")
	c.Close()
}

// handle serves c, which holds a pending slot: the secret within
// authTimeout, then, holding a slot of conns instead, the rest of the
// line within timeout.
func (s *Server) handle(ctx context.Context, c net.Conn) {
	pending := true
	defer func() {
		if pending {
			<-s.pending
		}
	}()
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	start := time.Now()
	c.SetReadDeadline(start.Add(s.authTimeout))
	br := bufio.NewReaderSize(c, maxLine)
	secret, err := br.ReadSlice(' ')
	if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
		return
	}
	if subtle.ConstantTimeCompare(secret, []byte(s.secret+" ")) != 1 {
		fmt.Fprint(c, "ERR wrong secret\n")
		return
	}
	<-s.pending
	pending = false
	if !take(s.conns) {
		busy(c)
		return
	}
	defer func() { <-s.conns }()
	c.SetReadDeadline(start.Add(s.timeout))
	line, err := br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		fmt.Fprintf(c, "ERR request line over %d bytes\n", maxLine)
		return
	}
	if err != nil {
		return
	}
	r, err := parseRequest(strings.TrimSuffix(string(line), "\n"))
	if err != nil {
		fmt.Fprintf(c, "ERR %v\n", err)
		return
	}
	if r.op == "PUT" {
		if err := s.put(r.key, r.val); err != nil {
			fmt.Fprintf(c, "ERR %v\n", err)
			return
		}
		fmt.Fprint(c, "OK\n")
		return
	}
	s.mu.Lock()
	ch := s.readyCh(r.key)
	s.mu.Unlock()
	if ch == nil {
		fmt.Fprintf(c, "ERR %v\n", errFull)
		return
	}
	c.SetReadDeadline(time.Time{})
	select {
	case <-ch:
	case <-ctx.Done():
		return
	}
	s.mu.Lock()
	v := s.vals[r.key]
	s.mu.Unlock()
	fmt.Fprintf(c, "VAL %s\n", hex.EncodeToString(v))
}

// call sends one request to the rendezvous at addr and returns the reply
// line, trying again with back-off until ctx ends while nothing listens
// there (the server may start after its clients) or the server is busy.
func call(ctx context.Context, addr, secret, req string) (string, error) {
	if err := checkSecret(secret); err != nil {
		return "", err
	}
	var d net.Dialer
	backoff := time.Duration(0)
	retry := func(last error) error {
		backoff = nextBackoff(backoff, 20*time.Millisecond)
		select {
		case <-ctx.Done():
			return fmt.Errorf("bootstrap: rendezvous %s: %w (last: %v)", addr, ctx.Err(), last)
		case <-time.After(backoff/2 + mrand.N(backoff/2+1)):
			return nil
		}
	}
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			if err := retry(err); err != nil {
				return "", err
			}
			continue
		}
		stop := context.AfterFunc(ctx, func() { c.Close() })
		_, err = fmt.Fprintf(c, "%s %s\n", secret, req)
		var line string
		if err == nil {
			line, err = bufio.NewReaderSize(c, maxLine).ReadString('\n')
		}
		stop()
		c.Close()
		if err != nil {
			if ctx.Err() != nil {
				return "", fmt.Errorf("bootstrap: rendezvous %s: %w", addr, ctx.Err())
			}
			return "", fmt.Errorf("bootstrap: rendezvous %s: %w", addr, err)
		}
		line = strings.TrimSuffix(line, "\n")
		if line == "ERR busy" {
			if err := retry(errors.New("busy")); err != nil {
				return "", err
			}
			continue
		}
		if msg, bad := strings.CutPrefix(line, "ERR "); bad {
			return "", fmt.Errorf("bootstrap: rendezvous %s: %s", addr, msg)
		}
		return line, nil
	}
}

// Put stores val under key at the rendezvous at addr.
func Put(ctx context.Context, addr, secret, key string, val []byte) error {
	if !validKey(key) || len(val) > MaxValue {
		return fmt.Errorf("bootstrap: bad key %q or value of %d bytes", key, len(val))
	}
	line, err := call(ctx, addr, secret, "PUT "+key+" "+hex.EncodeToString(val))
	if err == nil && line != "OK" {
		err = fmt.Errorf("bootstrap: rendezvous %s: unexpected reply %.40q", addr, line)
	}
	return err
}

// Get waits until key is stored at the rendezvous at addr and returns it.
func Get(ctx context.Context, addr, secret, key string) ([]byte, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("bootstrap: bad key %q", key)
	}
	line, err := call(ctx, addr, secret, "GET "+key)
	if err != nil {
		return nil, err
	}
	h, ok := strings.CutPrefix(line, "VAL ")
	if !ok {
		return nil, fmt.Errorf("bootstrap: rendezvous %s: unexpected reply %.40q", addr, line)
	}
	v, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("bootstrap: rendezvous %s: %w", addr, err)
	}
	return v, nil
}

// Share makes rank 0's value of key known to every rank: rank 0 computes
// it with produce and stores it, the others wait for it. Without a launcher
// serving the rendezvous, rank 0 serves it until ctx ends, listening on
// info.Addr itself (the address the other ranks dial), not on every
// interface.
func Share(ctx context.Context, info Info, key string, produce func() ([]byte, error)) ([]byte, error) {
	if info.Addr == "" {
		return nil, fmt.Errorf("bootstrap: %d ranks but no rendezvous: set %s=host:port for every rank (symrun does)", info.Size, EnvAddr)
	}
	if info.Secret == "" {
		return nil, fmt.Errorf("bootstrap: %d ranks but no rendezvous secret: set %s to the same random string for every rank (symrun does)", info.Size, EnvSecret)
	}
	if info.Rank != 0 {
		return Get(ctx, info.Addr, info.Secret, key)
	}
	if !info.Served {
		srv, err := NewServer(info.Secret)
		if err != nil {
			return nil, err
		}
		ln, err := net.Listen("tcp", info.Addr)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: rank 0 serving the rendezvous at %s (%s must name this host): %w", info.Addr, EnvAddr, err)
		}
		go srv.Serve(ctx, ln)
	}
	v, err := produce()
	if err != nil {
		return nil, err
	}
	return v, Put(ctx, info.Addr, info.Secret, key, v)
}
