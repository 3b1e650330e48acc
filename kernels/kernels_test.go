package kernels

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/symchan/symchan/internal/abi"
	"github.com/symchan/symchan/internal/cstructs"
	"github.com/symchan/symchan/internal/testhelp"
)

// The committed PTX must come from the committed sources.
func TestPTXMatchesSources(t *testing.T) {
	testhelp.CheckPTX(t, "symchan.ptx", Runtime.PTX, "symchan.cuh", "symchan.cu")
	testhelp.CheckPTX(t, "symchan_nvshmem.ptx", Runtime.NVSHMEMPTX, "symchan.cuh", "symchan.cu")
}

func TestPTXDefinesKernels(t *testing.T) {
	for _, k := range []string{abi.Atomic, abi.Wait, abi.Agent, abi.Copy, abi.WaitOnStream, abi.PutSignalOnStream, abi.TeamStep, abi.AllToAllVStep} {
		if !strings.Contains(Runtime.PTX, ".entry "+k+"(") {
			t.Errorf("symchan.ptx has no kernel %s", k)
		}
	}
	if !strings.Contains(Runtime.NVSHMEMPTX, ".entry "+abi.RemoteAtomic+"(") {
		t.Errorf("symchan_nvshmem.ptx has no kernel %s", abi.RemoteAtomic)
	}
}

// A program's PTX comes from SYMCHAN_PTX_DIR's folder where it has the
// file named after it, else from the program.
func TestProgramCode(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p_nvshmem.ptx"), []byte("// dir"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := Program{Name: "p", PTX: "// own", NVSHMEMPTX: "// own nvshmem"}
	for _, c := range []struct {
		name, dir string
		nvshmem   bool
		want      string
		fails     bool
	}{
		{"own", "", false, "// own", false},
		{"folder without the file", dir, false, "// own", false},
		{"folder with it", dir, true, "// dir", false},
		{"no PTX", "", false, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(EnvPTXDir, c.dir)
			q := p
			if c.fails {
				q.PTX = ""
			}
			got, err := q.Code(c.nvshmem)
			if (err != nil) != c.fails || got != c.want {
				t.Fatalf("Code(%v) = %q, %v", c.nvshmem, got, err)
			}
		})
	}
}

// The runtime's PTX comes from the file given, else from SYMCHAN_PTX_DIR's
// symchan.ptx, else the embedded one; a missing given file is an error.
func TestPTXOverride(t *testing.T) {
	dir := t.TempDir()
	given, env := filepath.Join(dir, "given.ptx"), filepath.Join(dir, "symchan.ptx")
	for p, text := range map[string]string{given: "// given", env: "// dir"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, file, dir, want string
		fails                 bool
	}{
		{"embedded", "", "", Runtime.PTX, false},
		{"the folder's", "", dir, "// dir", false},
		{"given wins", given, dir, "// given", false},
		{"given, missing", filepath.Join(dir, "missing.ptx"), dir, "", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(EnvPTXDir, c.dir)
			got, err := PTX(c.file)
			if (err != nil) != c.fails || (!c.fails && got != c.want) {
				t.Fatalf("PTX(%q) with %s=%q: %.20q, %v", c.file, EnvPTXDir, c.dir, got, err)
			}
		})
	}
}

// The Go layout of struct symchan_heap matches the header's declaration:
// the header's base pointer names the array that follows it, local is
// the PE's own base, the abort word's address follows the PE count, and
// worlds past 64 PEs fit.
func TestHeapDescriptorLayout(t *testing.T) {
	for _, tc := range []struct {
		name  string
		bases []uint64
		pe    int
	}{
		{"three PEs, one unmapped", []uint64{0x1000, 0, 0x3000}, 2},
		{"1024 PEs", func() []uint64 {
			b := make([]uint64, 1024)
			for i := range b {
				b[i] = 0x10000 * uint64(i+1)
			}
			return b
		}(), 1000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const at, abort = 0x7f0000000000, 0x7e0000001000
			b := abi.HeapDescriptor(at, tc.bases, 1<<20, tc.pe, abort)
			le := func(off, n int) uint64 {
				var v uint64
				for i := n - 1; i >= 0; i-- {
					v = v<<8 | uint64(b[off+i])
				}
				return v
			}
			n := len(tc.bases)
			if int64(len(b)) != abi.HeapDescriptorSize(n) || le(0, 8) != at+40 || le(8, 8) != tc.bases[tc.pe] || le(16, 8) != 1<<20 ||
				le(24, 4) != uint64(tc.pe) || le(28, 4) != uint64(n) || le(32, 8) != abort {
				t.Fatalf("header % x", b[:40])
			}
			for i, p := range tc.bases {
				if le(40+8*i, 8) != p {
					t.Fatalf("base[%d] = %#x, want %#x", i, le(40+8*i, 8), p)
				}
			}
		})
	}
}

