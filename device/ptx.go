package device

import (
	"fmt"
	"strconv"
	"strings"
)

// ptxKernel is a kernel (.entry directive) of PTX text: its name and the
// byte size of each parameter, as its parameter list declares them;
// params is nil where the list could not be read.
type ptxKernel struct {
	name   string
	params []int
}

// ptxKernels returns the kernels that PTX text defines, in order,
// skipping comments. LoadModule resolves each of them at load time (see
// Module) and keeps their parameter sizes (Function.Params).
func ptxKernels(ptx string) []ptxKernel {
	var ks []ptxKernel
	for len(ptx) > 0 {
		i := strings.IndexAny(ptx, "/.")
		if i < 0 {
			break
		}
		ptx = ptx[i:]
		switch {
		case strings.HasPrefix(ptx, "//"):
			end := strings.IndexByte(ptx, '\n')
			if end < 0 {
				return ks
			}
			ptx = ptx[end:]
		case strings.HasPrefix(ptx, "/*"):
			end := strings.Index(ptx[2:], "*/")
			if end < 0 {
				return ks
			}
			ptx = ptx[end+4:]
		case strings.HasPrefix(ptx, ".entry") && len(ptx) > 6 && isPTXSpace(ptx[6]):
			rest := strings.TrimLeft(ptx[6:], " \t\r\n")
			n := 0
			for n < len(rest) && isPTXIdent(rest[n]) {
				n++
			}
			ptx = rest[n:]
			if n > 0 {
				k := ptxKernel{name: rest[:n]}
				k.params, ptx = ptxParams(ptx)
				ks = append(ks, k)
			}
		default:
			ptx = ptx[1:]
		}
	}
	return ks
}

// ptxParams reads the parameter list at the start of s (after a kernel's
// name): the byte size of each parameter, and s after the list. A kernel
// without a list takes none; a list it cannot read gives nil.
func ptxParams(s string) ([]int, string) {
	t := strings.TrimLeft(s, " \t\r\n")
	if !strings.HasPrefix(t, "(") {
		return []int{}, s
	}
	end := strings.IndexByte(t, ')')
	if end < 0 {
		return nil, s
	}
	list, rest := strings.TrimSpace(t[1:end]), t[end+1:]
	sizes := []int{}
	if list == "" {
		return sizes, rest
	}
	for _, p := range strings.Split(list, ",") {
		n := ptxParamSize(strings.Fields(p))
		if n <= 0 {
			return nil, rest
		}
		sizes = append(sizes, n)
	}
	return sizes, rest
}

// ptxParamSize is the byte size of one parameter declaration, split into
// words (".param", directives, the name with its element count): for
// example ".param .u64 k_param_0" (8), ".param .u64 .ptr .global .align 8
// k_param_1" (8) or ".param .align 8 .b8 k_param_2[24]" (24); 0 if it is
// not one.
func ptxParamSize(words []string) int {
	if len(words) < 3 || words[0] != ".param" {
		return 0
	}
	size := 0
	for i := 1; i < len(words)-1; i++ {
		w := words[i]
		switch {
		case w == ".align":
			i++ // its value
		case ptxTypeSize[w] > 0:
			if size > 0 {
				return 0 // two types
			}
			size = ptxTypeSize[w]
		case !strings.HasPrefix(w, "."):
			return 0
		}
	}
	name := words[len(words)-1]
	if size == 0 || name == "" || !isPTXIdent(name[0]) {
		return 0
	}
	if i := strings.IndexByte(name, '['); i >= 0 {
		if !strings.HasSuffix(name, "]") {
			return 0
		}
		n, err := strconv.Atoi(name[i+1 : len(name)-1])
		if err != nil || n <= 0 || n > 1<<16 {
			return 0
		}
		size *= n
	}
	return size
}

// ptxTypeSize is the byte size of PTX's fundamental types.
var ptxTypeSize = map[string]int{
	".b8": 1, ".u8": 1, ".s8": 1,
	".b16": 2, ".u16": 2, ".s16": 2, ".f16": 2, ".bf16": 2,
	".b32": 4, ".u32": 4, ".s32": 4, ".f32": 4, ".f16x2": 4, ".bf16x2": 4,
	".b64": 8, ".u64": 8, ".s64": 8, ".f64": 8,
	".b128": 16,
}

// paramsError is why a launch of kernel name, whose parameters have the
// byte sizes params (nil: not known), cannot pass n 8-byte words; nil if
// it can.
func paramsError(name string, params []int, n int) error {
	if params == nil {
		return nil
	}
	if n != len(params) {
		return fmt.Errorf("%w: kernel %s takes %d parameters, not %d", ErrBadLaunch, name, len(params), n)
	}
	for i, p := range params {
		if p > 8 {
			return fmt.Errorf("%w: kernel %s: parameter %d is %d bytes (a launch passes words of 8)", ErrBadLaunch, name, i, p)
		}
	}
	return nil
}

func isPTXSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// isPTXIdent: PTX identifiers are letters, digits, _ and $ (and % for
// registers, which are not kernel names).
func isPTXIdent(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
