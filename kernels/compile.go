package kernels

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/symchan/symchan/device"
)

// CompileOptions say how Compile builds a Program.
type CompileOptions struct {
	// Arch is NVRTC's virtual architecture (compute_90); empty: GPU 0's.
	Arch string
	// Options are more NVRTC options (-DNAME=VALUE, -maxrregcount=N, …).
	Options []string
	// NVSHMEMHome is the folder of NVSHMEM's include/, for the program's
	// nvshmem variant (SYMCHAN_NVSHMEM, relocatable, linked with NVSHMEM's
	// device library), compiled when the nvshmem backend first loads the
	// program. Empty: $NVSHMEM_HOME. Where no folder is found, the program
	// has no nvshmem variant, and the nvshmem backend's Load says so. The
	// variant's kernels may call NVSHMEM's device API themselves.
	NVSHMEMHome string
	// CacheDir keeps compiled PTX between runs, keyed by the source, the
	// options, the architecture, the device API (symchan.cuh) and NVRTC's
	// version. Empty: symchan/kernels in the user's cache folder
	// (os.UserCacheDir); "-": no cache. A process also keeps the programs
	// it compiled (or read from the folder) in memory, unless "-", and
	// concurrent first calls for one program compile it once: a program
	// needs no sync.Once of its own around Compile.
	CacheDir string
}

// rtcTypes gives the cuda variant the fixed-width integer types
// symchan.cuh uses, which NVRTC lacks without the toolkit's headers.
// Define SYMCHAN_NO_STDINT where the program has them from elsewhere.
const rtcTypes = `#ifndef SYMCHAN_NO_STDINT
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
typedef unsigned long long uintptr_t;
#endif
`

// rtcNVSHMEM makes NVSHMEM's device headers compile under NVRTC, which has
// no host C++ library, and link with its device library: the headers name
// std::is_integral, is_signed and is_unsigned, which libcu++ (cuda::std,
// from the toolkit's CCCL) has; and libnvshmem_device.a was built with
// glibc's 64-bit types (uint64_t is unsigned long), where libcu++ under
// NVRTC says unsigned long long, so the headers' uint64_t and int64_t are
// respelt to match the library's template instantiations.
const rtcNVSHMEM = `#include <cuda/std/cstdint>
#include <cuda/std/type_traits>
namespace std {
using cuda::std::is_integral;
using cuda::std::is_signed;
using cuda::std::is_unsigned;
}
typedef unsigned long symchan_glibc_u64;
typedef long symchan_glibc_i64;
#define uint64_t symchan_glibc_u64
#define int64_t symchan_glibc_i64
`

// Compile compiles src, CUDA C that includes "symchan.cuh", with NVRTC at
// run time into a Program that pgas.GPU.Load loads on either GPU backend:
// no nvcc, and no CUDA headers for the cuda backend's variant (the device
// API comes from Header, in memory). Kernels to launch by name are
// declared extern "C" __global__. A source NVRTC refuses gives a
// *device.CompileError whose log names the lines, as name sees them.
// Compiled PTX is cached on disk (opts.CacheDir). It needs a binary built
// with -tags cuda and the NVRTC library (device.EnvNVRTC); elsewhere it
// fails with an error that says which is missing.
func Compile(name, src string, opts CompileOptions) (Program, error) {
	if name == "" || strings.ContainsAny(name, "/\\") {
		return Program{}, fmt.Errorf("kernels: Compile: program name %q (want a file name such as ring.cu)", name)
	}
	arch := opts.Arch
	if arch == "" {
		a, err := gpu0Arch()
		if err != nil {
			return Program{}, fmt.Errorf("kernels: Compile %s: the GPU's architecture: %w", name, err)
		}
		arch = a
	}
	nvrtc, err := nvrtcVersion()
	if err != nil {
		return Program{}, fmt.Errorf("kernels: Compile %s: %w", name, err)
	}
	base := append([]string{"-arch=" + arch, "-std=c++17", "-default-device"}, opts.Options...)
	p := Program{Name: strings.TrimSuffix(name, ".cu")}
	c := compiler{name: name, src: src, cache: opts.CacheDir, nvrtc: nvrtc}
	p.cache = opts.CacheDir
	p.compiled = p.Name + "#" + c.key("program", "", base)[:16]
	if p.PTX, err = c.compile("cuda", rtcTypes, base); err != nil {
		return Program{}, err
	}
	// The nvshmem variant, where NVSHMEM's headers are: its failure is
	// the nvshmem backend's Load's to report, not the cuda backend's.
	home := opts.NVSHMEMHome
	if home == "" {
		home = os.Getenv("NVSHMEM_HOME")
	}
	switch {
	case home == "":
		p.noNVSHMEM = "Compile found no NVSHMEM headers (CompileOptions.NVSHMEMHome, $NVSHMEM_HOME)"
	case !fileExists(filepath.Join(home, "include", "nvshmem.h")):
		p.noNVSHMEM = "Compile found no include/nvshmem.h in " + home
	default:
		o := append(slices.Clip(base), "-rdc=true", "-DSYMCHAN_NVSHMEM", "-I"+filepath.Join(home, "include"))
		// What nvshmem.h includes of the toolkit: its headers, and CCCL's
		// (libcu++: cuda/std/…), in include/cccl since CUDA 13.
		inc := filepath.Join(device.CUDAHome(), "include")
		for _, dir := range []string{inc, filepath.Join(inc, "cccl")} {
			if fileExists(dir) {
				o = append(o, "-I"+dir)
			}
		}
		// Compiled when the nvshmem backend loads it: NVSHMEM's headers
		// take seconds, which a program on the cuda backend need not pay.
		p.nvshmem = &variant{c: c, preamble: rtcNVSHMEM, options: o}
	}
	return p, nil
}

