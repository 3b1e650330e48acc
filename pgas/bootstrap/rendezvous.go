package bootstrap

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"
)

// The rendezvous protocol: one request per TCP connection, one line each
// way.
//
//	PUT <key> <hex value>   →  OK
//	GET <key>               →  VAL <hex value>   (once some rank has PUT it)
//	anything wrong          →  ERR <reason>
//
// Keys are 1 to 64 characters of [A-Za-z0-9._-]; values at most MaxValue
// bytes. A key is set once: a second PUT of it is an error.

// MaxValue is the largest value the rendezvous stores, in bytes.
const MaxValue = 64 << 10

// request is one parsed request line.
type request struct {
	op, key string
	val     []byte
}

// parseRequest decodes a request line (without its newline).
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

// Server is a rendezvous: a key-value store whose reads wait for the write.
type Server struct {
	mu    sync.Mutex
	vals  map[string][]byte
	ready map[string]chan struct{} // closed when the key is set
}

// NewServer returns an empty rendezvous.
func NewServer() *Server {
	return &Server{vals: map[string][]byte{}, ready: map[string]chan struct{}{}}
}

func (s *Server) readyCh(key string) chan struct{} {
	ch, ok := s.ready[key]
	if !ok {
		ch = make(chan struct{})
		s.ready[key] = ch
	}
	return ch
}

// Serve answers requests on ln until ctx ends (then it closes ln).
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.handle(ctx, c)
		}()
	}
}

func (s *Server) handle(ctx context.Context, c net.Conn) {
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	line, err := bufio.NewReaderSize(c, 2*MaxValue+128).ReadString('\n')
	if err != nil {
		return
	}
	r, err := parseRequest(strings.TrimSuffix(line, "\n"))
	if err != nil {
		fmt.Fprintf(c, "ERR %v\n", err)
		return
	}
	s.mu.Lock()
	ch := s.readyCh(r.key)
	if r.op == "PUT" {
		if _, dup := s.vals[r.key]; dup {
			s.mu.Unlock()
			fmt.Fprintf(c, "ERR key %s is already set\n", r.key)
			return
		}
		s.vals[r.key] = r.val
		close(ch)
		s.mu.Unlock()
		fmt.Fprint(c, "OK\n")
		return
	}
	s.mu.Unlock()
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
// line, dialling again until ctx ends while nothing listens there (the
// server may start after its clients).
func call(ctx context.Context, addr, req string) (string, error) {
	var d net.Dialer
	for {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			select {
			case <-ctx.Done():
				return "", fmt.Errorf("bootstrap: rendezvous %s: %w (last: %v)", addr, ctx.Err(), err)
			case <-time.After(50 * time.Millisecond):
				continue
			}
		}
		stop := context.AfterFunc(ctx, func() { c.Close() })
		_, err = fmt.Fprintf(c, "%s\n", req)
		var line string
		if err == nil {
			line, err = bufio.NewReaderSize(c, 2*MaxValue+128).ReadString('\n')
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
		if msg, bad := strings.CutPrefix(line, "ERR "); bad {
			return "", fmt.Errorf("bootstrap: rendezvous %s: %s", addr, msg)
		}
		return line, nil
	}
}

// Put stores val under key at the rendezvous at addr.
func Put(ctx context.Context, addr, key string, val []byte) error {
	if !validKey(key) || len(val) > MaxValue {
		return fmt.Errorf("bootstrap: bad key %q or value of %d bytes", key, len(val))
	}
	line, err := call(ctx, addr, "PUT "+key+" "+hex.EncodeToString(val))
	if err == nil && line != "OK" {
		err = fmt.Errorf("bootstrap: rendezvous %s: unexpected reply %.40q", addr, line)
	}
	return err
}

// Get waits until key is stored at the rendezvous at addr and returns it.
func Get(ctx context.Context, addr, key string) ([]byte, error) {
	if !validKey(key) {
		return nil, fmt.Errorf("bootstrap: bad key %q", key)
	}
	line, err := call(ctx, addr, "GET "+key)
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
// serving the rendezvous, rank 0 serves it at info.Addr until ctx ends.
func Share(ctx context.Context, info Info, key string, produce func() ([]byte, error)) ([]byte, error) {
	if info.Addr == "" {
		return nil, fmt.Errorf("bootstrap: %d ranks but no rendezvous: set %s=host:port for every rank (symrun does)", info.Size, EnvAddr)
	}
	if info.Rank != 0 {
		return Get(ctx, info.Addr, key)
	}
	if !info.Served {
		_, port, err := net.SplitHostPort(info.Addr)
		if err != nil {
			return nil, fmt.Errorf("bootstrap: %s=%q: %w", EnvAddr, info.Addr, err)
		}
		ln, err := net.Listen("tcp", ":"+port) // every interface: the others dial the name
		if err != nil {
			return nil, fmt.Errorf("bootstrap: rank 0 serving the rendezvous: %w", err)
		}
		go NewServer().Serve(ctx, ln)
	}
	v, err := produce()
	if err != nil {
		return nil, err
	}
	return v, Put(ctx, info.Addr, key, v)
}
