//go:build cuda

package nvshmem

/*
#cgo LDFLAGS: -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>

// NVSHMEM 3.x's initialisation structures (nvshmem_types.h,
// nvshmem_uniqueid.h): sizes 128, 24, 128 and 144 bytes.
typedef struct { int version; char internal[124]; } sc_uid_t;
typedef struct { int version; sc_uid_t *id; int myrank; int nranks; } sc_uid_args_t;
typedef struct { int version; sc_uid_args_t uid_args; char content[96]; } sc_init_args_t;
typedef struct { int version; void *mpi_comm; sc_init_args_t args; } sc_init_attr_t;

_Static_assert(sizeof(sc_uid_t) == 128, "uid");
_Static_assert(sizeof(sc_uid_args_t) == 24, "uid args");
_Static_assert(sizeof(sc_init_args_t) == 128, "init args");
_Static_assert(sizeof(sc_init_attr_t) == 144, "init attr");

static struct {
	int (*hostlib_init_attr)(unsigned, sc_init_attr_t *);
	int (*get_uniqueid)(sc_uid_t *);
	int (*set_attr_uniqueid_args)(int, int, const sc_uid_t *, sc_init_attr_t *);
	int (*my_pe)(void);
	int (*n_pes)(void);
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*ptr)(const void *, int);
	void (*putmem_on_stream)(void *, const void *, size_t, int, void *);
	void (*getmem_on_stream)(void *, const void *, size_t, int, void *);
	void (*putmem_signal_on_stream)(void *, const void *, size_t, uint64_t *, uint64_t, int, int, void *);
	void (*signal_op_on_stream)(uint64_t *, uint64_t, int, int, void *);
	void (*quiet_on_stream)(void *);
	void (*barrier_all)(void);
	int (*cumodule_init)(void *);
	void (*finalize)(void);
	void *(*register_symmetric)(void *, size_t, int);
	int (*unregister_symmetric)(void *, size_t);
	void (*vendor_version)(int *, int *, int *);
} nv;

const char *sc_missing;

#define SC_SYM(field, name) \
	if (!(*(void **)&nv.field = dlsym(h, name))) { sc_missing = name; return 0; }

// sc_load opens the library at path; it returns NULL, or dlerror's text,
// or the name of a missing symbol (prefixed "missing ").
static const char *sc_load(const char *path) {
	void *h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!h) return dlerror();
	sc_missing = NULL;
	int ok = 1;
	do {
		SC_SYM(hostlib_init_attr, "nvshmemx_hostlib_init_attr");
		SC_SYM(get_uniqueid, "nvshmemx_get_uniqueid");
		SC_SYM(set_attr_uniqueid_args, "nvshmemx_set_attr_uniqueid_args");
		SC_SYM(my_pe, "nvshmem_my_pe");
		SC_SYM(n_pes, "nvshmem_n_pes");
		SC_SYM(malloc, "nvshmem_malloc");
		SC_SYM(free, "nvshmem_free");
		SC_SYM(ptr, "nvshmem_ptr");
		SC_SYM(putmem_on_stream, "nvshmemx_putmem_on_stream");
		SC_SYM(getmem_on_stream, "nvshmemx_getmem_on_stream");
		SC_SYM(putmem_signal_on_stream, "nvshmemx_putmem_signal_on_stream");
		SC_SYM(signal_op_on_stream, "nvshmemx_signal_op_on_stream");
		SC_SYM(quiet_on_stream, "nvshmemx_quiet_on_stream");
		SC_SYM(barrier_all, "nvshmem_barrier_all");
	} while (0);
	(void)ok;
	*(void **)&nv.cumodule_init = dlsym(h, "nvshmemx_cumodule_init");
	*(void **)&nv.finalize = dlsym(h, "nvshmemx_hostlib_finalize");
	*(void **)&nv.register_symmetric = dlsym(h, "nvshmemx_buffer_register_symmetric");
	*(void **)&nv.unregister_symmetric = dlsym(h, "nvshmemx_buffer_unregister_symmetric");
	*(void **)&nv.vendor_version = dlsym(h, "nvshmemx_vendor_get_version_info");
	return NULL;
}

// sc_lib_path is the path the host library was loaded from.
const char *sc_lib_path(void) {
	Dl_info info;
	if (!dladdr(*(void **)&nv.my_pe, &info) || !info.dli_fname) return "";
	return info.dli_fname;
}

// sc_cumodule_init initialises NVSHMEM's device state in a module linked
// with its device library (nvshmemx_cumodule_init).
int sc_cumodule_init(void *mod) {
	if (!nv.cumodule_init) return -1000;
	return nv.cumodule_init(mod);
}

static int sc_load_ok(void) { return sc_missing == NULL; }

int sc_get_uniqueid(void *out) {
	sc_uid_t *id = (sc_uid_t *)out;
	id->version = (1 << 16) + sizeof(sc_uid_t);
	return nv.get_uniqueid(id);
}

// sc_init starts NVSHMEM's host library with the unique-id bootstrap
// (nvshmemx_hostlib_init_attr: we use no NVSHMEM device code), the
// structures' versions set as the header's initialisers set them.
static void sc_attr_init(sc_init_attr_t *attr) {
	*attr = (sc_init_attr_t){0};
	attr->version = (1 << 16) + sizeof(sc_init_attr_t);
	attr->args.version = (1 << 16) + sizeof(sc_init_args_t);
	attr->args.uid_args.version = (1 << 16) + sizeof(sc_uid_args_t);
}

int sc_init(int rank, int nranks, void *uid) {
	sc_init_attr_t attr;
	sc_attr_init(&attr);
	attr.args.uid_args.myrank = -1;
	attr.args.uid_args.nranks = -1;
	int rc = nv.set_attr_uniqueid_args(rank, nranks, (sc_uid_t *)uid, &attr);
	if (rc != 0) return 1000 + rc;
	return nv.hostlib_init_attr(1 << 3, &attr); // NVSHMEMX_INIT_WITH_UNIQUEID
}

// sc_init_default starts NVSHMEM's host library with the bootstrap that
// NVSHMEM_BOOTSTRAP names (a plugin: PMIx, PMI-2, …).
int sc_init_default(void) {
	sc_init_attr_t attr;
	sc_attr_init(&attr);
	return nv.hostlib_init_attr(0, &attr);
}

int sc_my_pe(void) { return nv.my_pe(); }
int sc_finalize(void) {
	if (!nv.finalize) return -1;
	nv.finalize();
	return 0;
}

// sc_mpi_initialized reports whether MPI is initialised in this process
// (0 where no MPI library is loaded).
int sc_mpi_initialized(void) {
	int (*initialized)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "MPI_Initialized");
	int (*finalized)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, "MPI_Finalized");
	int in = 0, fin = 0;
	if (!initialized || !finalized || initialized(&in) != 0 || finalized(&fin) != 0) return 0;
	return in && !fin;
}

// sc_mpi_finalize finalizes MPI (which NVSHMEM's MPI bootstrap
// initialised).
int sc_mpi_finalize(void) {
	int (*fin)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "MPI_Finalize");
	return fin ? fin() : -1;
}
int sc_n_pes(void) { return nv.n_pes(); }
uintptr_t sc_malloc(size_t n) { return (uintptr_t)nv.malloc(n); }
void sc_free(uintptr_t p) { nv.free((void *)p); }
uintptr_t sc_ptr(uintptr_t p, int pe) { return (uintptr_t)nv.ptr((void *)p, pe); }
void sc_put(uintptr_t dst, uintptr_t src, size_t n, int pe, void *st) { nv.putmem_on_stream((void *)dst, (void *)src, n, pe, st); }
void sc_get(uintptr_t dst, uintptr_t src, size_t n, int pe, void *st) { nv.getmem_on_stream((void *)dst, (void *)src, n, pe, st); }
void sc_put_signal(uintptr_t dst, uintptr_t src, size_t n, uintptr_t sig, uint64_t v, int op, int pe, void *st) {
	nv.putmem_signal_on_stream((void *)dst, (void *)src, n, (uint64_t *)sig, v, op, pe, st);
}
void sc_signal_op(uintptr_t sig, uint64_t v, int op, int pe, void *st) { nv.signal_op_on_stream((uint64_t *)sig, v, op, pe, st); }
void sc_quiet_on_stream(void *st) { nv.quiet_on_stream(st); }
void sc_barrier_all(void) { nv.barrier_all(); }

// sc_can_register reports whether the library registers buffers
// (nvshmemx_buffer_register_symmetric: NVSHMEM 3.2 and later).
int sc_can_register(void) { return nv.register_symmetric && nv.unregister_symmetric; }

// sc_version is NVSHMEM's version (major * 10000 + minor * 100 + patch),
// -1 where the library does not say.
int sc_version(void) {
	int major = 0, minor = 0, patch = 0;
	if (!nv.vendor_version) return -1;
	nv.vendor_version(&major, &minor, &patch);
	return major * 10000 + minor * 100 + patch;
}
// sc_register maps buf symmetrically and returns its symmetric address, 0
// when NVSHMEM refused it.
uintptr_t sc_register(uintptr_t buf, size_t n) { return (uintptr_t)nv.register_symmetric((void *)buf, n, 0); }
int sc_unregister(uintptr_t at, size_t n) { return nv.unregister_symmetric((void *)at, n); }

// sc_preload loads a bootstrap plugin by path so that NVSHMEM's own
// dlopen by name finds it without LD_LIBRARY_PATH.
static void sc_preload(const char *path) { dlopen(path, RTLD_NOW | RTLD_GLOBAL); }

// sc_preload_pmix loads the launcher's PMIx library, whose symbols
// NVSHMEM's PMIx plugin uses without naming the library, then the plugin
// (at path). It returns dlerror's text, or NULL.
const char *sc_preload_pmix(const char *path) {
	if (!dlopen("libpmix.so.2", RTLD_NOW | RTLD_GLOBAL) && !dlopen("libpmix.so", RTLD_NOW | RTLD_GLOBAL)) return dlerror();
	if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL)) return dlerror();
	return NULL;
}
*/
import "C"

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"unsafe"

	"github.com/symchan/symchan/device"
	"github.com/symchan/symchan/pgas/driver"
)