// gpu0Arch and nvrtcVersion are asked once a process: neither GPU 0's
// architecture nor the NVRTC loaded changes while it runs, and a cached
// Compile would otherwise spend more on asking than on the rest. An
// error (no GPU, no NVRTC) is kept as well.
var (
	gpu0Arch = sync.OnceValues(func() (string, error) {
		info, err := device.Describe(0)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("compute_%d%d", info.Major, info.Minor), nil
	})
	nvrtcVersion = sync.OnceValues(func() (string, error) {
		major, minor, err := device.NVRTCVersion()
		return fmt.Sprintf("%d.%d", major, minor), err
	})
)

// A variant is a program's nvshmem variant, compiled on first use.
type variant struct {
	c        compiler
	preamble string
	options  []string
	once     sync.Once
	ptx      string
	err      error
}

func (v *variant) get() (string, error) {
	v.once.Do(func() { v.ptx, v.err = v.c.compile("nvshmem", v.preamble, v.options) })
	return v.ptx, v.err
}

// A compiler compiles one source, variant by variant, through the cache.
type compiler struct {
	name, src, cache, nvrtc string
}

// compile compiles the source with options, preamble ahead of it (its
// lines not counted), through the caches: this process's (compiled), then
// the folder's.
func (c compiler) compile(variant, preamble string, options []string) (string, error) {
	key := c.key(variant, preamble, options)
	if c.cache == "-" { // no cache at all
		return c.build(variant, preamble, options, key)
	}
	return compiled.do(key, func() (string, error) { return c.build(variant, preamble, options, key) })
}

// build compiles the source as compile does, through the folder's cache
// alone.
func (c compiler) build(variant, preamble string, options []string, key string) (string, error) {
	file := ""
	if dir, err := c.cacheDir(); err == nil && dir != "" {
		file = filepath.Join(dir, key+".ptx")
		if b, err := os.ReadFile(file); err == nil {
			return string(b), nil
		}
	}
	src := c.src
	if preamble != "" {
		src = "#include \"symchan_rtc.h\"\n#line 1 \"" + c.name + "\"\n" + src
	}
	ptx, err := device.CompilePTX(src, device.CompileOptions{
		Name:    c.name,
		Headers: map[string]string{"symchan.cuh": Header, "symchan_rtc.h": preamble},
		Options: options,
	})
	if err != nil {
		return "", fmt.Errorf("kernels: Compile %s (%s variant): %w", c.name, variant, err)
	}
	if file != "" {
		// A failed write costs the next run a compile, nothing more.
		_ = writeAtomic(file, []byte(ptx))
	}
	return ptx, nil
}

