package device

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPTXKernels(t *testing.T) {
	type k = ptxKernel
	for _, tc := range []struct {
		name, ptx string
		want      []k
	}{
		{"none", ".version 8.0\n.target sm_90\n.visible .func helper()\n{}\n", nil},
		{"visible", ".visible .entry symchan_wait(\n\t.param .u64 a\n)\n{}\n", []k{{"symchan_wait", []int{8}}}},
		{"plain and weak", ".entry a(\n){}\n.weak .entry b\n(\n){}\n", []k{{"a", []int{}}, {"b", []int{}}}},
		{"no list", ".entry a\n{\n}\n", []k{{"a", []int{}}}},
		{"mangled", ".visible .entry _Z3addPmS_S_m(\n){}", []k{{"_Z3addPmS_S_m", []int{}}}},
		{"dollar", ".entry $k_1(){}", []k{{"$k_1", []int{}}}},
		{"line comment", "// .entry fake(\n.entry real(){}", []k{{"real", []int{}}}},
		{"block comment", "/* .entry fake(\n */ .entry real(){}", []k{{"real", []int{}}}},
		{"globl comment", "\t// .globl\tsymchan_copy\n.visible .entry symchan_copy(){}", []k{{"symchan_copy", []int{}}}},
		{"not a directive", ".entryx a(){}\n.maxntid 256\n", nil},
		{"unterminated comment", ".entry a(){}\n/* .entry b(", []k{{"a", []int{}}}},
		{"truncated", ".entry", nil},
		{"unclosed list", ".entry a(\n\t.param .u64 a_param_0,", []k{{"a", nil}}},
		{"sizes", ".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1,\n\t.param .f64 k_param_2,\n" +
			"\t.param .u8 k_param_3,\n\t.param .b16 k_param_4,\n\t.param .f32 k_param_5\n)\n{}",
			[]k{{"k", []int{8, 4, 8, 1, 2, 4}}}},
		{"pointer attributes", ".entry k(\n\t.param .u64 .ptr .global .align 8 k_param_0,\n\t.param .u64 .ptr .align 1 k_param_1\n){}",
			[]k{{"k", []int{8, 8}}}},
		{"struct by value", ".entry k(\n\t.param .align 8 .b8 k_param_0[24],\n\t.param .s32 k_param_1\n){}", []k{{"k", []int{24, 4}}}},
		{"unknown type", ".entry k(\n\t.param .u37 k_param_0\n){}\n.entry j(){}", []k{{"k", nil}, {"j", []int{}}}},
		{"no name", ".entry k(\n\t.param .u64\n){}", []k{{"k", nil}}},
		{"two types", ".entry k(\n\t.param .u64 .u32 x\n){}", []k{{"k", nil}}},
		{"bad count", ".entry k(\n\t.param .b8 x[0]\n){}", []k{{"k", nil}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ptxKernels(tc.ptx)
			if !slices.EqualFunc(got, tc.want, func(a, b k) bool {
				return a.name == b.name && slices.Equal(a.params, b.params) && (a.params == nil) == (b.params == nil)
			}) {
				t.Errorf("ptxKernels = %v, want %v", got, tc.want)
			}
		})
	}
}

// Every kernel of the repository's PTX (nvcc's output, the runtime's, the
// tests' and the examples') has a list the reader reads, of as many
// sizes as the list has .param lines.
func TestPTXKernelsOfRepository(t *testing.T) {
	files, _ := filepath.Glob("../*/*.ptx")
	more, _ := filepath.Glob("../examples/*/*.ptx")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no PTX files found")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ks := ptxKernels(string(b))
		if len(ks) == 0 {
			t.Errorf("%s: no kernels read", f)
		}
		for _, k := range ks {
			if k.params == nil {
				t.Errorf("%s: kernel %s: parameter list not read", f, k.name)
				continue
			}
			head := string(b)[strings.Index(string(b), ".entry "+k.name):]
			head = head[:strings.IndexByte(head, ')')]
			if n := strings.Count(head, ".param "); n != len(k.params) {
				t.Errorf("%s: kernel %s: %d sizes read, %d parameters declared", f, k.name, len(k.params), n)
			}
		}
	}
}

// FuzzPTXKernels: any text gives names made of identifier characters,
// each of which follows an .entry directive in the text, and positive
// parameter sizes.
func FuzzPTXKernels(f *testing.F) {
	f.Add(".visible .entry k(\n){}\n// .entry c\n/* x */.entry $y ()")
	f.Add(".entry k(\n\t.param .align 8 .b8 k_param_0[24],\n\t.param .u64 .ptr .global .align 8 k_param_1\n){}")
	f.Fuzz(func(t *testing.T, ptx string) {
		for _, k := range ptxKernels(ptx) {
			n := k.name
			if n == "" || strings.IndexFunc(n, func(r rune) bool { return r > 127 || !isPTXIdent(byte(r)) }) >= 0 {
				t.Fatalf("name %q", n)
			}
			if !strings.Contains(ptx, n) {
				t.Fatalf("name %q not in the text", n)
			}
			for _, p := range k.params {
				if p <= 0 {
					t.Fatalf("kernel %s: parameter size %d", n, p)
				}
			}
		}
	})
}

func TestParamsError(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params []int
		n      int
		ok     bool
	}{
		{"unknown", nil, 3, true},
		{"none", []int{}, 0, true},
		{"as many", []int{8, 4, 1}, 3, true},
		{"fewer", []int{8, 8}, 1, false},
		{"more", []int{8}, 2, false},
		{"struct by value", []int{8, 24}, 2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := paramsError("k", tc.params, tc.n)
			if tc.ok != (err == nil) || err != nil && !errors.Is(err, ErrBadLaunch) {
				t.Errorf("paramsError(%v, %d) = %v, want ok %v (else ErrBadLaunch)", tc.params, tc.n, err, tc.ok)
			}
		})
	}
}
