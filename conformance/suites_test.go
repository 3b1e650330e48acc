package conformance

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
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
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range pkgs["conformance"].Files {
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
