package methods

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/protocol"
)

// FuzzExecHighlights: whatever a command prints and whatever the budget,
// head, highlights and tail are whole lines of the output at the numbers
// they claim (checked against the spool through page, cleaned and clipped
// alike), within maxLines and maxBytes, in output order between head and
// tail; an output without a hit has no highlights.
func FuzzExecHighlights(f *testing.F) {
	f.Add("a\nb\nERROR: boom\n  at x\nc\nd\ne\nf\n", 4, 60, 20)
	f.Add(strings.Repeat("ok\n", 40)+"Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad\n"+strings.Repeat("ok\n", 40), 10, 200, 30)
	f.Add("=== RUN   TestX\n    x_test.go:3: want 1\n"+strings.Repeat("=== RUN   TestY\n--- PASS: TestY (0.00s)\n", 30)+"--- FAIL: TestX (0.00s)\nFAIL\n", 8, 400, 40)
	f.Add(strings.Repeat("x.c:1:2: warning: w\n", 50)+"x.c:9:1: error: e\n"+strings.Repeat("x.c:1:2: warning: w\n", 50), 6, 300, 2000)
	f.Fuzz(func(t *testing.T, out string, maxLines, maxBytes, maxChars int) {
		svc, s := newExecService(t, nil)
		file := filepath.Join(t.TempDir(), "out")
		if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		maxLines, maxBytes, maxChars = 1+abs(maxLines)%50, 1+abs(maxBytes)%3000, abs(maxChars)%100
		r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"argv": []string{"cat", file},
			"maxLines": maxLines, "maxBytes": maxBytes, "maxLineChars": maxChars})
		st := r.Stdout
		if st.Highlights == nil {
			t.Fatal("highlights is null")
		}
		size := len(st.Head) + len(st.Tail)
		for _, h := range st.Highlights {
			size += len(h.Text)
		}
		if st.ShownBytes != size || st.ShownBytes > maxBytes || st.ShownLines > maxLines {
			t.Fatalf("shown %d lines %d bytes (counted %d bytes), limits %d %d", st.ShownLines, st.ShownBytes, size, maxLines, maxBytes)
		}
		page := func(from, to int64) string {
			w := call[protocol.Window](t, svc.Page, s, map[string]any{"spool": st.Spool.ID, "offset": from,
				"limit": to - from + 1, "maxLineChars": maxChars, "maxBytes": protocol.MaxWindowBytes})
			return w.Content
		}
		if st.Omitted != nil {
			// Head and tail are the lines before and after the omitted ones.
			for _, part := range []struct {
				text     string
				from, to int64
			}{{st.Head, 1, st.Omitted.FromLine - 1}, {st.Tail, st.Omitted.ToLine + 1, st.TotalLines}} {
				if part.from <= part.to && part.text != page(part.from, part.to) && !strings.Contains(part.text, "\r") {
					t.Fatalf("lines %d-%d are %q; page gives %q", part.from, part.to, part.text, page(part.from, part.to))
				}
			}
		}
		prev := int64(0)
		if st.Omitted != nil {
			prev = st.Omitted.FromLine - 1
		}
		for _, h := range st.Highlights {
			if st.Omitted == nil || h.FromLine <= prev || h.ToLine > st.Omitted.ToLine || h.ToLine < h.FromLine {
				t.Fatalf("highlight %d-%d out of order or outside %+v", h.FromLine, h.ToLine, st.Omitted)
			}
			prev = h.ToLine
			want := page(h.FromLine, h.ToLine)
			if want != "" && !strings.HasSuffix(want, "\n") {
				want += "\n"
			}
			// The first group's hit line may be cut shorter still to fit maxBytes.
			cut := h.FromLine == h.ToLine && strings.HasPrefix(want, strings.TrimSuffix(h.Text, "\n"))
			if h.Text != want && !cut {
				t.Fatalf("highlight %d-%d is %q; page gives %q", h.FromLine, h.ToLine, h.Text, want)
			}
		}
	})
}