// NVSHMEM's signal operations (nvshmemx_signal_op_t).
const (
	nvSignalSet = 9
	nvSignalAdd = 10
)

var (
	loadOnce sync.Once
	loadErr  error
)

// candidates lists where the host library may be, in order: lib when
// given, else EnvLib's, else the usual places.
func candidates(lib string) []string {
	var c []string
	if lib = cmp.Or(lib, os.Getenv(EnvLib)); lib != "" {
		return []string{lib}
	}
	if h := os.Getenv(EnvHome); h != "" {
		c = append(c, filepath.Join(h, "lib", "libnvshmem_host.so.3"), filepath.Join(h, "lib", "libnvshmem_host.so"))
	}
	for _, pat := range []string{
		"/usr/lib/x86_64-linux-gnu/nvshmem/*/libnvshmem_host.so.3",
		"/usr/lib/x86_64-linux-gnu/libnvshmem_host.so.3",
		"/opt/nvidia/nvshmem/lib/libnvshmem_host.so.3",
		"/usr/local/nvshmem/lib/libnvshmem_host.so.3",
		"/usr/local/lib/python3*/dist-packages/nvidia/nvshmem/lib/libnvshmem_host.so.3",
		"/usr/lib/python3*/site-packages/nvidia/nvshmem/lib/libnvshmem_host.so.3",
		"/opt/*/.venv/lib/python3*/site-packages/nvidia/nvshmem/lib/libnvshmem_host.so.3",
		os.Getenv("HOME") + "/.local/lib/python3*/site-packages/nvidia/nvshmem/lib/libnvshmem_host.so.3",
	} {
		m, _ := filepath.Glob(pat)
		sort.Strings(m)
		c = append(c, m...)
	}
	return append(c, "libnvshmem_host.so.3") // the loader's own search path
}

