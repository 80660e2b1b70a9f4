package outline

import (
	"bytes"
	"context"
	"errors"
	"go/parser"
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// byteTable is Go source of a bindata-style byte table of about size
// bytes: one token every three bytes, the most go/ast holds per byte.
// tableInBudget is the size of a byte table go/ast outlines: its weight
// (some 32,000 tokens, 2 MiB) is past goFree, so its parse takes a share
// of the budget, and its parse under -race costs a fifth of 256 KB's.
const tableInBudget = 96 << 10

func byteTable(size int) []byte {
	line, end := strings.Repeat("0x1f, ", 16)+"\n", "}\n\nfunc Asset() []byte { return _bindata }\n"
	// Of its final size at once: a bytes.Buffer's doublings copied 32 MiB
	// for the 16 MiB table, which -race checked, a CPU-second of the test.
	b := make([]byte, 0, size+len(line)+len(end))
	b = append(b, "package data\n\nvar _bindata = []byte{\n"...)
	for len(b) < size {
		b = append(b, line...)
	}
	return append(b, end...)
}

// nested is Go source whose one expression nests depth parentheses.
func nested(depth int) []byte {
	return []byte("package p\n\nvar x = " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "\n\nfunc F() {}\n")
}

// TestGoBounds: go/ast is given only a file whose parse fits the daemon's
// budget and whose nesting is shallow; any other is outlined by indent
// (nil, nil), in a pass that holds almost nothing (go/ast's memory is many
// times a file's size: a 16 MiB byte table took 290 MiB, a 195 KB file
// nested 100,000 deep 227 MiB, before the parse ended or gave up).
func TestGoBounds(t *testing.T) {
	server, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		src      []byte
		goAST    bool  // outlined by go/ast
		maxAlloc int64 // bytes Build may allocate, beyond the outline
	}{
		{"net/http/server.go", server, true, 0},
		{"a byte table within the budget", byteTable(tableInBudget), true, 0},
		{"a 16 MiB byte table", byteTable(16<<20 - 4096), false, 1 << 20},
		{"a byte table just past the budget", byteTable(goBudget / goTokenBytes * 3), false, 1 << 20},
		{"nested 100,000 deep", nested(100_000), false, 1 << 20},
		{"nested 300 deep", nested(300), true, 0},
		{"nested just past the bound", nested(maxGoDepth + 1), false, 1 << 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			o, err := Build(context.Background(), Go, "x.go", bytes.NewReader(tt.src), int64(len(tt.src)), lineCount(tt.src), Options{})
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if got := o != nil; got != tt.goAST {
				t.Fatalf("outlined by go/ast: %v, want %v", got, tt.goAST)
			}
			if alloc := int64(after.TotalAlloc - before.TotalAlloc); tt.maxAlloc > 0 && alloc > tt.maxAlloc {
				t.Errorf("allocated %d bytes to fall back, want at most %d", alloc, tt.maxAlloc)
			}
		})
	}
}

// TestGoBudgetShared: a parse waits for its share of the daemon's budget
// while others hold it, and gives up with its context; a small file's
// takes none, and does not wait.
func TestGoBudgetShared(t *testing.T) {
	src := byteTable(tableInBudget)
	build := func(ctx context.Context) (*Outline, error) {
		return Build(ctx, Go, "x.go", bytes.NewReader(src), int64(len(src)), lineCount(src), Options{})
	}
	if err := goParses.Acquire(context.Background(), goBudget); err != nil {
		t.Fatal(err)
	}
	small := []byte("package p\n\nfunc F() {}\n")
	if o, err := Build(context.Background(), Go, "x.go", bytes.NewReader(small), int64(len(small)), 3, Options{}); err != nil || o == nil {
		t.Errorf("a small file with the budget taken: %v %v", o, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := build(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("with the budget taken: %v, want the context's deadline", err)
	}
	done := make(chan *Outline, 1)
	go func() { o, _ := build(context.Background()); done <- o }()
	select {
	case <-done:
		t.Fatal("a parse ran with the budget taken")
	case <-time.After(50 * time.Millisecond):
	}
	goParses.Release(goBudget)
	if o := <-done; o == nil || len(o.Entries) != 2 {
		t.Errorf("after the budget was released: %+v", o)
	}
}

// FuzzGoShape: of Go that parses, goShape never counts fewer tokens than
// go/scanner finds (comments and the semicolons it inserts aside) nor a
// shallower nesting: what it lets through, go/ast can hold. Of source that
// does not parse it may ("0a" is one word to it, two tokens to the
// scanner), but go/parser gives up after ten errors: such source makes no
// large tree.
func FuzzGoShape(f *testing.F) {
	for _, s := range []string{"package p\nfunc F() { x := `a\n//b` + \"c\\\"\" /* d */ + 'e' / 2 }\n", string(nested(5)), "package p\nvar x = y(1.5e3, 0x1p-2, '\\'')", "/* unterminated", "\"broken\nx", "a/b//c\n/ /"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var s scanner.Scanner
		fs := token.NewFileSet()
		s.Init(fs.AddFile("x.go", -1, len(src)), src, nil, 0)
		var tokens int64
		depth, maxDepth := 0, 0
		for {
			_, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok == token.ILLEGAL || tok == token.SEMICOLON && lit == "\n" {
				continue
			}
			tokens++
			switch tok {
			case token.LPAREN, token.LBRACK, token.LBRACE:
				depth++
				maxDepth = max(maxDepth, depth)
			case token.RPAREN, token.RBRACK, token.RBRACE:
				depth = max(depth-1, 0)
			}
		}
		g := newGoShape(1<<62, 1<<30)
		for p := src; len(p) > 0; p = p[min(len(p), 7):] { // in pieces, as it streams
			g.Write(p[:min(len(p), 7)])
		}
		if _, err := parser.ParseFile(token.NewFileSet(), "x.go", src, parser.SkipObjectResolution); err != nil {
			return
		}
		if g.tokens < tokens || g.maxDepth < maxDepth {
			t.Errorf("%q: goShape %d tokens, depth %d; go/scanner %d, %d", src, g.tokens, g.maxDepth, tokens, maxDepth)
		}
	})
}
