package methods

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
)

// largeRead is a read of path with no range as toold mcp sends it
// (render.outlineOver), with maxBytes and the render budget given.
func largeRead(t *testing.T, svc *Service, path string, maxBytes, budget int) *protocol.Window {
	t.Helper()
	lr := &lineRequest{offset: 1, session: "large", render: budget, outlineOver: protocol.MCPOutlineBytes}
	lr.Limit, lr.MaxBytes, lr.MaxLineChars = protocol.DefaultLimits.Read.Limit, maxBytes, protocol.DefaultLimits.Read.MaxLineChars
	w, err := svc.window(context.Background(), path, pathOpener(path), lr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// markdown is a markdown file over MCPOutlineBytes: a heading, then lines
// of n bytes (first: the heading's), as many as make size bytes.
func markdown(first string, n, size int) string {
	var b strings.Builder
	b.WriteString(first + "\n")
	for i := 0; b.Len() < size; i++ {
		if i%50 == 0 {
			fmt.Fprintf(&b, "# Chapter %d\n", i)
		}
		line := fmt.Sprintf("line %d ", i)
		b.WriteString(line + strings.Repeat("x", max(n-len(line)-1, 0)) + "\n")
	}
	return b.String()
}

// TestLargeWindow: the answer to a read of a large file with no range (the
// outline and first lines) keeps the window's rules: its content is at
// most the read's maxBytes, its rendering fits render.maxBytes, a first
// line that fits a window is shown, truncatedBy names the limit that
// ended the lines, and a clipped line's notice says how to read it whole.
func TestLargeWindow(t *testing.T) {
	svc, _ := newTestService(t)
	cases := []struct {
		name             string
		data             string
		maxBytes, budget int
		plain            bool // answered as asked: no outline
		check            func(w *protocol.Window) string
	}{
		{"content within the read's maxBytes", markdown("# Title", 60, 100<<10), 1000, protocol.MCPResultBytes, false, func(w *protocol.Window) string {
			if len(w.Content) > 1000 || w.EndLine < 1 {
				return fmt.Sprintf("lines 1-%d, %d bytes of content", w.EndLine, len(w.Content))
			}
			return ""
		}},
		{"rendering within render.maxBytes", markdown("# Title", 60, 100<<10), protocol.MCPWindowBytes, 3000, false, func(w *protocol.Window) string {
			if n := len(notice.WindowText(w)); n > 3000 {
				return fmt.Sprintf("renders in %d bytes", n)
			}
			return ""
		}},
		{"first line longer than 8 KiB, shorter than a window", markdown("# "+strings.Repeat("t", 10<<10), 60, 100<<10), protocol.MCPWindowBytes, protocol.MCPResultBytes, false, func(w *protocol.Window) string {
			if w.EndLine < 1 || !strings.HasPrefix(w.Content, "# ttt") || strings.Contains(deref(w.Notice), "longer than a window") {
				return fmt.Sprintf("lines 1-%d: %q", w.EndLine, deref(w.Notice))
			}
			return ""
		}},
		{"first lines ended by bytes", markdown("# Title", 400, 100<<10), protocol.MCPWindowBytes, protocol.MCPResultBytes, false, func(w *protocol.Window) string {
			if w.EndLine >= protocol.MCPFirstLines || w.TruncatedBy == nil || *w.TruncatedBy != protocol.ByBytes {
				return fmt.Sprintf("lines 1-%d, truncatedBy %v", w.EndLine, w.TruncatedBy)
			}
			return ""
		}},
		{"a clipped first line", markdown("# Title "+strings.Repeat("c", 3000), 60, 100<<10), protocol.MCPWindowBytes, protocol.MCPResultBytes, false, func(w *protocol.Window) string {
			if w.ClippedLines != 1 || !strings.Contains(deref(w.Notice), "readBytes startByte=0") {
				return fmt.Sprintf("%d clipped, notice %q", w.ClippedLines, deref(w.Notice))
			}
			return ""
		}},
		{"exactly 64 KiB: the lines as asked", markdown("# Title", 60, 70<<10)[:protocol.MCPOutlineBytes-1] + "\n", protocol.MCPWindowBytes, protocol.MCPResultBytes, true, func(w *protocol.Window) string {
			return ""
		}},
		{"a byte over 64 KiB", markdown("# Title", 60, 70<<10)[:protocol.MCPOutlineBytes-1] + "x\n", protocol.MCPWindowBytes, protocol.MCPResultBytes, false, func(w *protocol.Window) string {
			return ""
		}},
		{"outline and line 1 over render.maxBytes: the lines as asked", markdown("# Title "+strings.Repeat("c", 3000), 60, 100<<10), protocol.MCPWindowBytes, 1500, true, func(w *protocol.Window) string {
			if n := len(notice.WindowText(w)); n > 1500 || strings.Contains(deref(w.Notice), "longer than a window") {
				return fmt.Sprintf("lines %d-%d render in %d bytes: %q", w.StartLine, w.EndLine, n, deref(w.Notice))
			}
			return ""
		}},
		{"first line longer than a window", markdown("# "+strings.Repeat("t", 20<<10), 60, 100<<10), protocol.MCPWindowBytes, protocol.MCPResultBytes, false, func(w *protocol.Window) string {
			if w.EndLine != 0 || !strings.Contains(deref(w.Notice), "readBytes startByte=0 maxBytes=16384") {
				return fmt.Sprintf("lines 1-%d: %q", w.EndLine, deref(w.Notice))
			}
			return ""
		}},
		{"outline over render.maxBytes: the lines as asked", markdown("# Title", 60, 100<<10), protocol.MCPWindowBytes, 100, true, func(w *protocol.Window) string {
			if n := len(notice.WindowText(w)); w.EndLine < 1 || n > 100 {
				return fmt.Sprintf("lines %d-%d render in %d bytes", w.StartLine, w.EndLine, n)
			}
			return ""
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.md")
			if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			w := largeRead(t, svc, path, c.maxBytes, c.budget)
			if (w.Outline == nil) != c.plain {
				t.Fatalf("outline %v, want %v: lines %d-%d", w.Outline != nil, !c.plain, w.StartLine, w.EndLine)
			}
			// A read is in line mode: next is {offset}, past the lines shown.
			if n := w.Next; n != nil && (n.StartByte != nil || n.Offset == nil || *n.Offset <= w.EndLine) {
				t.Errorf("next %+v after lines %d-%d", *n, w.StartLine, w.EndLine)
			}
			if msg := c.check(w); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestLargeWindowSeen: the session saw the first lines the large answer
// showed (fitted to render.maxBytes too), no others: a re-read of them
// with ifChanged is unchanged, one of a line more is not.
func TestLargeWindowSeen(t *testing.T) {
	for _, budget := range []int{protocol.MCPResultBytes, 2500} {
		svc, _ := newTestService(t)
		path := filepath.Join(t.TempDir(), "f.md")
		if err := os.WriteFile(path, []byte(markdown("# Title", 60, 100<<10)), 0o644); err != nil {
			t.Fatal(err)
		}
		w := largeRead(t, svc, path, protocol.MCPWindowBytes, budget)
		if w.Outline == nil || w.EndLine < 2 {
			t.Fatalf("budget %d: lines %d-%d, outline %v", budget, w.StartLine, w.EndLine, w.Outline != nil)
		}
		for _, limit := range []int64{w.EndLine, w.EndLine + 1} {
			lr := &lineRequest{offset: 1, session: "large", ifChanged: true, ranged: true}
			lr.Limit, lr.MaxBytes = int(limit), protocol.MCPWindowBytes
			again, err := svc.window(context.Background(), path, pathOpener(path), lr, nil)
			if err != nil {
				t.Fatal(err)
			}
			if again.Unchanged != (limit == w.EndLine) {
				t.Errorf("budget %d: lines 1-%d unchanged %v after lines 1-%d were shown", budget, limit, again.Unchanged, w.EndLine)
			}
		}
	}
}

// TestLargeWindowOfSpool: page's large answer (a spool's, with
// render.outlineOver) names page calls to read on, as page's other
// notices do, not read or readBytes, which do not read a spool by its id.
func TestLargeWindowOfSpool(t *testing.T) {
	svc, _ := newTestService(t)
	for _, first := range []string{"# Title", "# " + strings.Repeat("t", 20<<10)} {
		path := filepath.Join(t.TempDir(), "spool")
		if err := os.WriteFile(path, []byte(markdown(first, 60, 100<<10)), 0o644); err != nil {
			t.Fatal(err)
		}
		lr := &lineRequest{offset: 1, session: "large", byteCall: "page spool=sp", outlineOver: protocol.MCPOutlineBytes}
		lr.Limit, lr.MaxBytes = protocol.DefaultLimits.Read.Limit, protocol.MCPWindowBytes
		w, err := svc.window(context.Background(), path, pathOpener(path), lr, nil)
		if err != nil {
			t.Fatal(err)
		}
		say := deref(w.Notice)
		if w.Outline == nil || strings.Contains(say, " read offset=N") || strings.Contains(say, " readBytes ") {
			t.Errorf("first line of %d bytes: %q", len(first), say)
		}
	}
}
