package methods

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/outline"
	"github.com/toold/toold/protocol"
)

// readJSON calls read with params as JSON.
func readJSON(t testing.TB, svc *Service, s *Session, params map[string]any) *protocol.Window {
	t.Helper()
	b, _ := json.Marshal(params)
	w, _ := readRaw(t, svc, s, b)
	return w
}

// readRaw calls read with params b and returns the window as a client
// decodes it, and the result as it goes on the wire.
func readRaw(t testing.TB, svc *Service, s *Session, b []byte) (*protocol.Window, []byte) {
	t.Helper()
	res, err := svc.Read(context.Background(), s, b)
	if err != nil {
		t.Fatalf("read %s: %v", b, err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var w protocol.Window
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	return &w, raw
}

// TestOutlineRead outlines each format twice: the first read builds the
// index and feeds the outline from that pass, the second reads the file
// itself (the index is cached); both give the same outline.
func TestOutlineRead(t *testing.T) {
	svc, s := newTestService(t)
	var log bytes.Buffer
	for i := 0; i < 5000; i++ {
		lv := "INFO"
		if i%100 == 7 {
			lv = "ERROR"
		}
		fmt.Fprintf(&log, "2024-05-01 %02d:%02d:%02d %s worker %d done\n", i/3600, i/60%60, i%60, lv, i)
	}
	files := map[string]struct {
		data   []byte
		format string
	}{
		"app.log":   {log.Bytes(), protocol.OutlineLog},
		"doc.md":    {[]byte("# A\ntext\n## B\nmore\n"), protocol.OutlineMarkdown},
		"x.json":    {[]byte("{\n \"a\": 1,\n \"b\": {\n  \"c\": 2\n }\n}\n"), protocol.OutlineJSON},
		"x.yaml":    {[]byte("a: 1\nb:\n  c: 2\n"), protocol.OutlineYAML},
		"t.csv":     {[]byte("a,b\n1,2\n3,4\n"), protocol.OutlineCSV},
		"notes.txt": {[]byte("one\n  two\nthree\n"), protocol.OutlineIndent},
		"m.go":      {[]byte("package m\n\nfunc F() {\n}\n"), protocol.OutlineGo},
	}
	for name, f := range files {
		path := filepath.Join(s.Cwd, name)
		if err := os.WriteFile(path, f.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := 0; i < 2; i++ {
			w := readJSON(t, svc, s, map[string]any{"path": name, "outline": true})
			if w.Outline == nil || w.Outline.Format != f.format || len(w.Outline.Entries) == 0 {
				t.Fatalf("%s: outline %+v", name, w.Outline)
			}
			if w.Content != "" || w.EndLine != 0 || w.Notice == nil || !strings.Contains(*w.Notice, "read offset=") {
				t.Errorf("%s: content %q endLine %d notice %v", name, w.Content, w.EndLine, w.Notice)
			}
			b, _ := json.Marshal(w.Outline)
			got = append(got, string(b))
		}
		if got[0] != got[1] {
			t.Errorf("%s: the outline from the index build differs from the one read apart:\n%s\n%s", name, got[0], got[1])
		}
	}
	// One build a file, and one more where the watcher's late Create event
	// dropped the index between the two reads: both paths are compared above.
	if st := svc.Files.Stats(); st.Misses < int64(len(files)) || st.Hits == 0 {
		t.Errorf("stats %+v: the reads did not both build and reuse indexes", st)
	}
}

// TestOutlineBounded: an outline is cut to maxBytes, deeper entries first,
// and the notice says how many are shown.
func TestOutlineBounded(t *testing.T) {
	svc, s := newTestService(t)
	var md bytes.Buffer
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&md, "# Part %d\n\n## Chapter %d.1\n\ntext\n", i, i)
	}
	path := filepath.Join(s.Cwd, "book.md")
	os.WriteFile(path, md.Bytes(), 0o644)
	w := readJSON(t, svc, s, map[string]any{"path": path, "outline": true, "maxBytes": 4096})
	b, _ := json.Marshal(w.Outline)
	if len(b) > 4096 || !w.Outline.Truncated || w.Outline.TotalEntries != 4000 {
		t.Fatalf("%d bytes, truncated %v, total %d", len(b), w.Outline.Truncated, w.Outline.TotalEntries)
	}
	for _, e := range w.Outline.Entries {
		if e.Depth != 1 {
			t.Fatalf("a depth %d entry kept while depth 1 ones were cut", e.Depth)
		}
	}
	if !strings.Contains(*w.Notice, "4000 entries, ") || !strings.Contains(*w.Notice, "4096-byte limit") {
		t.Errorf("notice %q", *w.Notice)
	}
}

func TestOutlineEdges(t *testing.T) {
	svc, s := newTestService(t)
	os.WriteFile(filepath.Join(s.Cwd, "empty.md"), nil, 0o644)
	os.WriteFile(filepath.Join(s.Cwd, "bin.dat"), []byte("\x00\x01\x02binary"), 0o644)
	os.WriteFile(filepath.Join(s.Cwd, "plain.md"), []byte("no headings here\n"), 0o644)
	if w := readJSON(t, svc, s, map[string]any{"path": "empty.md", "outline": true}); *w.Notice != "[The file is empty: 0 lines]" || w.Truncated {
		t.Errorf("empty: %q", *w.Notice)
	}
	if w := readJSON(t, svc, s, map[string]any{"path": "bin.dat", "outline": true}); !w.Binary || w.Outline != nil {
		t.Errorf("binary: %+v", w)
	}
	if w := readJSON(t, svc, s, map[string]any{"path": "plain.md", "outline": true}); !strings.HasPrefix(*w.Notice, "[No outline entries found (markdown) in 1 lines") {
		t.Errorf("plain: %q", *w.Notice)
	}
	// Go that does not parse: the declaration the parser gave up in runs to
	// the file's end, and the notice's read works.
	os.WriteFile(filepath.Join(s.Cwd, "bad.go"), []byte("package x\nfunc broken( {\n"), 0o644)
	w := readJSON(t, svc, s, map[string]any{"path": "bad.go", "outline": true})
	if w.Outline == nil || len(w.Outline.Entries) != 1 || fmt.Sprint(w.Outline.Entries[0]) != fmt.Sprint(protocol.OutlineEntry{Line: 2, EndLine: 2, Depth: 1, Kind: "func", Name: "broken"}) ||
		!strings.Contains(*w.Notice, "read offset=2 limit=1 ") {
		t.Errorf("bad.go: %+v %q", w.Outline, *w.Notice)
	}
}

// TestOutlineWithoutCtags: code that ctags would outline is outlined by
// indent when ctags is missing, and the notice says how to install it.
func TestOutlineWithoutCtags(t *testing.T) {
	old := outline.LookCtags
	outline.LookCtags = func(outline.Starter) string { return "" }
	t.Cleanup(func() { outline.LookCtags = old })
	svc, s := newTestService(t)
	os.WriteFile(filepath.Join(s.Cwd, "a.py"), []byte("class A:\n    def f(self):\n        pass\n"), 0o644)
	w := readJSON(t, svc, s, map[string]any{"path": "a.py", "outline": true})
	if w.Outline.Format != protocol.OutlineIndent || len(w.Outline.Entries) != 2 || !strings.Contains(*w.Notice, "apt-get install universal-ctags") {
		t.Errorf("%+v %q", w.Outline, *w.Notice)
	}
}

// TestOutlinePaged: an outline cut by maxBytes is paged as a window is:
// following next.offset with outline: true gives every top-level entry,
// each once and in order.
func TestOutlinePaged(t *testing.T) {
	t.Parallel() // a service of its own; runs beside the waits
	svc, s := newTestService(t)
	// 800 parts in the quick run, 15 pages (2,000 with TOOLD_LONG=1, 37
	// pages): each page outlines the file anew.
	n := testenv.Size(800, 2000)
	var md bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&md, "# Part %d\n\n## Chapter %d.1\n\ntext\n", i, i)
	}
	os.WriteFile(filepath.Join(s.Cwd, "book.md"), md.Bytes(), 0o644)
	var parts []string
	offset, pages := int64(1), 0
	for ; pages < 100; pages++ {
		w := readJSON(t, svc, s, map[string]any{"path": "book.md", "outline": true, "maxBytes": 4096, "offset": offset})
		for _, e := range w.Outline.Entries {
			if e.Line < offset {
				t.Fatalf("page from %d holds an entry at %d", offset, e.Line)
			}
			if e.Depth == 1 {
				parts = append(parts, e.Name)
			}
		}
		if w.Next == nil {
			break
		}
		if !strings.Contains(*w.Notice, fmt.Sprintf("use read outline=true offset=%d", *w.Next.Offset)) || *w.Next.Offset <= offset {
			t.Fatalf("next %d after %d, notice %q", *w.Next.Offset, offset, *w.Notice)
		}
		offset = *w.Next.Offset
	}
	if len(parts) != n || parts[0] != "Part 0" || parts[n-1] != fmt.Sprintf("Part %d", n-1) || pages < 10 {
		t.Fatalf("%d parts in %d pages", len(parts), pages)
	}
	for i, p := range parts {
		if p != fmt.Sprintf("Part %d", i) {
			t.Fatalf("part %d is %q", i, p)
		}
	}
}

