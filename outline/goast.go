package outline

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
)

// goOutline outlines Go source with go/ast: one entry per declaration, at
// the lines the parser gives. A file that does not parse is outlined as far
// as the parser got; one with no declarations at all gives nil (indent).
func goOutline(path string, src []byte, opt Options) *Outline {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	if f == nil || err != nil && len(f.Decls) == 0 {
		return nil
	}
	c := collector{max: opt.MaxEntries, from: opt.FromLine}
	lines := func(n ast.Node) (int64, int64) {
		return int64(fset.Position(n.Pos()).Line), int64(fset.Position(n.End()).Line)
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			from, to := lines(d)
			kind, name := "func", d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				kind, name = "method", "("+recvType(d.Recv.List[0].Type)+")."+name
			}
			c.add(Entry{Line: from, EndLine: to, Depth: 1, Kind: kind, Name: name})
		case *ast.GenDecl:
			genDecl(&c, d, lines)
		}
	}
	return c.outline(Go)
}

// genDecl adds a type, const, var or import declaration: a type each, and a
// const or var block as one entry naming its first names.
func genDecl(c *collector, d *ast.GenDecl, lines func(ast.Node) (int64, int64)) {
	kind := d.Tok.String()
	if d.Tok == token.TYPE {
		for _, s := range d.Specs {
			ts := s.(*ast.TypeSpec)
			from, to := lines(ts)
			if !d.Lparen.IsValid() {
				from, to = lines(d)
			}
			k := "type"
			switch ts.Type.(type) {
			case *ast.StructType:
				k = "struct"
			case *ast.InterfaceType:
				k = "interface"
			}
			c.add(Entry{Line: from, EndLine: to, Depth: 1, Kind: k, Name: ts.Name.Name})
		}
		return
	}
	var names []string
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.ValueSpec:
			for _, n := range s.Names {
				names = append(names, n.Name)
			}
		case *ast.ImportSpec:
			names = append(names, s.Path.Value)
		}
	}
	from, to := lines(d)
	c.add(Entry{Line: from, EndLine: to, Depth: 1, Kind: kind, Name: clip(joinNames(names))})
}

// joinNames lists the first few names and how many more.
func joinNames(names []string) string {
	const show = 4
	if len(names) <= show {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:show], ", ") + ", … (" + itoa(len(names)) + ")"
}

// recvType renders a receiver's type as Go writes it: *conn, T[K].
func recvType(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return "*" + recvType(e.X)
	case *ast.Ident:
		return e.Name
	case *ast.IndexExpr:
		return recvType(e.X)
	case *ast.IndexListExpr:
		return recvType(e.X)
	case *ast.ParenExpr:
		return recvType(e.X)
	case *ast.SelectorExpr:
		return recvType(e.X) + "." + e.Sel.Name
	}
	return "?"
}
