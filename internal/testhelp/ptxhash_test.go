package testhelp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestNormalizeC(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"line comment", "int a; // a\nint b;\n", "int a;\nint b;\n"},
		{"block comment is a space", "int/* x */a;", "int a;\n"},
		{"block comment over lines", "a /* 1\n2 */ b\nc", "a b\nc\n"},
		{"unterminated block comment", "a /* b", "a\n"},
		{"blanks", "\t  int   a ;  \n\n\n  b\t\n", "int a ;\nb\n"},
		{"comment marks in a string", `s = "// not /* a comment";`, `s = "// not /* a comment";` + "\n"},
		{"escaped quote in a string", `s = "a\" // b"; // c`, `s = "a\" // b";` + "\n"},
		{"char literals", `c = '"'; d = '\''; // e`, `c = '"'; d = '\'';` + "\n"},
		{"blanks in a string kept", `s = "a   b";`, `s = "a   b";` + "\n"},
		{"carriage returns", "a\r\nb\r\n", "a\nb\n"},
		{"directive", "#define X 1 // one\n#include <a.h>\n", "#define X 1\n#include <a.h>\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := NormalizeC(c.in); got != c.want {
				t.Errorf("NormalizeC(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// The PTX headers are written on a GPU machine by the Python twin of
// SourcesHash: both must give the same hash, on the cases above and on
// every CUDA source of the repository.
func TestSourcesHashMatchesScript(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Fatalf("python3, which scripts/ptx-sources-hash.py needs: %v", err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(repo, "*", "*.cu*"))
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob(filepath.Join(repo, "examples", "*", "*.cu"))
	files = append(files, more...)
	dir := t.TempDir()
	for i, c := range []string{"a /* b */ c // d\n", `s = "a\" // b"; // c` + "\n\r\n", "\t x \t y \n", "'\\''/*x*/"} {
		f := filepath.Join(dir, string(rune('a'+i))+".cu")
		if err := os.WriteFile(f, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	if len(files) < 8 {
		t.Fatalf("found %d CUDA sources, expected the repository's", len(files))
	}
	for _, f := range files {
		want, err := SourcesHash(f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(py, filepath.Join(repo, "scripts", "ptx-sources-hash.py"), f).Output()
		if err != nil {
			t.Fatalf("ptx-sources-hash.py %s: %v", f, err)
		}
		if got := strings.TrimSpace(string(out)); got != want {
			t.Errorf("%s: the script hashes it to %s, SourcesHash to %s", f, got, want)
		}
	}
}
