//go:build cuda

package device

// The CUDA driver API calls of the package, through cgo against cuda.h
// and libcuda: the driver is initialised on first use (driverInit), so a
// cuda-tagged binary runs, and reports an error, where no driver is.

/*
#cgo LDFLAGS: -lcuda
#include <cuda.h>
#include <stdlib.h>
#include <stdint.h>

static CUresult symchan_host_alloc(size_t n, void **host, CUdeviceptr *dev) {
	CUresult r = cuMemHostAlloc(host, n, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
	if (r != CUDA_SUCCESS) return r;
	return cuMemHostGetDevicePointer(dev, *host, 0);
}

static CUresult symchan_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                               unsigned shared, CUstream s, unsigned long long *args, int nargs, int cooperative) {
	void *ptrs[32];
	for (int i = 0; i < nargs && i < 32; i++) ptrs[i] = &args[i];
	if (cooperative)
		return cuLaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, shared, s, ptrs);
	return cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, s, ptrs, NULL);
}

// Host addresses come as integers: Go's cgo pointer check rejects Go
// memory that holds pointers (a byte slice inside a struct), though the
// copies only touch the bytes. Pageable copies are complete (DtoH) or
// staged (HtoD) when these return, so the memory is not kept.
static CUresult symchan_htod(CUdeviceptr dst, uintptr_t src, size_t n, CUstream s) {
	return cuMemcpyHtoDAsync(dst, (const void *)src, n, s);
}
static CUresult symchan_dtoh(uintptr_t dst, CUdeviceptr src, size_t n, CUstream s) {
	return cuMemcpyDtoHAsync((void *)dst, src, n, s);
}

// 2-D copies between host memory (pitch hp) and device memory (pitch dp):
// height rows of width bytes.
static CUresult symchan_copy2d(int to_device, CUdeviceptr dev, size_t dp, uintptr_t host, size_t hp, size_t width, size_t height, CUstream s) {
	CUDA_MEMCPY2D c = {0};
	c.WidthInBytes = width;
	c.Height = height;
	if (to_device) {
		c.srcMemoryType = CU_MEMORYTYPE_HOST;
		c.srcHost = (const void *)host;
		c.srcPitch = hp;
		c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		c.dstDevice = dev;
		c.dstPitch = dp;
	} else {
		c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
		c.srcDevice = dev;
		c.srcPitch = dp;
		c.dstMemoryType = CU_MEMORYTYPE_HOST;
		c.dstHost = (void *)host;
		c.dstPitch = hp;
	}
	return cuMemcpy2DAsync(&c, s);
}

static const char *symchan_error_name(CUresult r) {
	const char *s = NULL;
	cuGetErrorName(r, &s);
	return s ? s : "unknown CUDA error";
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

var (
	initOnce sync.Once
	initErr  error
)

// driverInit initialises the CUDA driver once; every entry point that
// does not start from a Context calls it first.
func driverInit() error {
	initOnce.Do(func() { initErr = check("cuInit", C.cuInit(0)) })
	return initErr
}

func deviceCount() (int, error) {
	if err := driverInit(); err != nil {
		return 0, err
	}
	var n C.int
	return int(n), check("cuDeviceGetCount", C.cuDeviceGetCount(&n))
}

func deviceGet(ordinal int) (C.CUdevice, error) {
	var d C.CUdevice
	return d, check("cuDeviceGet", C.cuDeviceGet(&d, C.int(ordinal)))
}

func deviceAttribute(d C.CUdevice, a C.CUdevice_attribute) (int, error) {
	var v C.int
	return int(v), check("cuDeviceGetAttribute", C.cuDeviceGetAttribute(&v, a, d))
}

func deviceName(d C.CUdevice) (string, error) {
	var b [256]C.char
	if err := check("cuDeviceGetName", C.cuDeviceGetName(&b[0], C.int(len(b)), d)); err != nil {
		return "", err
	}
	return C.GoString(&b[0]), nil
}

func deviceTotalMem(d C.CUdevice) (int64, error) {
	var n C.size_t
	return int64(n), check("cuDeviceTotalMem", C.cuDeviceTotalMem(&n, d))
}

func canAccessPeer(a, b C.CUdevice) (bool, error) {
	var ok C.int
	return ok != 0, check("cuDeviceCanAccessPeer", C.cuDeviceCanAccessPeer(&ok, a, b))
}

func ctxCreate(d C.CUdevice) (C.CUcontext, error) {
	var c C.CUcontext
	return c, check("cuCtxCreate", C.cuCtxCreate(&c, C.CU_CTX_SCHED_AUTO, d))
}

func ctxDestroy(c C.CUcontext) error    { return check("cuCtxDestroy", C.cuCtxDestroy(c)) }
func ctxSetCurrent(c C.CUcontext) error { return check("cuCtxSetCurrent", C.cuCtxSetCurrent(c)) }
func ctxSynchronize() error             { return check("cuCtxSynchronize", C.cuCtxSynchronize()) }
func memFree(p Ptr) error               { return check("cuMemFree", C.cuMemFree(C.CUdeviceptr(p))) }
func streamSynchronize(s C.CUstream) error {
	return check("cuStreamSynchronize", C.cuStreamSynchronize(s))
}
func streamDestroy(s C.CUstream) error { return check("cuStreamDestroy", C.cuStreamDestroy(s)) }

func memAlloc(n int64) (Ptr, error) {
	var p C.CUdeviceptr
	return Ptr(p), check("cuMemAlloc", C.cuMemAlloc(&p, C.size_t(n)))
}

func memInfo() (free, total int64, err error) {
	var f, t C.size_t
	err = check("cuMemGetInfo", C.cuMemGetInfo(&f, &t))
	return int64(f), int64(t), err
}

// enablePeer maps peer's memory into the current context; already mapped
// is not an error.
func enablePeer(peer C.CUcontext) error {
	r := C.cuCtxEnablePeerAccess(peer, 0)
	if r == C.CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
		return nil
	}
	return check("cuCtxEnablePeerAccess", r)
}

func memcpyPeer(dst Ptr, dc C.CUcontext, src Ptr, sc C.CUcontext, n int64) error {
	return check("cuMemcpyPeer", C.cuMemcpyPeer(C.CUdeviceptr(dst), dc, C.CUdeviceptr(src), sc, C.size_t(n)))
}

func memcpyPeerAsync(dst Ptr, dc C.CUcontext, src Ptr, sc C.CUcontext, n int64, s C.CUstream) error {
	return check("cuMemcpyPeerAsync", C.cuMemcpyPeerAsync(C.CUdeviceptr(dst), dc, C.CUdeviceptr(src), sc, C.size_t(n), s))
}

func memsetD8Async(dst Ptr, b byte, n int64, s C.CUstream) error {
	return check("cuMemsetD8Async", C.cuMemsetD8Async(C.CUdeviceptr(dst), C.uchar(b), C.size_t(n), s))
}

func streamCreate() (C.CUstream, error) {
	var s C.CUstream
	return s, check("cuStreamCreate", C.cuStreamCreate(&s, C.CU_STREAM_NON_BLOCKING))
}

func moduleLoadData(ptx string) (C.CUmodule, error) {
	cs := C.CString(ptx)
	defer C.free(unsafe.Pointer(cs))
	var m C.CUmodule
	return m, check("cuModuleLoadData", C.cuModuleLoadData(&m, unsafe.Pointer(cs)))
}

func moduleFunction(m C.CUmodule, name string) (C.CUfunction, error) {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	var f C.CUfunction
	return f, check("cuModuleGetFunction", C.cuModuleGetFunction(&f, m, cs))
}

// drvError is a CUDA driver error from our own cgo calls.
type drvError struct {
	what string
	code C.CUresult
}

func (e *drvError) Error() string {
	return fmt.Sprintf("%s: %s (%d)", e.what, C.GoString(C.symchan_error_name(e.code)), int(e.code))
}

func check(what string, r C.CUresult) error {
	if r == C.CUDA_SUCCESS {
		return nil
	}
	return &drvError{what, r}
}

func hostAlloc(n int) (unsafe.Pointer, Ptr, error) {
	var host unsafe.Pointer
	var dev C.CUdeviceptr
	if err := check("cuMemHostAlloc", C.symchan_host_alloc(C.size_t(n), &host, &dev)); err != nil {
		return nil, 0, err
	}
	return host, Ptr(dev), nil
}

func hostFree(p unsafe.Pointer) error { return check("cuMemFreeHost", C.cuMemFreeHost(p)) }

func streamWriteValue64(s C.CUstream, addr Ptr, v uint64) error {
	return check("cuStreamWriteValue64", C.cuStreamWriteValue64_v2(s, C.CUdeviceptr(addr), C.cuuint64_t(v), C.CU_STREAM_WRITE_VALUE_DEFAULT))
}

// streamQuery reports whether every operation queued on s has completed.
func streamQuery(s C.CUstream) (bool, error) {
	r := C.cuStreamQuery(s)
	if r == C.CUDA_ERROR_NOT_READY {
		return false, nil
	}
	return r == C.CUDA_SUCCESS, check("cuStreamQuery", r)
}

func streamWaitValue64(s C.CUstream, addr Ptr, v uint64) error {
	return check("cuStreamWaitValue64", C.cuStreamWaitValue64_v2(s, C.CUdeviceptr(addr), C.cuuint64_t(v), C.CU_STREAM_WAIT_VALUE_GEQ))
}

func launch(f C.CUfunction, grid, block Dim3, shared int, s C.CUstream, args []uint64, cooperative bool) error {
	if len(args) > 32 {
		return fmt.Errorf("device: launch with %d arguments (at most 32)", len(args))
	}
	// The argument values go to C memory: cgo forbids passing Go memory
	// that the callee keeps pointers into.
	cargs := (*C.ulonglong)(C.malloc(C.size_t(8 * (len(args) + 1))))
	defer C.free(unsafe.Pointer(cargs))
	copy(unsafe.Slice((*uint64)(unsafe.Pointer(cargs)), len(args)), args)
	coop := C.int(0)
	if cooperative {
		coop = 1
	}
	return check("cuLaunchKernel", C.symchan_launch(f, C.uint(grid.X), C.uint(grid.Y), C.uint(grid.Z), C.uint(block.X), C.uint(block.Y),
		C.uint(block.Z), C.uint(shared), s, cargs, C.int(len(args)), coop))
}

func maxActiveBlocks(f C.CUfunction, threads, shared int) (int, error) {
	var n C.int
	err := check("cuOccupancyMaxActiveBlocksPerMultiprocessor", C.cuOccupancyMaxActiveBlocksPerMultiprocessor(&n, f, C.int(threads), C.size_t(shared)))
	return int(n), err
}

func eventCreate() (C.CUevent, error) {
	var e C.CUevent
	return e, check("cuEventCreate", C.cuEventCreate(&e, C.CU_EVENT_DEFAULT))
}

func eventRecord(e C.CUevent, s C.CUstream) error {
	return check("cuEventRecord", C.cuEventRecord(e, s))
}
func eventSync(e C.CUevent) error    { return check("cuEventSynchronize", C.cuEventSynchronize(e)) }
func eventDestroy(e C.CUevent) error { return check("cuEventDestroy", C.cuEventDestroy(e)) }

// streamAfter makes s's later work wait for what other has queued so
// far, through an event without timing, released once it happens.
func streamAfter(s, other C.CUstream) error {
	var e C.CUevent
	if err := check("cuEventCreate", C.cuEventCreate(&e, C.CU_EVENT_DISABLE_TIMING)); err != nil {
		return err
	}
	err := check("cuEventRecord", C.cuEventRecord(e, other))
	if err == nil {
		err = check("cuStreamWaitEvent", C.cuStreamWaitEvent(s, e, 0))
	}
	return errors.Join(err, eventDestroy(e))
}

func eventElapsed(a, b C.CUevent) (float32, error) {
	var ms C.float
	err := check("cuEventElapsedTime", C.cuEventElapsedTime(&ms, a, b))
	return float32(ms), err
}

// pinned keeps b where it is while C uses its address, which is passed as
// an integer: pinning also moves it off the goroutine's stack, which can
// move (the stack grows) between taking the address and the copy — a
// device-to-host copy into a buffer on the stack then landed in the old
// stack and left the buffer as it was.
func pinned(b []byte) (addr C.uintptr_t, unpin func()) {
	var p runtime.Pinner
	if len(b) > 0 {
		p.Pin(unsafe.SliceData(b))
	}
	return C.uintptr_t(uintptr(unsafe.Pointer(unsafe.SliceData(b)))), p.Unpin
}

func copyIn(dst Ptr, src []byte, s C.CUstream) error {
	addr, unpin := pinned(src)
	defer unpin()
	return check("cuMemcpyHtoDAsync", C.symchan_htod(C.CUdeviceptr(dst), addr, C.size_t(len(src)), s))
}

func copyOut(dst []byte, src Ptr, s C.CUstream) error {
	addr, unpin := pinned(dst)
	defer unpin()
	return check("cuMemcpyDtoHAsync", C.symchan_dtoh(addr, C.CUdeviceptr(src), C.size_t(len(dst)), s))
}

func copy2D(toDevice bool, dev Ptr, devPitch int64, host []byte, hostPitch, width, height int64, s C.CUstream) error {
	to := C.int(0)
	if toDevice {
		to = 1
	}
	addr, unpin := pinned(host)
	defer unpin()
	return check("cuMemcpy2DAsync", C.symchan_copy2d(to, C.CUdeviceptr(dev), C.size_t(devPitch), addr,
		C.size_t(hostPitch), C.size_t(width), C.size_t(height), s))
}

func primaryRetain(d C.CUdevice) (C.CUcontext, error) {
	var ctx C.CUcontext
	return ctx, check("cuDevicePrimaryCtxRetain", C.cuDevicePrimaryCtxRetain(&ctx, d))
}

func primaryRelease(d C.CUdevice) error {
	return check("cuDevicePrimaryCtxRelease", C.cuDevicePrimaryCtxRelease(d))
}

func streamBeginCapture(s C.CUstream) error {
	// Relaxed: other goroutines' CUDA calls (other PEs, the agent) go on
	// while this stream is captured.
	return check("cuStreamBeginCapture", C.cuStreamBeginCapture(s, C.CU_STREAM_CAPTURE_MODE_RELAXED))
}

func streamEndCapture(s C.CUstream) (C.CUgraph, error) {
	var g C.CUgraph
	return g, check("cuStreamEndCapture", C.cuStreamEndCapture(s, &g))
}

func graphInstantiate(g C.CUgraph) (C.CUgraphExec, error) {
	var e C.CUgraphExec
	return e, check("cuGraphInstantiateWithFlags", C.cuGraphInstantiateWithFlags(&e, g, 0))
}

func graphLaunch(e C.CUgraphExec, s C.CUstream) error {
	return check("cuGraphLaunch", C.cuGraphLaunch(e, s))
}

func graphDestroy(g C.CUgraph) error { return check("cuGraphDestroy", C.cuGraphDestroy(g)) }

func graphExecDestroy(e C.CUgraphExec) error {
	return check("cuGraphExecDestroy", C.cuGraphExecDestroy(e))
}

func streamIsCapturing(s C.CUstream) (bool, error) {
	var st C.CUstreamCaptureStatus
	err := check("cuStreamIsCapturing", C.cuStreamIsCapturing(s, &st))
	return st == C.CU_STREAM_CAPTURE_STATUS_ACTIVE, err
}
