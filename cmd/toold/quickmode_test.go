package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickModesCoverAll: the quick run runs each forEachMode test in one
// mode and framing (quickMode, by the test's name); across the package's
// tests every one of the six is some test's, so that a transport broken in
// one mode fails the quick run too. A new test or a renamed one can move
// the choice: this says so rather than let a mode go unrun.
func TestQuickModesCoverAll(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	count := make([]int, len(modeFramings()))
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if ok && strings.HasPrefix(fn.Name.Name, "Test") && callsForEachMode(fn) {
				count[quickMode(fn.Name.Name)]++
			}
		}
	}
	for i, mf := range modeFramings() {
		if count[i] == 0 {
			t.Errorf("no test runs in %s in the quick run: %v tests per mode", mf.name, count)
		}
	}
	t.Logf("forEachMode tests per mode in the quick run: %v", count)
}

// callsForEachMode reports whether fn's body calls forEachMode.
func callsForEachMode(fn *ast.FuncDecl) bool {
	found := false
	ast.Inspect(fn, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "forEachMode" {
				found = true
			}
		}
		return !found
	})
	return found
}
