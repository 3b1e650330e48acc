//go:build cuda

package device

/*
#include <cuda.h>
#include <stdlib.h>

// symchan_link JIT-links ptx (relocatable device code) with the device
// libraries libs[0..nlibs) and loads the result as *mod; the linker's
// error log goes to log.
static CUresult symchan_link(const char *ptx, size_t n, const char **libs, int nlibs, CUmodule *mod, char *log, size_t logn) {
	CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
	void *vals[2] = {log, (void *)logn};
	CUlinkState st;
	CUresult r = cuLinkCreate(2, opts, vals, &st);
	if (r != CUDA_SUCCESS) return r;
	r = cuLinkAddData(st, CU_JIT_INPUT_PTX, (void *)ptx, n, "symchan", 0, NULL, NULL);
	for (int i = 0; r == CUDA_SUCCESS && i < nlibs; i++)
		r = cuLinkAddFile(st, CU_JIT_INPUT_LIBRARY, libs[i], 0, NULL, NULL);
	void *cubin;
	size_t size;
	if (r == CUDA_SUCCESS) r = cuLinkComplete(st, &cubin, &size);
	if (r == CUDA_SUCCESS) r = cuModuleLoadData(mod, cubin);
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
// libnvshmem_device.a, say) and loads the result into the context.
func (c *Context) LinkModule(ptx string, libs ...string) (*Module, error) {
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
	m := &Module{ctx: c}
	var raw C.CUmodule
	err := c.Do(func() error {
		return check("cuLink", C.symchan_link(cptx, C.size_t(len(ptx)), arr, C.int(len(libs)), &raw, log, 8192))
	})
	if err != nil {
		return nil, fmt.Errorf("device: link PTX with %v on GPU %d: %w: %s", libs, c.ordinal, err, C.GoString(log))
	}
	m.m = raw
	if err := c.Do(func() error { return m.resolve(ptxKernels(ptx)) }); err != nil {
		return nil, fmt.Errorf("device: linked PTX on GPU %d: %w", c.ordinal, err)
	}
	return m, nil
}

// Handle is the module's CUmodule, for libraries that initialise a
// module's device state themselves (NVSHMEM's nvshmemx_cumodule_init).
func (m *Module) Handle() unsafe.Pointer { return unsafe.Pointer(m.m) }
