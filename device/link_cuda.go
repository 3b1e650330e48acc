//go:build cuda

package device

/*
#include <cuda.h>
#include <stdlib.h>
#include <string.h>

// symchan_link JIT-links ptx (relocatable device code) with the device
// libraries libs[0..nlibs) into a linked image, copied to *image (malloc'd,
// *size bytes); the linker's error log goes to log.
static CUresult symchan_link(const char *ptx, size_t n, const char **libs, int nlibs, void **image, size_t *size, char *log, size_t logn) {
	CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *vals[2] = {log, (void *)logn};
	CUlinkState st;
	CUresult r = cuLinkCreate(2, opts, vals, &st);
	if (r != CUDA_SUCCESS) return r;
	r = cuLinkAddData(st, CU_JIT_INPUT_PTX, (void *)ptx, n, "symchan", 0, NULL, NULL);
	for (int i = 0; r == CUDA_SUCCESS && i < nlibs; i++)
		r = cuLinkAddFile(st, CU_JIT_INPUT_LIBRARY, libs[i], 0, NULL, NULL);
	void *cubin;
	if (r == CUDA_SUCCESS) r = cuLinkComplete(st, &cubin, size);
	if (r == CUDA_SUCCESS) {
		*image = malloc(*size);
		if (*image == NULL) r = CUDA_ERROR_OUT_OF_MEMORY;
		else memcpy(*image, cubin, *size);
	}
	cuLinkDestroy(st);
	return r;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// LinkModule JIT-links ptx, compiled as relocatable device code (nvcc
// -rdc), with the archives of device code libs names (NVSHMEM's
// libnvshmem_device.a, say) and loads the result into the context: Link,
// then LoadLinked.
func (c *Context) LinkModule(ptx string, libs ...string) (*Module, error) {
	image, err := c.Link(ptx, libs...)
	if err != nil {
		return nil, err
	}
	return c.LoadLinked(image, ptx)
}

// Link JIT-links ptx, compiled as relocatable device code, with the
// archives of device code libs names into an image for the context's GPU
// (a cubin), which LoadLinked loads, in this process or a later one on a
// GPU of the same architecture and driver.
func (c *Context) Link(ptx string, libs ...string) ([]byte, error) {
	cptx := C.CString(ptx)
	defer C.free(unsafe.Pointer(cptx))
	clibs := make([]*C.char, len(libs)+1)
	for i, l := range libs {
		clibs[i] = C.CString(l)
		defer C.free(unsafe.Pointer(clibs[i]))
	}
	// The array goes to C memory: it holds C pointers, which cgo forbids
	// in Go memory passed to C.
	arr := (**C.char)(C.malloc(C.size_t(len(clibs)) * C.size_t(unsafe.Sizeof(clibs[0]))))
	defer C.free(unsafe.Pointer(arr))
	copy(unsafe.Slice(arr, len(clibs)), clibs)
	log := (*C.char)(C.calloc(8192, 1))
	defer C.free(unsafe.Pointer(log))
	var image unsafe.Pointer
	var size C.size_t
	err := c.Do(func() error {
		return check("cuLink", C.symchan_link(cptx, C.size_t(len(ptx)), arr, C.int(len(libs)), &image, &size, log, 8192))
	})
	if err != nil {
		return nil, fmt.Errorf("device: link PTX with %v on GPU %d: %w: %s", libs, c.ordinal, err, C.GoString(log))
	}
	defer C.free(image)
	return C.GoBytes(image, C.int(size)), nil
}

// LoadLinked loads image, what Link made of ptx, into the context, with
// the kernels ptx declares.
func (c *Context) LoadLinked(image []byte, ptx string) (*Module, error) {
	if len(image) == 0 {
		return nil, fmt.Errorf("device: load a linked image on GPU %d: the image is empty", c.ordinal)
	}
	return c.load("a linked image", string(image), ptx)
}

// Handle is the module's CUmodule, for libraries that initialise a
// module's device state themselves (NVSHMEM's nvshmemx_cumodule_init).
func (m *Module) Handle() unsafe.Pointer { return unsafe.Pointer(m.m) }