// TestOutlineOneLine: the outline of a minified JSON (3000 keys, each with
// two, on one line of 99 KB) cut by maxBytes does not name a continuation
// that gives the same entries again: the notice names the larger maxBytes
// and the readBytes calls that read the line, and the example read of an
// entry is by bytes, since the line alone is more than a read gives.
func TestOutlineOneLine(t *testing.T) {
	svc, s := newTestService(t)
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i < 3000; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"key%04d":{"a":%d,"bb":"value %d"}`, i, i, i)
	}
	b.WriteString("}")
	size := b.Len()
	os.WriteFile(filepath.Join(s.Cwd, "min.json"), []byte(b.String()), 0o644)
	w := readJSON(t, svc, s, map[string]any{"path": "min.json", "outline": true, "maxBytes": 1500})
	if w.Outline == nil || len(w.Outline.Entries) == 0 || w.Outline.TotalEntries != 9000 || !w.Truncated {
		t.Fatalf("outline %+v truncated %v", w.Outline, w.Truncated)
	}
	if w.Next != nil {
		t.Errorf("next %d: a page of the one line again", *w.Next.Offset)
	}
	want := []string{"e.g. for key0000, on line 1 of ", fmt.Sprintf("readBytes startByte=0 maxBytes=%d", size),
		"The entries not shown on line 1 are on a line of", "maxBytes=262144 shows more of them"}
	for _, x := range want {
		if !strings.Contains(*w.Notice, x) {
			t.Errorf("notice lacks %q: %s", x, *w.Notice)
		}
	}
	if strings.Contains(*w.Notice, "outline=true offset=1") || strings.Contains(*w.Notice, "read offset=1 limit=1") {
		t.Errorf("notice names a call that gives nothing new: %s", *w.Notice)
	}
	if size < 90<<10 {
		t.Fatalf("%d bytes", size)
	}
	// Entries on line 1 and on lines after it: the next page is line 2.
	os.WriteFile(filepath.Join(s.Cwd, "two.json"), []byte(b.String()+"\n"+b.String()+"\n"), 0o644)
	w = readJSON(t, svc, s, map[string]any{"path": "two.json", "outline": true, "maxBytes": 1500})
	if w.Next == nil || *w.Next.Offset != 2 || !strings.Contains(*w.Notice, "outline=true offset=2") {
		t.Errorf("two lines: next %v notice %s", w.Next, *w.Notice)
	}
}

// TestOutlineNoneFits: an outline whose entries do not fit in maxBytes
// says how many there are and how to see them, not that there are none.
func TestOutlineNoneFits(t *testing.T) {
	svc, s := newTestService(t)
	var src strings.Builder
	src.WriteString("package x\n")
	for i := range 50 {
		fmt.Fprintf(&src, "\nfunc F%d() {}\n", i)
	}
	os.WriteFile(filepath.Join(s.Cwd, "x.go"), []byte(src.String()), 0o644)
	w := readJSON(t, svc, s, map[string]any{"path": "x.go", "outline": true, "maxBytes": 10})
	if w.Outline == nil || w.Outline.TotalEntries != 50 || len(w.Outline.Entries) != 0 || !w.Outline.Truncated ||
		!strings.Contains(*w.Notice, ": 50 entries, 0 shown (10-byte limit") || strings.Contains(*w.Notice, "No outline entries") {
		t.Fatalf("outline %+v, notice %q", w.Outline, deref(w.Notice))
	}
}