// key names what compile makes of the source: a hash of everything that
// goes into it, the device API by its own hash (headerHash).
func (c compiler) key(variant, preamble string, options []string) string {
	h := sha256.New()
	for _, part := range append([]string{headerHash(), c.src, c.name, variant, preamble, c.nvrtc}, options...) {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// headerHash is the hash of Header, the device API, made once: at 100 KB,
// hashing it on every Compile was most of a cached Compile's time.
var headerHash = sync.OnceValue(func() string {
	h := sha256.Sum256([]byte(Header))
	return hex.EncodeToString(h[:])
})

// compiled is this process's cache of compiled PTX by key, so that a
// program compiled again (a source a process makes once per use, say)
// costs no file read, and concurrent first calls for one key compile once
// (the others wait for that compile and share its result, error
// included). It holds at most compiledMax programs: past that it starts
// again empty, the folder's cache behind it.
var compiled ptxMemo

const compiledMax = 256

type ptxMemo struct {
	mu     sync.Mutex
	ptx    map[string]string
	flight map[string]*memoCall // compiles under way, by key
}

// A memoCall is one compile that concurrent callers of a key share.
type memoCall struct {
	done chan struct{} // closed when ptx and err are set
	ptx  string
	err  error
}

// do returns key's PTX: the memo's, else what build returns, built once
// however many callers ask for key at once. A failed build is not kept:
// the next call tries again.
func (m *ptxMemo) do(key string, build func() (string, error)) (string, error) {
	m.mu.Lock()
	if ptx, ok := m.ptx[key]; ok {
		m.mu.Unlock()
		return ptx, nil
	}
	if c, ok := m.flight[key]; ok {
		m.mu.Unlock()
		<-c.done
		return c.ptx, c.err
	}
	c := &memoCall{done: make(chan struct{})}
	if m.flight == nil {
		m.flight = make(map[string]*memoCall)
	}
	m.flight[key] = c
	m.mu.Unlock()
	defer close(c.done)
	c.ptx, c.err = build()
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.flight, key)
	if c.err == nil {
		if m.ptx == nil || len(m.ptx) >= compiledMax {
			m.ptx = make(map[string]string)
		}
		m.ptx[key] = c.ptx
	}
	return c.ptx, c.err
}

// LinkedImage gives use what link makes of ptx, p's code for a backend
// that links it before loading (the nvshmem backend links it with
// NVSHMEM's device library and loads the image), through Compile's
// on-disk cache: p's CompileOptions.CacheDir, or the default folder for
// Runtime. An image is kept under a hash of ptx and identity, which names
// everything else it depends on (the libraries' versions and files, the
// GPU's architecture, the driver's version), so that a stale one cannot
// be used, and only once use took it. A kept image that use refuses (a
// file damaged since) is linked again, and the new one replaces it if use
// takes that. A folder that cannot be read or written costs a link,
// nothing more. It returns link's error, or use's last.
func (p Program) LinkedImage(ptx string, identity []string, link func() ([]byte, error), use func(image []byte) error) error {
	linkAndUse := func() ([]byte, error) {
		b, err := link()
		if err == nil {
			err = use(b)
		}
		return b, err
	}
	dir, err := compiler{cache: p.cache}.cacheDir()
	if err != nil || dir == "" {
		_, err := linkAndUse()
		return err
	}
	h := sha256.New()
	for _, part := range append([]string{"linked", ptx}, identity...) {
		fmt.Fprintf(h, "%d:%s;", len(part), part)
	}
	file := filepath.Join(dir, hex.EncodeToString(h.Sum(nil))+".cubin")
	if b, err := os.ReadFile(file); err == nil && len(b) > 0 && use(b) == nil {
		return nil
	}
	b, err := linkAndUse()
	if err == nil {
		_ = writeAtomic(file, b)
	}
	return err
}

// cacheDir is the cache's folder, made if need be; "" for none.
func (c compiler) cacheDir() (string, error) {
	dir := c.cache
	switch dir {
	case "-":
		return "", nil
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(base, "symchan", "kernels")
	}
	return dir, os.MkdirAll(dir, 0o755)
}

// writeAtomic writes b to file through a temporary file in its folder, so
// that a reader sees all of it or nothing.
func writeAtomic(file string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(file), ".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), file)
	}
	if err != nil {
		return errors.Join(err, os.Remove(f.Name()))
	}
	return nil
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}
