package conformance

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// Every test function of the package is in a suite's table: a test written
// and never listed would silently never run.
func TestSuitesComplete(t *testing.T) {
	listed := map[string]bool{}
	for _, suite := range [][]test{pgasTests, actorsTests, gpuTests} {
		for _, tc := range suite {
			if listed[tc.name] {
				t.Errorf("%s is listed twice", tc.name)
			}
			listed[tc.name] = true
		}
	}
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !strings.HasPrefix(fn.Name.Name, "test") || len(fn.Type.Params.List) != 1 {
				continue // the tests are the kit's methods test…(t *testing.T)
			}
			if name := strings.TrimPrefix(fn.Name.Name, "test"); !listed[name] {
				t.Errorf("test%s is in no suite (suites.go)", name)
			}
		}
	}
}
