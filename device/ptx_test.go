package device

import (
	"slices"
	"strings"
	"testing"
)

func TestPTXEntries(t *testing.T) {
	for _, tc := range []struct {
		name, ptx string
		want      []string
	}{
		{"none", ".version 8.0\n.target sm_90\n.visible .func helper()\n{}\n", nil},
		{"visible", ".visible .entry symchan_wait(\n\t.param .u64 a\n)\n{}\n", []string{"symchan_wait"}},
		{"plain and weak", ".entry a(\n){}\n.weak .entry b\n(\n){}\n", []string{"a", "b"}},
		{"mangled", ".visible .entry _Z3addPmS_S_m(\n){}", []string{"_Z3addPmS_S_m"}},
		{"dollar", ".entry $k_1(){}", []string{"$k_1"}},
		{"line comment", "// .entry fake(\n.entry real(){}", []string{"real"}},
		{"block comment", "/* .entry fake(\n */ .entry real(){}", []string{"real"}},
		{"globl comment", "\t// .globl\tsymchan_copy\n.visible .entry symchan_copy(){}", []string{"symchan_copy"}},
		{"not a directive", ".entryx a(){}\n.maxntid 256\n", nil},
		{"unterminated comment", ".entry a(){}\n/* .entry b(", []string{"a"}},
		{"truncated", ".entry", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ptxEntries(tc.ptx); !slices.Equal(got, tc.want) {
				t.Errorf("ptxEntries = %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzPTXEntries: any text gives names made of identifier characters,
// each of which follows an .entry directive in the text.
func FuzzPTXEntries(f *testing.F) {
	f.Add(".visible .entry k(\n){}\n// .entry c\n/* x */.entry $y ()")
	f.Fuzz(func(t *testing.T, ptx string) {
		for _, n := range ptxEntries(ptx) {
			if n == "" || strings.IndexFunc(n, func(r rune) bool { return r > 127 || !isPTXIdent(byte(r)) }) >= 0 {
				t.Fatalf("name %q", n)
			}
			if !strings.Contains(ptx, n) {
				t.Fatalf("name %q not in the text", n)
			}
		}
	})
}
