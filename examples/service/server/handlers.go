package server

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/symchan/symchan/actors/service"
)

// maxBody bounds a request's body: a job is a few numbers.
const maxBody = 4 << 10

// jacobiRequest is POST /v1/jacobi's body.
type jacobiRequest struct {
	N         *int64 `json:"n"`
	Iters     *int64 `json:"iters"`
	PE        *int   `json:"pe"`         // default: the least busy local PE
	TimeoutMS *int64 `json:"timeout_ms"` // default: Config.Timeout
}

type jacobiResponse struct {
	PE           int32   `json:"pe"`
	N            int64   `json:"n"`
	Iters        int64   `json:"iters"`
	Norm         float64 `json:"norm"`
	SolveSeconds float64 `json:"solve_seconds"`
}

type errorResponse struct {
	Error     string `json:"error"`
	Field     string `json:"field,omitempty"`
	RequestID string `json:"request_id"`
}

func (s *Server) jacobi(w http.ResponseWriter, r *http.Request) {
	req, err := s.decode(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	job := Job{N: *req.N, Iters: *req.Iters}
	timeout := s.cfg.Timeout
	if req.TimeoutMS != nil {
		timeout = time.Duration(*req.TimeoutMS) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	pe := -1
	if req.PE != nil {
		pe = *req.PE
	}
	if s.admit != nil { // shed at once what the PEs could not start soon
		select {
		case s.admit <- struct{}{}:
			defer func() { <-s.admit }()
		default:
			s.fail(w, r, fmt.Errorf("%w: %d jobs already admitted (ConcurrencyPerPE)", service.ErrOverloaded, cap(s.admit)))
			return
		}
	}
	res, err := s.exec.call(ctx, pe, job)
	if err == nil {
		setPE(r, int(res.PE))
	} else if req.PE != nil {
		setPE(r, pe)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, jacobiResponse{PE: res.PE, N: job.N, Iters: job.Iters, Norm: res.Norm, SolveSeconds: float64(res.Nanos) / 1e9})
}

// decode reads and validates a job request; its errors are the client's.
func (s *Server) decode(w http.ResponseWriter, r *http.Request) (jacobiRequest, error) {
	// The body must be JSON whatever its Content-Type says: curl -d
	// labels it a form.
	var req jacobiRequest
	body := io.Reader(http.MaxBytesReader(w, r.Body, maxBody))
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
	case "gzip", "x-gzip":
		// Compressed and decompressed, the body is bounded by maxBody.
		zr, err := gzip.NewReader(body)
		if err != nil {
			return req, &httpError{http.StatusBadRequest, "the gzip body is malformed: " + err.Error(), ""}
		}
		defer zr.Close()
		body = &limitedBody{r: zr, left: maxBody}
	default:
		return req, &httpError{http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Encoding %q is not supported (gzip or none)", enc), ""}
	}
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, jsonError(err)
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		return req, &httpError{http.StatusBadRequest, "the body holds more than one JSON object", ""}
	}
	switch {
	case req.N == nil:
		return req, &fieldError{"n", "required"}
	case req.Iters == nil:
		return req, &fieldError{"iters", "required"}
	}
	if err := s.cfg.Limits.check(Job{N: *req.N, Iters: *req.Iters}); err != nil {
		return req, err
	}
	if n := s.exec.numPEs(); req.PE != nil && (*req.PE < 0 || *req.PE >= n) {
		return req, &fieldError{"pe", fmt.Sprintf("must be between 0 and %d, got %d", n-1, *req.PE)}
	}
	if req.TimeoutMS != nil && (*req.TimeoutMS < 1 || *req.TimeoutMS > 600_000) {
		return req, &fieldError{"timeout_ms", fmt.Sprintf("must be between 1 and 600000, got %d", *req.TimeoutMS)}
	}
	return req, nil
}

// limitedBody reads at most left bytes of r, then fails with the error a
// body over maxBody gets (a gzip body that inflates past it).
type limitedBody struct {
	r    io.Reader
	left int64
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, &http.MaxBytesError{Limit: maxBody}
	}
	if int64(len(p)) > l.left {
		p = p[:l.left+1] // one more byte tells a body of exactly left from a longer one
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n + int(l.left), &http.MaxBytesError{Limit: maxBody}
	}
	return n, err
}

