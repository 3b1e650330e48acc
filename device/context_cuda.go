//go:build cuda

package device

// #include <cuda.h>
import "C"

import (
	"fmt"
	"runtime"
)

// Context is a CUDA context on one GPU. CUDA makes a context current per
// OS thread, so every call runs through Do, which locks the goroutine to
// its thread and makes the context current there.
type Context struct {
	ordinal int
	dev     C.CUdevice
	ctx     C.CUcontext
	primary bool // the device's primary context: released, not destroyed
}

// NewContext creates a context on GPU ordinal. Close releases it and
// everything allocated in it.
func NewContext(ordinal int) (*Context, error) {
	d, err := get(ordinal)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx, err := ctxCreate(d)
	if err != nil {
		return nil, fmt.Errorf("device: context on GPU %d: %w", ordinal, err)
	}
	return &Context{ordinal: ordinal, dev: d, ctx: ctx}, nil
}

// PrimaryContext retains GPU ordinal's primary context: the one the CUDA
// runtime, and so libraries built on it (NVSHMEM), use. Close releases it.
func PrimaryContext(ordinal int) (*Context, error) {
	d, err := get(ordinal)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c, err := primaryRetain(d)
	if err != nil {
		return nil, fmt.Errorf("device: primary context of GPU %d: %w", ordinal, err)
	}
	return &Context{ordinal: ordinal, dev: d, ctx: c, primary: true}, nil
}

// Ordinal is the context's GPU.
func (c *Context) Ordinal() int { return c.ordinal }

// Do runs fn with the context current on a locked OS thread.
func (c *Context) Do(fn func() error) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := ctxSetCurrent(c.ctx); err != nil {
		return fmt.Errorf("device: make GPU %d's context current: %w", c.ordinal, err)
	}
	return fn()
}

// Alloc allocates n bytes of device memory.
func (c *Context) Alloc(n int64) (Ptr, error) {
	if n <= 0 {
		return 0, fmt.Errorf("device: allocation of %d bytes", n)
	}
	var p Ptr
	err := c.Do(func() (err error) {
		p, err = memAlloc(n)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("device: allocate %d bytes on GPU %d: %w", n, c.ordinal, err)
	}
	return p, nil
}

// Free frees device memory from Alloc.
func (c *Context) Free(p Ptr) error {
	return c.Do(func() error { return memFree(p) })
}

// CopyIn copies host bytes to device memory.
func (c *Context) CopyIn(dst Ptr, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return c.Do(func() error {
		if err := copyIn(dst, src, nil); err != nil {
			return err
		}
		return ctxSynchronize()
	})
}

// CopyOut copies device memory to host bytes.
func (c *Context) CopyOut(dst []byte, src Ptr) error {
	if len(dst) == 0 {
		return nil
	}
	return c.Do(func() error {
		if err := copyOut(dst, src, nil); err != nil {
			return err
		}
		return ctxSynchronize()
	})
}

// EnablePeer lets this context access peer's memory directly (NVLink or
// PCIe P2P). Enabling twice is not an error.
func (c *Context) EnablePeer(peer *Context) error {
	err := c.Do(func() error { return enablePeer(peer.ctx) })
	if err != nil {
		return fmt.Errorf("device: peer access GPU %d → GPU %d: %w", c.ordinal, peer.ordinal, err)
	}
	return nil
}

// MemInfo reports the GPU's free and total memory in bytes.
func (c *Context) MemInfo() (free, total int64, err error) {
	err = c.Do(func() (err error) {
		free, total, err = memInfo()
		return err
	})
	return free, total, err
}

// Close destroys the context (releases it, for a primary context).
func (c *Context) Close() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if c.primary {
		return primaryRelease(c.dev)
	}
	return ctxDestroy(c.ctx)
}

// CopyPeer copies n bytes from src in context sc to dst in context dc and
// returns when the copy is complete.
func CopyPeer(dst Ptr, dc *Context, src Ptr, sc *Context, n int64) error {
	err := dc.Do(func() error {
		if err := memcpyPeer(dst, dc.ctx, src, sc.ctx, n); err != nil {
			return fmt.Errorf("device: peer copy of %d bytes GPU %d → GPU %d: %w", n, sc.ordinal, dc.ordinal, err)
		}
		return ctxSynchronize()
	})
	if err != nil {
		return err
	}
	return sc.Do(ctxSynchronize)
}
