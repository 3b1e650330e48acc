//go:build !cuda

package device

import "unsafe"

// Stream is a CUDA stream; without the cuda tag every method returns ErrNoCUDA.
type Stream struct{}

// NewStream returns ErrNoCUDA.
func (c *Context) NewStream() (*Stream, error) { return nil, ErrNoCUDA }

// Handle returns nil.
func (s *Stream) Handle() unsafe.Pointer { return nil }

// Context returns nil.
func (s *Stream) Context() *Context { return nil }

// Sync returns ErrNoCUDA.
func (s *Stream) Sync() error { return ErrNoCUDA }

// Done returns ErrNoCUDA.
func (s *Stream) Done() (bool, error) { return false, ErrNoCUDA }

// Destroy returns ErrNoCUDA.
func (s *Stream) Destroy() error { return ErrNoCUDA }

// CopyIn returns ErrNoCUDA.
func (s *Stream) CopyIn(Ptr, []byte) error { return ErrNoCUDA }

// CopyOut returns ErrNoCUDA.
func (s *Stream) CopyOut([]byte, Ptr) error { return ErrNoCUDA }

// CopyIn2D returns ErrNoCUDA.
func (s *Stream) CopyIn2D(Ptr, int64, []byte, int64, int64, int64) error { return ErrNoCUDA }

// CopyOut2D returns ErrNoCUDA.
func (s *Stream) CopyOut2D([]byte, int64, Ptr, int64, int64, int64) error { return ErrNoCUDA }

// CopyPeer returns ErrNoCUDA.
func (s *Stream) CopyPeer(Ptr, *Context, Ptr, *Context, int64) error { return ErrNoCUDA }

// Memset returns ErrNoCUDA.
func (s *Stream) Memset(Ptr, byte, int64) error { return ErrNoCUDA }

// WriteValue64 returns ErrNoCUDA.
func (s *Stream) WriteValue64(Ptr, uint64) error { return ErrNoCUDA }

// WaitValue64 returns ErrNoCUDA.
func (s *Stream) WaitValue64(Ptr, uint64) error { return ErrNoCUDA }

// Launch returns ErrNoCUDA.
func (s *Stream) Launch(*Function, Dim3, Dim3, int, ...uint64) error { return ErrNoCUDA }

// LaunchCooperative returns ErrNoCUDA.
func (s *Stream) LaunchCooperative(*Function, Dim3, Dim3, int, ...uint64) error { return ErrNoCUDA }

// Module is loaded PTX; without the cuda tag it cannot exist.
type Module struct{}

// LoadModule returns ErrNoCUDA.
func (c *Context) LoadModule(string) (*Module, error) { return nil, ErrNoCUDA }

// Function is a kernel of a Module.
type Function struct{}

// Function returns ErrNoCUDA.
func (m *Module) Function(string) (*Function, error) { return nil, ErrNoCUDA }

// HostMem is mapped pinned host memory.
type HostMem struct{}

// HostAlloc returns ErrNoCUDA.
func (c *Context) HostAlloc(int) (*HostMem, error) { return nil, ErrNoCUDA }

// Bytes returns nil.
func (h *HostMem) Bytes() []byte { return nil }

// Ptr returns 0.
func (h *HostMem) Ptr() Ptr { return 0 }

// Free returns ErrNoCUDA.
func (h *HostMem) Free() error { return ErrNoCUDA }

// Event marks a point in a stream.
type Event struct{}

// NewEvent returns ErrNoCUDA.
func (c *Context) NewEvent() (*Event, error) { return nil, ErrNoCUDA }

// Record returns ErrNoCUDA.
func (e *Event) Record(*Stream) error { return ErrNoCUDA }

// Sync returns ErrNoCUDA.
func (e *Event) Sync() error { return ErrNoCUDA }

// Destroy returns ErrNoCUDA.
func (e *Event) Destroy() error { return ErrNoCUDA }

// Elapsed returns ErrNoCUDA.
func Elapsed(*Event, *Event) (float32, error) { return 0, ErrNoCUDA }

// LinkModule JIT-links ptx, compiled as relocatable device code (nvcc
// -rdc), with the archives of device code libs names and loads the result
// (with the cuda build tag; here it returns ErrNoCUDA).
func (c *Context) LinkModule(ptx string, libs ...string) (*Module, error) { return nil, ErrNoCUDA }

// Handle is the module's CUmodule (nil without the cuda build tag).
func (m *Module) Handle() unsafe.Pointer { return nil }
