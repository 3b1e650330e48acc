package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed tables of RESULTS.md and the README are what the committed
// raw files give.
func TestCommittedTablesAreCurrent(t *testing.T) {
	if err := run("../..", true); err != nil {
		t.Fatal(err)
	}
}

// A raw file's lines become cells: medians per row and column, the
// GOMAXPROCS suffix and "[PE 0] " dropped, columns by impl= or by a
// configuration key, rows led by configuration keys, a ratio column.
func TestRender(t *testing.T) {
	raw := `date: 2026-11-25
machine: vm
commit: abc
[PE 0] BenchmarkRT/impl=symchan-2 10 300 ns/op
BenchmarkRT/impl=symchan-2 10 100 ns/op
BenchmarkRT/impl=symchan-2 10 200 ns/op
BenchmarkRT/impl=gochan-2 10 50 ns/op
BenchmarkRate/warps=8-16 1 5 ns/op 2.5 Mmsg/s
build: old
mode: park
BenchmarkHop-2 10 1000 ns/op
build: new
BenchmarkHop-2 10 1100 ns/op
mode: spin
BenchmarkHop-2 10 400 ns/op
build: old
BenchmarkHop-2 10 500 ns/op
`
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "r.txt"), []byte(raw), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		table table
		want  []string // lines the rendering must hold
	}{
		{"impl columns", table{title: "T", file: "r.txt", match: `^RT$`, unit: "sec/op"},
			[]string{"(2026-11-25, vm; commit abc), medians of up to 3 runs", "| benchmark | symchan | gochan |", "| `RT` | 200 ns | 50 ns |"}},
		{"custom unit", table{title: "T", file: "r.txt", match: `^Rate/`, unit: "Mmsg/s"},
			[]string{"| `Rate/warps=8` | 2.5 |"}},
		{"configuration columns and ratio", table{title: "T", file: "r.txt", match: `^Hop$`, unit: "sec/op", col: "build", keys: []string{"mode"}, ratio: [2]string{"old", "new"}},
			[]string{"| benchmark | old | new | new ÷ old |", "| `mode=park Hop` | 1 µs | 1.1 µs | 1.10× |", "| `mode=spin Hop` | 500 ns | 400 ns | 0.80× |"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := render(dir, "###", []table{c.table})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("missing %q in\n%s", w, got)
				}
			}
		})
	}
	if _, err := render(dir, "###", []table{{file: "r.txt", match: `^None$`, unit: "sec/op"}}); err == nil {
		t.Error("a table that matches nothing: want an error")
	}
}
