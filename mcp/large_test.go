package mcp

import (
	"fmt"
	"strings"
	"testing"
)

// TestReadLarge: the read tool's read of a file over 64 KB with no range is
// its outline and first lines; with a range, or of a small file, the lines.
func TestReadLarge(t *testing.T) {
	t.Parallel()
	s, _ := startStructured(t)
	var b strings.Builder
	// 128 KB: past MCPOutlineBytes (64 KB) and the 100,000 bytes a call
	// below asks for; the 300 KB it was showed nothing more.
	for i := 0; b.Len() < 128<<10; i++ {
		fmt.Fprintf(&b, "# Chapter %d\n\n", i)
		for j := 0; j < 20; j++ {
			fmt.Fprintf(&b, "Sentence %d of chapter %d, long enough to fill a book.\n", j, i)
		}
	}
	path := writeFile(t, "book.md", b.String())
	text, res := s.call(t, "read", map[string]any{"path": path})
	lines := strings.Split(text, "\n")
	if res.IsError || lines[0] != "1-22 heading Chapter 0" || !strings.Contains(text, "\n     1\t# Chapter 0\n") ||
		!strings.Contains(text, "above are its outline and lines 1-100. Read the lines you need with read offset=N limit=M") {
		t.Fatalf("large read:\n%s", text)
	}
	if len(text) > 24<<10 {
		t.Errorf("the answer is %d bytes", len(text))
	}
	var w struct {
		Content string
		EndLine int
		Outline struct{ Format string }
	}
	structured(t, res, &w)
	if w.EndLine != 100 || w.Outline.Format != "markdown" || strings.Count(w.Content, "\n") != 100 {
		t.Errorf("structuredContent: endLine %d format %q", w.EndLine, w.Outline.Format)
	}

	// A byte size asks for that many bytes of lines (the contract's "a
	// call that asks for more gets more"): no outline.
	if text, _ = s.call(t, "read", map[string]any{"path": path, "maxBytes": 100000}); !strings.HasPrefix(text, "     1\t# Chapter 0\n") || len(text) < 90000 {
		t.Errorf("with maxBytes: %.300q", text)
	}
	// A first line longer than a window (minified JSON): the outline, and
	// the readBytes call that slices it.
	var j strings.Builder
	j.WriteString(`{"items":[`)
	for i := 0; j.Len() < 100<<10; i++ {
		fmt.Fprintf(&j, `{"id":%d,"name":"item %d"},`, i, i)
	}
	j.WriteString(`{"id":-1}],"total":1}`)
	min := writeFile(t, "min.json", j.String())
	text, res = s.call(t, "read", map[string]any{"path": min})
	if res.IsError || !strings.Contains(text, "key items") || strings.Contains(text, `{"id":0`) ||
		!strings.Contains(text, "Line 1 alone is longer than a window: read it in slices with readBytes startByte=0 maxBytes=16384") {
		t.Errorf("minified JSON:\n%.2000s", text)
	}
	text, _ = s.call(t, "read", map[string]any{"path": path, "offset": 1, "limit": 3})
	if text != "     1\t# Chapter 0\n     2\t\n     3\tSentence 0 of chapter 0, long enough to fill a book.\n"+lastLine(text) {
		t.Errorf("with a range: %q", text)
	}
	small := writeFile(t, "small.md", "# A\ntext\n")
	if text, _ = s.call(t, "read", map[string]any{"path": small}); text != "     1\t# A\n     2\ttext" {
		t.Errorf("small file: %q", text)
	}
	text, _ = s.call(t, "read", map[string]any{"path": small, "outline": true})
	if !strings.HasPrefix(text, "1-2 heading A\n[Outline (markdown)") {
		t.Errorf("outline: %q", text)
	}
}

// TestReadUnchanged: an unchanged re-read through the read tool says so,
// and its structuredContent is a whole window (the outputSchema's fields).
func TestReadUnchanged(t *testing.T) {
	t.Parallel()
	s, _ := startStructured(t)
	path := writeFile(t, "f.txt", "one\ntwo\n")
	s.call(t, "read", map[string]any{"path": path, "ifChanged": true})
	text, res := s.call(t, "read", map[string]any{"path": path, "ifChanged": true})
	if text != "[Lines 1-2 unchanged since your last read]" || res.IsError {
		t.Fatalf("got %q", text)
	}
	var w map[string]any
	structured(t, res, &w)
	for _, f := range []string{"startByte", "endByte", "truncatedBy", "clippedLines", "partialLine", "binary", "unchanged"} {
		if _, ok := w[f]; !ok {
			t.Errorf("structuredContent lacks %s: %v", f, w)
		}
	}
}
