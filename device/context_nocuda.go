//go:build !cuda

package device

// Context is a CUDA context on one GPU.
type Context struct{}

// NewContext creates a context on GPU ordinal.
func NewContext(ordinal int) (*Context, error) { return nil, ErrNoCUDA }

// PrimaryContext returns ErrNoCUDA.
func PrimaryContext(ordinal int) (*Context, error) { return nil, ErrNoCUDA }

// Ordinal is the context's GPU.
func (c *Context) Ordinal() int { return -1 }

// Do runs fn with the context current on a locked OS thread.
func (c *Context) Do(fn func() error) error { return ErrNoCUDA }

// Alloc allocates n bytes of device memory.
func (c *Context) Alloc(n int64) (Ptr, error) { return 0, ErrNoCUDA }

// Free frees device memory from Alloc.
func (c *Context) Free(p Ptr) error { return ErrNoCUDA }

// CopyIn copies host bytes to device memory.
func (c *Context) CopyIn(dst Ptr, src []byte) error { return ErrNoCUDA }

// CopyOut copies device memory to host bytes.
func (c *Context) CopyOut(dst []byte, src Ptr) error { return ErrNoCUDA }

// EnablePeer lets this context access peer's memory.
func (c *Context) EnablePeer(peer *Context) error { return ErrNoCUDA }

// MemInfo reports the GPU's free and total memory in bytes.
func (c *Context) MemInfo() (free, total int64, err error) { return 0, 0, ErrNoCUDA }

// Close destroys the context.
func (c *Context) Close() error { return ErrNoCUDA }

// CopyPeer copies n bytes from src in context sc to dst in context dc.
func CopyPeer(dst Ptr, dc *Context, src Ptr, sc *Context, n int64) error { return ErrNoCUDA }
