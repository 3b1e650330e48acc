package device

import (
	"fmt"
	"os"
)

// EnvNVRTC names the NVRTC library CompilePTX loads (a path or a soname);
// unset, it tries libnvrtc.so, then the sonames of CUDA 13 and 12, on the
// loader's path and in CUDAHome's lib64.
const EnvNVRTC = "SYMCHAN_NVRTC_LIB"

// EnvCUDAHome names the CUDA toolkit's folder (CUDAHome).
const EnvCUDAHome = "CUDA_HOME"

// CUDAHome is the CUDA toolkit's folder, where symchan looks for NVRTC
// (lib64) and the toolkit's headers (include, include/cccl) when nothing
// more specific names them: $CUDA_HOME, else $CUDA_PATH, else
// /usr/local/cuda. It is the one place symchan's Go code names that
// folder.
func CUDAHome() string {
	for _, env := range []string{EnvCUDAHome, "CUDA_PATH"} {
		if dir := os.Getenv(env); dir != "" {
			return dir
		}
	}
	return "/usr/local/cuda"
}

// CompileOptions say how CompilePTX compiles.
type CompileOptions struct {
	// Name names the program in NVRTC's log and messages ("program.cu"
	// when empty).
	Name string
	// Headers are files the source may #include by name, held in memory
	// (name → content), so that no header need be on disk.
	Headers map[string]string
	// Options are NVRTC's options: -arch=compute_90, -DNAME=VALUE,
	// -I folder, -rdc=true, -std=c++17, …
	Options []string
}

// A CompileError is a program NVRTC refused: its log, with the file
// names and line numbers of the errors, is in Log.
type CompileError struct {
	Name string
	Log  string
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("device: NVRTC could not compile %s:\n%s", e.Name, e.Log)
}