// jsonError turns a decoding error into a 400 (413 for a body too large)
// that names the field where it can.
func jsonError(err error) error {
	var tooLarge *http.MaxBytesError
	var typeErr *json.UnmarshalTypeError
	var syntax *json.SyntaxError
	switch {
	case errors.As(err, &tooLarge):
		return &httpError{http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is larger than %d bytes", tooLarge.Limit), ""}
	case errors.As(err, &typeErr) && typeErr.Field == "":
		return &httpError{http.StatusBadRequest, "the body must be a JSON object, got a JSON " + typeErr.Value, ""}
	case errors.As(err, &typeErr):
		return &fieldError{typeErr.Field, fmt.Sprintf("must be %v, got a JSON %s", typeErr.Type, typeErr.Value)}
	case errors.As(err, &syntax):
		return &httpError{http.StatusBadRequest, fmt.Sprintf("malformed JSON at byte %d: %v", syntax.Offset, err), ""}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &httpError{http.StatusBadRequest, "malformed JSON: the body is empty or cut short", ""}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		f := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &fieldError{f, "unknown field"}
	}
	return &httpError{http.StatusBadRequest, "malformed JSON: " + err.Error(), ""}
}

// httpError is an answer other than 200.
type httpError struct {
	code       int
	msg, field string
}

func (e *httpError) Error() string { return e.msg }

// fail answers err with the status that says whose fault it is: 4xx for
// the request's, 503 while the world cannot take it (overloaded: a call
// that did not start, even where its deadline passed meanwhile), 504 when
// its deadline passed under way, 500 when a PE failed under it.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var he *httpError
	var fe *fieldError
	switch {
	case errors.As(err, &he):
	case errors.As(err, &fe):
		he = &httpError{http.StatusBadRequest, fe.Error(), fe.Field}
	case errors.Is(err, service.ErrOverloaded):
		w.Header().Set("Retry-After", "1")
		he = &httpError{http.StatusServiceUnavailable, err.Error(), ""}
	case errors.Is(err, service.ErrRestarting), errors.Is(err, service.ErrStopped):
		// The cause (a PE's panic, once supervision gave up) is the
		// operator's, as a 500's is: the client gets what state the
		// service is in.
		s.log.Warn("request refused", "request_id", requestID(r), "path", r.URL.Path, "err", err)
		w.Header().Set("Retry-After", "1")
		msg := "the service is restarting"
		if errors.Is(err, service.ErrStopped) {
			msg = "the service has stopped"
		}
		he = &httpError{http.StatusServiceUnavailable, msg + " (request " + requestID(r) + ")", ""}
	case errors.Is(err, context.DeadlineExceeded):
		he = &httpError{http.StatusGatewayTimeout, "the request's deadline passed: " + err.Error(), ""}
	case errors.Is(err, context.Canceled) && r.Context().Err() != nil:
		he = &httpError{499, "the client went away", ""} // nobody reads it
	default:
		// The detail (a PE's failure) is the operator's: it goes to the
		// log, and the client gets the ID to quote.
		s.log.Error("request failed", "request_id", requestID(r), "path", r.URL.Path, "err", err)
		he = &httpError{http.StatusInternalServerError, "internal error (request " + requestID(r) + ")", ""}
	}
	s.writeError(w, r, he)
}

// writeError answers he as JSON, with r's request ID.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, he *httpError) {
	writeJSON(w, he.code, errorResponse{Error: he.msg, Field: he.field, RequestID: requestID(r)})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	select {
	case <-s.Done(): // supervision gave up, or the world was closed: restart the process
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "stopped"})
		return
	default:
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
		return
	}
	if st := s.exec.state(); st != "ready" {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": st})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}
