package testhelp

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
)

// SourcesHash is the sha256, in hex, of the CUDA C files in order, each
// read as NormalizeC gives it: the hash a committed PTX file's first line
// records (scripts/gpu-ptx.sh writes it, computed by
// scripts/ptx-sources-hash.py, which normalizes as NormalizeC does), so
// that a change of comments or layout does not make the PTX stale.
func SourcesHash(files ...string) (string, error) {
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		h.Write([]byte(NormalizeC(string(b))))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// NormalizeC is C or CUDA source without what cannot change the code
// compiled from it: comments (a block comment counts as a blank), each
// line's leading and trailing blanks, runs of blanks (space, tab, \r, \v,
// \f) outside literals (one space each), and empty lines. String and
// character literals are kept as they are. Every line it keeps ends with
// a newline.
func NormalizeC(src string) string {
	var out strings.Builder
	line := false  // the current line has kept something
	blank := false // blanks since the last thing kept
	keep := func(s string) {
		if blank && line {
			out.WriteByte(' ')
		}
		out.WriteString(s)
		line, blank = true, false
	}
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == '\n':
			if line {
				out.WriteByte('\n')
			}
			line, blank = false, false
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f':
			blank = true
			i++
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(src) && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(src))
			keep(src[i:j])
			i = j
		case strings.HasPrefix(src[i:], "//"):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], "/*"):
			end := strings.Index(src[i+2:], "*/")
			if end < 0 {
				i = len(src)
			} else {
				i += 2 + end + 2
			}
			blank = true
		default:
			keep(src[i : i+1])
			i++
		}
	}
	if line {
		out.WriteByte('\n')
	}
	return out.String()
}
