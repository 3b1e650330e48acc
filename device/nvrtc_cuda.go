//go:build cuda

package device

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <stddef.h>

// NVRTC's C API (nvrtc.h), loaded at run time: no header, no link.
typedef int nvrtc_result;
typedef void *nvrtc_program;

static struct {
	nvrtc_result (*version)(int *, int *);
	nvrtc_result (*create)(nvrtc_program *, const char *, const char *, int, const char *const *, const char *const *);
	nvrtc_result (*compile)(nvrtc_program, int, const char *const *);
	nvrtc_result (*log_size)(nvrtc_program, size_t *);
	nvrtc_result (*log)(nvrtc_program, char *);
	nvrtc_result (*ptx_size)(nvrtc_program, size_t *);
	nvrtc_result (*ptx)(nvrtc_program, char *);
	nvrtc_result (*destroy)(nvrtc_program *);
	const char *(*error_string)(nvrtc_result);
} rtc;

// sc_rtc_load opens the library at path: NULL, or why not.
static const char *sc_rtc_load(const char *path) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) return dlerror();
#define SC_RTC(field, name) if (!(*(void **)&rtc.field = dlsym(h, name))) return "missing " name;
	SC_RTC(version, "nvrtcVersion");
	SC_RTC(create, "nvrtcCreateProgram");
	SC_RTC(compile, "nvrtcCompileProgram");
	SC_RTC(log_size, "nvrtcGetProgramLogSize");
	SC_RTC(log, "nvrtcGetProgramLog");
	SC_RTC(ptx_size, "nvrtcGetPTXSize");
	SC_RTC(ptx, "nvrtcGetPTX");
	SC_RTC(destroy, "nvrtcDestroyProgram");
	SC_RTC(error_string, "nvrtcGetErrorString");
	return NULL;
}

static int sc_rtc_version(int *major, int *minor) { return rtc.version(major, minor); }
static const char *sc_rtc_error(nvrtc_result r) { return rtc.error_string(r); }

// sc_rtc_compile compiles src; on return *log holds NVRTC's log and *ptx
// the PTX (both malloc'd, or NULL), and the result is the first failing
// call's (0: success), with *stage naming it.
static nvrtc_result sc_rtc_compile(const char *src, const char *name, int nh, const char **hdrs, const char **hnames,
                                   int nopt, const char **opts, char **log, char **ptx, const char **stage) {
	nvrtc_program p;
	*log = NULL;
	*ptx = NULL;
	*stage = "nvrtcCreateProgram";
	nvrtc_result r = rtc.create(&p, src, name, nh, hdrs, hnames);
	if (r) return r;
	*stage = "nvrtcCompileProgram";
	nvrtc_result cr = rtc.compile(p, nopt, opts);
	size_t n = 0;
	if (rtc.log_size(p, &n) == 0 && n > 1) {
		*log = malloc(n);
		if (*log && rtc.log(p, *log)) { free(*log); *log = NULL; }
	}
	if (cr) { rtc.destroy(&p); return cr; }
	*stage = "nvrtcGetPTX";
	if ((r = rtc.ptx_size(p, &n)) == 0) {
		*ptx = malloc(n);
		if (*ptx && (r = rtc.ptx(p, *ptx))) { free(*ptx); *ptx = NULL; }
	}
	rtc.destroy(&p);
	return r;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unsafe"
)

var nvrtc struct {
	once         sync.Once
	err          error
	major, minor int
}

// loadNVRTC opens NVRTC once: EnvNVRTC's library, else the first of the
// usual names that opens.
func loadNVRTC() error {
	nvrtc.once.Do(func() {
		lib := filepath.Join(CUDAHome(), "lib64")
		names := []string{"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
			filepath.Join(lib, "libnvrtc.so"), filepath.Join(lib, "libnvrtc.so.13"), filepath.Join(lib, "libnvrtc.so.12")}
		if lib := os.Getenv(EnvNVRTC); lib != "" {
			names = []string{lib}
		}
		var why []string
		for _, name := range names {
			cname := C.CString(name)
			msg := C.sc_rtc_load(cname)
			C.free(unsafe.Pointer(cname))
			if msg == nil {
				var major, minor C.int
				if r := C.sc_rtc_version(&major, &minor); r != 0 {
					nvrtc.err = fmt.Errorf("device: nvrtcVersion of %s: %s", name, C.GoString(C.sc_rtc_error(r)))
					return
				}
				nvrtc.major, nvrtc.minor = int(major), int(minor)
				return
			}
			why = append(why, C.GoString(msg))
		}
		nvrtc.err = fmt.Errorf("device: NVRTC is not available (set %s to the library's path): %s", EnvNVRTC, strings.Join(why, "; "))
	})
	return nvrtc.err
}

// NVRTCVersion returns the version of the NVRTC library CompilePTX uses,
// or why it cannot load one.
func NVRTCVersion() (major, minor int, err error) {
	if err := loadNVRTC(); err != nil {
		return 0, 0, err
	}
	return nvrtc.major, nvrtc.minor, nil
}

// CompilePTX compiles CUDA C source to PTX with NVRTC, which it loads at
// run time (EnvNVRTC), so that neither the build machine nor the program's
// needs nvcc or the CUDA headers: what the source includes comes from
// opts.Headers or the folders of its -I options. A source NVRTC refuses
// gives a *CompileError with NVRTC's log.
func CompilePTX(src string, opts CompileOptions) (string, error) {
	if err := loadNVRTC(); err != nil {
		return "", err
	}
	name := opts.Name
	if name == "" {
		name = "program.cu"
	}
	var free []unsafe.Pointer
	defer func() {
		for _, p := range free {
			C.free(p)
		}
	}()
	cstr := func(s string) *C.char {
		c := C.CString(s)
		free = append(free, unsafe.Pointer(c))
		return c
	}
	// C arrays of C strings: cgo may not be handed Go memory holding
	// pointers.
	carray := func(ss []string) **C.char {
		if len(ss) == 0 {
			return nil
		}
		a := (**C.char)(C.malloc(C.size_t(len(ss)) * C.size_t(unsafe.Sizeof(uintptr(0)))))
		free = append(free, unsafe.Pointer(a))
		s := unsafe.Slice(a, len(ss))
		for i, v := range ss {
			s[i] = cstr(v)
		}
		return a
	}
	var hdrs, hnames []string
	for n, h := range opts.Headers {
		hnames, hdrs = append(hnames, n), append(hdrs, h)
	}
	var log, ptx *C.char
	var stage *C.char
	r := C.sc_rtc_compile(cstr(src), cstr(name), C.int(len(hdrs)), carray(hdrs), carray(hnames),
		C.int(len(opts.Options)), carray(opts.Options), &log, &ptx, &stage)
	var logText, ptxText string
	if log != nil {
		logText = C.GoString(log)
		C.free(unsafe.Pointer(log))
	}
	if ptx != nil {
		ptxText = C.GoString(ptx)
		C.free(unsafe.Pointer(ptx))
	}
	switch {
	case r == 0:
		return ptxText, nil
	case C.GoString(stage) == "nvrtcCompileProgram":
		return "", &CompileError{Name: name, Log: strings.TrimRight(logText, "\x00\n")}
	}
	return "", errors.New("device: " + C.GoString(stage) + " of " + name + ": " + C.GoString(C.sc_rtc_error(r)))
}
