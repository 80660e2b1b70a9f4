package outline

import (
	"bytes"
	"context"
	"fmt"
	"github.com/toold/toold/protocol"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// stream outlines text with format's scanner, fed in chunks of n bytes.
func stream(t testing.TB, format string, text []byte, n int) *Outline {
	s := NewScanner(format, Options{})
	if s == nil {
		t.Fatalf("no scanner for %s", format)
	}
	for p := text; len(p) > 0; {
		k := min(n, len(p))
		s.Write(p[:k])
		p = p[k:]
	}
	return s.Finish(lineCount(text))
}

func lineCount(b []byte) int64 {
	n := int64(bytes.Count(b, []byte{'\n'}))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// brief renders entries one to a line: "line-end depth kind name".
func brief(o *Outline) string {
	var b strings.Builder
	for _, e := range o.Entries {
		fmt.Fprintf(&b, "%d-%d %d %s %s", e.Line, e.EndLine, e.Depth, e.Kind, e.Name)
		if e.Lines > 0 && e.Kind != "elements" && e.Kind != "rows" {
			fmt.Fprintf(&b, " lines=%d", e.Lines)
		}
		if len(e.Levels) > 0 {
			fmt.Fprintf(&b, " %v", e.Levels)
		}
		if len(e.Kinds) > 0 {
			fmt.Fprintf(&b, " %+v", e.Kinds)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestScanners(t *testing.T) {
	tests := []struct {
		file, format, want string
	}{
		{"book.md", Markdown, `4-21 1 heading Part one
8-14 2 heading Chapter 1
15-21 2 heading Chapter two
22-26 1 heading Part two
25-26 3 heading Deep
`},
		{"config.json", JSON, `2-2 1 key name
3-3 1 key version
4-9 1 key build
5-5 2 key flags
6-8 2 key env
10-14 1 key items
11-11 2 elements [0]
12-12 2 elements [1]
13-13 2 elements [2]
`},
		{"config.yaml", YAML, `2-2 1 key name
3-7 1 key build
4-5 2 key flags
6-7 2 key env
8-10 1 key script
11-15 1 key servers
12-13 2 item name: a
14-15 2 item name: b
17-17 1 key second
`},
		{"table.csv", CSV, `1-1 1 header id,name,note
2-2 1 rows row 1
3-4 1 rows row 2
5-5 1 rows row 3
`},
		{"notes.txt", Indent, `1-2 1 block Introduction line one
4-9 1 block Section A:
5-6 2 block item one
8-9 2 block item three
10-12 1 block Section B:
11-11 2 block only item
13-13 1 block Trailer
`},
	}
	for _, tt := range tests {
		text, err := os.ReadFile(filepath.Join("testdata", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{1, 7, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d", tt.file, n), func(t *testing.T) {
				o := stream(t, tt.format, text, n)
				if got := brief(o); got != tt.want {
					t.Errorf("outline of %s:\n%s\nwant\n%s", tt.file, got, tt.want)
				}
				if o.Format != tt.format || o.TotalEntries != len(o.Entries) || o.Truncated {
					t.Errorf("format %s total %d truncated %v", o.Format, o.TotalEntries, o.Truncated)
				}
			})
		}
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		path, head, want string
	}{
		{"a.go", "", Go},
		{"README.md", "", Markdown},
		{"x.JSON", "", JSON},
		{"c.yml", "", YAML},
		{"t.csv", "", CSV},
		{"t.tsv", "", TSV},
		{"app.log", "", Log},
		{"notes", "2024-01-02 10:00:00 INFO up\n2024-01-02 10:00:01 INFO ok\n", Log},
		{"notes.txt", "just words\n", Indent},
		{"a.py", "import os\n", Ctags},
		{"a.ts", "", Ctags},
	}
	for _, tt := range tests {
		if got := Detect(tt.path, []byte(tt.head)); got != tt.want {
			t.Errorf("Detect(%q) = %s, want %s", tt.path, got, tt.want)
		}
	}
}

// TestGoServer outlines net/http's server.go and checks each entry's lines
// against the text: the declaration on its first line, "}" on its last.
func TestGoServer(t *testing.T) {
	path := filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Skip("no GOROOT source:", err)
	}
	o, err := Build(context.Background(), Go, path, bytes.NewReader(src), int64(len(src)), lineCount(src), Options{})
	if err != nil || o == nil {
		t.Fatal(o, err)
	}
	lines := strings.Split(string(src), "\n")
	want := map[string]string{
		"(*conn).serve":     "func (c *conn) serve(ctx context.Context) {",
		"(*Server).Serve":   "func (s *Server) Serve(l net.Listener) error {",
		"ListenAndServe":    "func ListenAndServe(addr string, handler Handler) error {",
		"(*response).Write": "func (w *response) Write(data []byte) (n int, err error) {",
	}
	for _, e := range o.Entries {
		decl, ok := want[e.Name]
		if !ok {
			continue
		}
		delete(want, e.Name)
		if got := lines[e.Line-1]; got != decl {
			t.Errorf("%s starts at line %d: %q, want %q", e.Name, e.Line, got, decl)
		}
		if got := lines[e.EndLine-1]; got != "}" {
			t.Errorf("%s ends at line %d: %q", e.Name, e.EndLine, got)
		}
	}
	if len(want) > 0 {
		t.Errorf("not outlined: %v", want)
	}
}

func TestGoKinds(t *testing.T) {
	src := "package p\n\nimport \"fmt\"\n\nconst (\n\tA = 1\n\tB = 2\n)\n\ntype T[K comparable] struct {\n\tk K\n}\n\nfunc (t *T[K]) M() {}\n\nvar v = fmt.Sprint()\n"
	o := goOutline("p.go", []byte(src), Options{}.withDefaults())
	want := "3-3 1 import \"fmt\"\n5-8 1 const A, B\n10-12 1 struct T\n14-14 1 method (*T).M\n16-16 1 var v\n"
	if got := brief(o); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if goOutline("p.go", []byte("not go at all"), Options{}.withDefaults()) != nil {
		t.Error("a file that does not parse gave an outline")
	}
}

// TestCtagsAndIndent outlines a Python and a TypeScript file through ctags
// (when installed) and through indent with ctags hidden.
func TestCtagsAndIndent(t *testing.T) {
	tests := []struct {
		file       string
		ctags      []string // names ctags must give
		indentWant string
	}{
		{"sample.py", []string{"Store", "Store.__init__", "Store.get", "main"}, `1-1 1 block import os
4-12 1 block class Store:
5-5 2 block """A store."""
7-8 2 block def __init__(self, path):
10-12 2 block def get(self, key):
15-17 1 block def main():
16-17 2 block s = Store("/tmp")
20-21 1 block if __name__ == "__main__":
21-21 2 block main()
`},
		{"sample.ts", []string{"Options", "Walker", "Walker.walk", "load"}, `1-1 1 block import { readFile } from "fs/promises";
3-6 1 block export interface Options {
4-5 2 block root: string;
8-15 1 block export class Walker {
9-9 2 block constructor(private opts: Options) {}
11-14 2 block async walk(dir: string): Promise<string[]> {
17-19 1 block export function load(path: string): Promise<string> {
18-18 2 block return readFile(path, "utf8");
`},
	}
	for _, tt := range tests {
		path, _ := filepath.Abs(filepath.Join("testdata", tt.file))
		src, _ := os.ReadFile(path)
		t.Run(tt.file+"/ctags", func(t *testing.T) {
			if LookCtags(nil) == "" {
				if os.Getenv("CI") != "" {
					t.Fatal("CI installs universal-ctags")
				}
				t.Skip("Universal Ctags is not installed")
			}
			o, err := Build(context.Background(), Ctags, path, bytes.NewReader(src), int64(len(src)), lineCount(src), Options{})
			if err != nil || o == nil {
				t.Fatal(o, err)
			}
			names := map[string]Entry{}
			for _, e := range o.Entries {
				names[e.Name] = e
				if e.Line < 1 || e.EndLine < e.Line || e.EndLine > lineCount(src) {
					t.Errorf("bad range %+v", e)
				}
			}
			for _, n := range tt.ctags {
				if _, ok := names[n]; !ok {
					t.Errorf("ctags gave no %s:\n%s", n, brief(o))
				}
			}
		})
		t.Run(tt.file+"/indent", func(t *testing.T) {
			hideCtags(t)
			o, err := Build(context.Background(), Ctags, path, bytes.NewReader(src), int64(len(src)), lineCount(src), Options{})
			if err != nil || o != nil {
				t.Fatalf("without ctags: %v %v, want nil, nil (indent)", o, err)
			}
			if got := brief(stream(t, Indent, src, 5)); got != tt.indentWant {
				t.Errorf("indent:\n%s\nwant\n%s", got, tt.indentWant)
			}
		})
	}
}

// hideCtags makes LookCtags find nothing for the test.
func hideCtags(t *testing.T) {
	old := LookCtags
	LookCtags = func(Starter) string { return "" }
	t.Cleanup(func() { LookCtags = old })
}

func TestLog(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("starting\n")
	for i := 0; i < 3*3600; i += 10 {
		lv := "INFO"
		if i >= 3600 && i < 3700 {
			lv = "ERROR"
		}
		fmt.Fprintf(&b, "2024-03-01T%02d:%02d:%02dZ %s request %d took %dms\n", 10+i/3600, i/60%60, i%60, lv, i, i%7)
		if lv == "ERROR" {
			b.WriteString("\tat frame one\n")
		}
	}
	o := stream(t, Log, b.Bytes(), 4096)
	if len(o.Entries) > logMaxBuckets || len(o.Entries) < 3 {
		t.Fatalf("%d buckets:\n%s", len(o.Entries), brief(o))
	}
	var errs, lines int64
	for i, e := range o.Entries {
		errs += e.Levels["ERROR"]
		lines += e.Lines
		if i > 0 && e.Line != o.Entries[i-1].EndLine+1 {
			t.Errorf("bucket %d starts at %d after %d", i, e.Line, o.Entries[i-1].EndLine)
		}
	}
	if errs != 10 || lines != lineCount(b.Bytes()) || o.Entries[0].Line != 1 {
		t.Errorf("errors %d lines %d:\n%s", errs, lines, brief(o))
	}
	if !strings.Contains(o.Summary, "10 ERROR/FATAL lines; most in 2024-03-01 11:00:00") {
		t.Errorf("summary %q", o.Summary)
	}
	// The ten ERROR lines are lines 362, 364, ... 380 (each followed by a
	// frame), in one bucket: one kind with its exact count and range.
	want := protocol.Kind{Text: "request # took #ms", Count: 10, FirstLine: 362, LastLine: 380}
	for _, e := range o.Entries {
		if e.Levels["ERROR"] > 0 && (len(e.Kinds) != 1 || e.Kinds[0] != want) {
			t.Errorf("kinds %+v, want [%+v]", e.Kinds, want)
		}
	}
}

func TestLogUntimed(t *testing.T) {
	var b bytes.Buffer
	for i := 0; i < 50000; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	o := stream(t, Log, b.Bytes(), 1<<16)
	if len(o.Entries) > logMaxBuckets || len(o.Entries) < logMaxBuckets/2 || o.Entries[len(o.Entries)-1].EndLine != 50000 {
		t.Fatalf("%s", brief(o))
	}
}

func TestParseTime(t *testing.T) {
	tests := []struct {
		line string
		want string
	}{
		{"2024-03-01T10:11:12Z x", "2024-03-01 10:11:12"},
		{"[2024/03/01 10:11:12] x", "2024-03-01 10:11:12"},
		{`{"level":"info","time":"2024-03-01T10:11:12.5Z"}`, "2024-03-01 10:11:12"},
		{"Mar  1 10:11:12 host sshd[1]: x", "Mar 01 10:11:12"}, // syslog's has no year
		{"10:11:12 x", "1970-01-01 10:11:12"},
		{"no time here at all, 2024 is a year", ""},
	}
	for _, tt := range tests {
		s, ok := parseTime([]byte(tt.line))
		got := ""
		if ok {
			d, c := stamp(s)
			got = d + " " + c
		}
		if got != tt.want {
			t.Errorf("parseTime(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestFit(t *testing.T) {
	o := &Outline{Format: Markdown}
	for i := 0; i < 300; i++ {
		o.Entries = append(o.Entries, Entry{Line: int64(i + 1), EndLine: int64(i + 1), Depth: 1 + i%3, Kind: "heading", Name: strings.Repeat("x", 20)})
	}
	o.TotalEntries = 300
	Fit(o, 8192)
	if !o.Truncated || len(o.Entries) == 0 {
		t.Fatal("not cut")
	}
	for _, e := range o.Entries {
		if e.Depth == 3 {
			t.Fatal("depth 3 kept while depth 1 entries were cut")
		}
	}
	// All at depth 2 (a book of ## chapters): cut at the end, not emptied.
	o3 := &Outline{Format: Markdown}
	for i := 0; i < 1000; i++ {
		o3.Entries = append(o3.Entries, Entry{Line: int64(i + 1), EndLine: int64(i + 1), Depth: 2, Kind: "heading", Name: "chapter"})
	}
	o3.TotalEntries = 1000
	Fit(o3, 4096)
	if len(o3.Entries) < 10 || !o3.Truncated {
		t.Errorf("depth-2 outline cut to %d entries", len(o3.Entries))
	}
	o2 := &Outline{Format: Go, Entries: o.Entries[:2], TotalEntries: 2}
	Fit(o2, 8192)
	if o2.Truncated {
		t.Error("a small outline was marked truncated")
	}
}

// FuzzScanners feeds any bytes to every scanner in two chunkings: no panic,
// the same outline, and entries within the file.
func FuzzScanners(f *testing.F) {
	for _, n := range []string{"book.md", "config.json", "config.yaml", "table.csv", "notes.txt", "sample.py"} {
		b, _ := os.ReadFile(filepath.Join("testdata", n))
		f.Add(b, uint8(3))
	}
	f.Add([]byte("2024-01-01 00:00:00 ERROR x\n\tat y\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, n uint8) {
		total := lineCount(data)
		for _, format := range []string{Markdown, JSON, YAML, CSV, TSV, Log, Indent} {
			a := stream(t, format, data, 1<<20)
			b := stream(t, format, data, int(n)+1)
			if brief(a) != brief(b) {
				t.Fatalf("%s: chunking changed the outline:\n%s\nvs\n%s", format, brief(a), brief(b))
			}
			for _, e := range a.Entries {
				if e.Line < 1 || e.EndLine < e.Line || e.EndLine > max(total, 1) {
					t.Fatalf("%s: entry %+v outside 1..%d", format, e, total)
				}
			}
		}
	})
}

func TestJSONArray(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("[\n")
	for i := 0; i < 10000; i++ {
		sep := ","
		if i == 9999 {
			sep = ""
		}
		fmt.Fprintf(&b, "  {\"id\": %d,\n   \"name\": \"n%d\"}%s\n", i, i, sep)
	}
	b.WriteString("]\n")
	o := stream(t, JSON, b.Bytes(), 1000)
	var items int64
	for i, e := range o.Entries {
		if e.Kind == "elements" {
			var from, to int64
			if _, err := fmt.Sscanf(e.Name, "[%d-%d]", &from, &to); err != nil {
				t.Fatalf("entry %d: %q", i, e.Name)
			}
			items += to - from + 1
			if e.Line != 2+2*from || e.EndLine != 3+2*to {
				t.Errorf("%s spans %d-%d", e.Name, e.Line, e.EndLine)
			}
		}
	}
	if items != 10000 || len(o.Entries) > jsonMaxChunks+2 {
		t.Errorf("%d items in %d entries:\n%s", items, len(o.Entries), brief(o))
	}
	if !strings.Contains(brief(o), "2-2 2 key id\n3-3 2 key name\n") {
		t.Errorf("the first element's keys are missing:\n%s", brief(o))
	}
}

// TestCollectorSheds: a full collector drops its deepest entries for
// shallower ones, so a long book keeps its parts to the end.
func TestCollectorSheds(t *testing.T) {
	var b bytes.Buffer
	for p := 1; p <= 300; p++ {
		fmt.Fprintf(&b, "# Part %d\n", p)
		for c := 1; c <= 20; c++ {
			fmt.Fprintf(&b, "## Chapter %d.%d\ntext\n", p, c)
		}
	}
	s := NewScanner(Markdown, Options{MaxEntries: 1000})
	s.Write(b.Bytes())
	o := s.Finish(lineCount(b.Bytes()))
	if o.TotalEntries != 6300 || len(o.Entries) != 300 || o.Entries[299].Name != "Part 300" || o.Entries[299].EndLine != lineCount(b.Bytes()) {
		t.Fatalf("%d held of %d; last %+v", len(o.Entries), o.TotalEntries, o.Entries[len(o.Entries)-1])
	}
	if o.Entries[0].EndLine != 41 {
		t.Errorf("part 1 ends at %d", o.Entries[0].EndLine)
	}
}

// TestCtagsSlow: a ctags that takes too long, or a file too large for it,
// gives way to indent (nil, nil) rather than failing the read.
func TestCtagsSlow(t *testing.T) {
	fake := filepath.Join(t.TempDir(), "ctags")
	os.WriteFile(fake, []byte("#!/bin/sh\nsleep 5\n"), 0o755)
	old, oldTimeout := LookCtags, ctagsTimeout
	LookCtags, ctagsTimeout = func(Starter) string { return fake }, 100*time.Millisecond
	t.Cleanup(func() { LookCtags, ctagsTimeout = old, oldTimeout })
	path, _ := filepath.Abs(filepath.Join("testdata", "sample.py"))
	start := time.Now()
	o, err := Build(context.Background(), Ctags, path, strings.NewReader(""), 10, 1, Options{})
	if o != nil || err != nil || time.Since(start) > 3*time.Second {
		t.Errorf("slow ctags: %v %v after %v", o, err, time.Since(start))
	}
	if o, err := Build(context.Background(), Ctags, path, strings.NewReader(""), 17<<20, 1, Options{}); o != nil || err != nil {
		t.Errorf("a file over MaxCtagsBytes: %v %v", o, err)
	}
}

// TestGoBroken: a Go file that does not parse gives entries that end no
// earlier than they start, within the file.
func TestGoBroken(t *testing.T) {
	for _, src := range []string{"package x\nfunc broken( {\n", "package x\n\nfunc A() {}\n\nfunc B(x int {\n\treturn\n"} {
		lines := int64(strings.Count(src, "\n"))
		o, err := Build(context.Background(), Go, "x.go", strings.NewReader(src), int64(len(src)), lines, Options{})
		if err != nil || o == nil || len(o.Entries) == 0 {
			t.Fatalf("%q: %v %v", src, o, err)
		}
		for _, e := range o.Entries {
			if e.EndLine < e.Line || e.EndLine > lines {
				t.Errorf("%q: %s at %d-%d of %d lines", src, e.Name, e.Line, e.EndLine, lines)
			}
		}
	}
}