// load opens the NVSHMEM host library once per process (lib: see
// candidates).
func load(lib string) error {
	loadOnce.Do(func() {
		var tried []string
		for _, p := range candidates(lib) {
			cp := C.CString(p)
			msg := C.sc_load(cp)
			C.free(unsafe.Pointer(cp))
			if msg != nil {
				tried = append(tried, p+": "+C.GoString(msg))
				continue
			}
			if C.sc_load_ok() == 0 {
				loadErr = fmt.Errorf("nvshmem backend: %s lacks %s (NVSHMEM 3.x is required)", p, C.GoString(C.sc_missing))
				return
			}
			// The bootstrap plugins sit beside the library; those whose
			// launcher library is missing simply do not load.
			for _, name := range []string{"uid", "pmix", "pmi2", "pmi"} {
				plugin := C.CString(filepath.Join(filepath.Dir(p), "nvshmem_bootstrap_"+name+".so.3"))
				C.sc_preload(plugin)
				C.free(unsafe.Pointer(plugin))
			}
			return
		}
		loadErr = fmt.Errorf("nvshmem backend: the NVSHMEM host library was not found; set %s to libnvshmem_host.so.3 or %s to NVSHMEM's install directory (tried: %v)", EnvLib, EnvHome, tried)
	})
	return loadErr
}

// The NVSHMEM host routines this backend calls, as Go functions: the
// package's one binding to C (the other files import no "C"). Addresses
// are device addresses; st is a CUstream (device.Stream.Handle).

func sigOp(op driver.SigOp) C.int {
	if op == driver.SignalAdd {
		return nvSignalAdd
	}
	return nvSignalSet
}

// nvGetUniqueID fills id (128 bytes) with a new unique id
// (nvshmemx_get_uniqueid); it returns NVSHMEM's code.
func nvGetUniqueID(id []byte) int { return int(C.sc_get_uniqueid(unsafe.Pointer(&id[0]))) }

// nvInit starts NVSHMEM with the unique-id bootstrap as rank of nranks.
func nvInit(rank, nranks int, uid []byte) int {
	cuid := C.CBytes(uid)
	defer C.free(cuid)
	return int(C.sc_init(C.int(rank), C.int(nranks), cuid))
}