// internal/abi's layout.go and parts.go are what go generate makes of symchan.cuh and
// symchan.cu today: the Go side fills kernels' structs at the offsets nvcc
// gives them and passes the numbers their code compares. The files and
// names come from kernels.go's go:generate lines, so that the lists live
// there only.
func TestLayout(t *testing.T) {
	src, err := os.ReadFile("kernels.go")
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, line := range strings.Split(string(src), "\n") {
		if !strings.HasPrefix(line, "//go:generate ") || !strings.Contains(line, "cstructs") {
			continue
		}
		lines++
		var in, out, pkg string
		var names [][2]string
		fields := strings.Fields(line)
		for i, f := range fields {
			switch {
			case f == "-in" && i+1 < len(fields):
				in = fields[i+1]
			case f == "-o" && i+1 < len(fields):
				out = fields[i+1]
			case f == "-pkg" && i+1 < len(fields):
				pkg = fields[i+1]
			default:
				if c, g, ok := strings.Cut(f, "="); ok {
					names = append(names, [2]string{c, g})
				}
			}
		}
		text, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		h, err := cstructs.Parse(string(text))
		if err != nil {
			t.Fatal(err)
		}
		want, err := cstructs.GoConsts(pkg, in, h, names)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./kernels", out)
		}
	}
	if lines < 2 {
		t.Fatalf("kernels.go has %d go:generate lines for cstructs, want one for symchan.cuh and one for symchan.cu", lines)
	}
}

// Timings scales each repetition's cycles by the timer's nanoseconds per
// cycle over the log; a short, unwritten or backward log is an error.
func TestTimings(t *testing.T) {
	logOf := func(words ...uint64) []byte {
		var b []byte
		for _, w := range words {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
		return b
	}
	// 3000 ns over 6000 cycles: 0.5 ns per cycle.
	got, err := Timings(logOf(1000, 4000, 50, 6050, 2000, 4000), 2)
	if err != nil || len(got) != 2 || got[0] != time.Microsecond || got[1] != 2*time.Microsecond {
		t.Fatalf("Timings = %v, %v; want [1µs 2µs]", got, err)
	}
	for _, c := range []struct {
		name string
		log  []byte
		n    int
	}{
		{"short", logOf(1000, 4000, 50, 6050, 2000), 2},
		{"never written", make([]byte, 8*6), 2},
		{"timer backward", logOf(4000, 1000, 50, 6050, 2000, 4000), 2},
	} {
		if _, err := Timings(c.log, c.n); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

// A program compiled at run time is the user's: SYMCHAN_PTX_DIR, which
// replaces symchan's own programs by name, does not replace it, and its
// key is not its bare name (examples/ring's program is also "ring").
func TestCompiledProgramKeepsItsPTX(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ring.ptx"), []byte("// the ring example's PTX"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvPTXDir, dir)
	for _, c := range []struct {
		name    string
		p       Program
		code    string
		bareKey bool
	}{
		{"symchan's own", Program{Name: "ring", PTX: "// embedded"}, "// the ring example's PTX", true},
		{"compiled", Program{Name: "ring", PTX: "// the user's", compiled: "ring#0123456789abcdef"}, "// the user's", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, err := c.p.Code(false)
			if err != nil || code != c.code {
				t.Fatalf("Code: %q, %v; want %q", code, err, c.code)
			}
			if got := c.p.Key() == c.p.Name; got != c.bareKey {
				t.Fatalf("Key %q: equal to the name %v, want %v", c.p.Key(), got, c.bareKey)
			}
		})
	}
}
