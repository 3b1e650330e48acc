package main

import (
	"os"
	"path/filepath"
	"regexp"
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

// The record answers questions in few lines: RESULTS.md holds at most
// maxResultsLines lines.
const maxResultsLines = 400

func TestResultsSize(t *testing.T) {
	b, err := os.ReadFile("../../RESULTS.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > maxResultsLines {
		t.Errorf("RESULTS.md has %d lines, more than %d: keep the current figures only (a comparison of two builds goes in its commit or CHANGELOG entry)", n, maxResultsLines)
	}
}

// periodWord is the word for a stretch of work that runs must not be
// named by, spelt in two pieces so that this file, which must say it, does
// not carry it whole.
const periodWord = "ses" + "sion"

// workingPeriod matches a name of a working period (an ordinal and that
// word, or "the third working day"): runs are named by date, commit and
// machine.
var workingPeriod = regexp.MustCompile(`(?i)\b(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|\d+(st|nd|rd|th))('s)?\s+(` + periodWord + `s?|working\s+(days?|periods?))\b|\b` + periodWord + `s?\s+\d+\b`)

// No file of the repository names a working period (its history, the
// CHANGELOG, may quote old names; git keeps the rest).
func TestNoWorkingPeriodNames(t *testing.T) {
	root := "../../.."
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch filepath.Ext(name) {
		case ".go", ".md", ".sh", ".txt", ".yaml", ".cu", ".cuh", ".py", "":
		default:
			return nil
		}
		if name == "CHANGELOG.md" || strings.HasSuffix(name, "_test.go") && strings.Contains(path, "cmd/results") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if m := workingPeriod.Find(b); m != nil {
			t.Errorf("%s names a working period (%q): name runs by date, commit and machine", path, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWorkingPeriodPattern(t *testing.T) {
	for _, c := range []struct {
		text string
		bad  bool
	}{
		{"against the sixteenth's HEAD, the seventeenth " + periodWord, true},
		{"the log's fourteenth and thirteenth " + periodWord + "s", true},
		{"the third working day", true},
		{periodWord + " 12", true},
		{"2026-11-28, nvidia-h100-x4, commit 9a87521", false},
		{"the first phase of a collective", false},
		{"NVSHMEM's second process", false},
	} {
		if got := workingPeriod.MatchString(c.text); got != c.bad {
			t.Errorf("%q: matched %v, want %v", c.text, got, c.bad)
		}
	}
}