// nvInitDefault starts NVSHMEM with the bootstrap NVSHMEM_BOOTSTRAP names.
func nvInitDefault() int { return int(C.sc_init_default()) }

func nvMyPE() int   { return int(C.sc_my_pe()) }
func nvNPEs() int   { return int(C.sc_n_pes()) }
func nvBarrierAll() { C.sc_barrier_all() }

// nvFinalize ends NVSHMEM (nvshmemx_hostlib_finalize); -1 where the
// library has no such routine.
func nvFinalize() int { return int(C.sc_finalize()) }

// nvMPIInitialized reports whether MPI is initialised in this process.
func nvMPIInitialized() bool { return C.sc_mpi_initialized() != 0 }

// nvMPIFinalize finalizes MPI; -1 where no MPI library is loaded.
func nvMPIFinalize() int { return int(C.sc_mpi_finalize()) }

// nvMalloc is nvshmem_malloc: 0 when it failed.
func nvMalloc(n int64) device.Ptr { return device.Ptr(C.sc_malloc(C.size_t(n))) }

func nvFree(p device.Ptr) { C.sc_free(C.uintptr_t(p)) }

// nvPtr is nvshmem_ptr: p on pe as this GPU maps it, 0 where it does not.
func nvPtr(p device.Ptr, pe int) device.Ptr {
	return device.Ptr(C.sc_ptr(C.uintptr_t(p), C.int(pe)))
}

// nvPut enqueues on st a put of n bytes from src to dst on pe
// (nvshmemx_putmem_on_stream).
func nvPut(dst, src uintptr, n int64, pe int, st unsafe.Pointer) {
	C.sc_put(C.uintptr_t(dst), C.uintptr_t(src), C.size_t(n), C.int(pe), st)
}

// nvGet enqueues on st a get of n bytes from src on pe to dst
// (nvshmemx_getmem_on_stream).
func nvGet(dst, src uintptr, n int64, pe int, st unsafe.Pointer) {
	C.sc_get(C.uintptr_t(dst), C.uintptr_t(src), C.size_t(n), C.int(pe), st)
}

// nvPutSignal enqueues on st a put with signal
// (nvshmemx_putmem_signal_on_stream).
func nvPutSignal(dst, src uintptr, n int64, sig uintptr, v uint64, op driver.SigOp, pe int, st unsafe.Pointer) {
	C.sc_put_signal(C.uintptr_t(dst), C.uintptr_t(src), C.size_t(n), C.uintptr_t(sig), C.uint64_t(v), sigOp(op), C.int(pe), st)
}

// nvSignalOp enqueues on st an update of pe's signal word at sig
// (nvshmemx_signal_op_on_stream).
func nvSignalOp(sig uintptr, v uint64, op driver.SigOp, pe int, st unsafe.Pointer) {
	C.sc_signal_op(C.uintptr_t(sig), C.uint64_t(v), sigOp(op), C.int(pe), st)
}

// nvQuietOnStream enqueues on st the completion of its puts
// (nvshmemx_quiet_on_stream).
func nvQuietOnStream(st unsafe.Pointer) { C.sc_quiet_on_stream(st) }

// nvCumoduleInit initialises NVSHMEM's device state in a module linked
// with its device library; -1000 where the library has no such routine.
func nvCumoduleInit(mod unsafe.Pointer) int { return int(C.sc_cumodule_init(mod)) }

// nvLibPath is the path the host library was loaded from ("" unknown).
func nvLibPath() string { return C.GoString(C.sc_lib_path()) }

// nvPreloadPMIx loads the launcher's PMIx library, then NVSHMEM's PMIx
// plugin at path.
func nvPreloadPMIx(path string) error {
	cp := C.CString(path)
	defer C.free(unsafe.Pointer(cp))
	if msg := C.sc_preload_pmix(cp); msg != nil {
		return errors.New(C.GoString(msg))
	}
	return nil
}

// nvVersion is NVSHMEM's version (nvshmemx_vendor_get_version_info:
// major × 10000 + minor × 100 + patch), -1 where the library does not say.
func nvVersion() int { return int(C.sc_version()) }

// nvCanRegister reports whether the library registers foreign buffers.
func nvCanRegister() bool { return C.sc_can_register() != 0 }

// nvRegister maps n bytes at buf symmetrically and returns their
// symmetric address, 0 when NVSHMEM refused.
func nvRegister(buf uintptr, n int64) uintptr {
	return uintptr(C.sc_register(C.uintptr_t(buf), C.size_t(n)))
}

// nvUnregister undoes nvRegister; it returns NVSHMEM's code.
func nvUnregister(at uintptr, n int64) int {
	return int(C.sc_unregister(C.uintptr_t(at), C.size_t(n)))
}
