package methods

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/protocol"
)

// highlightSeeds are outputs with hits in their middle, and budgets.
func highlightSeeds(f *testing.F, add func(out string, maxLines, maxBytes, maxChars int)) {
	add("a\nb\nERROR: boom\n  at x\nc\nd\ne\nf\n", 4, 60, 20)
	add(strings.Repeat("ok\n", 40)+"Traceback (most recent call last):\n  File \"x.py\", line 1\nValueError: bad\n"+strings.Repeat("ok\n", 40), 10, 200, 30)
	add("=== RUN   TestX\n    x_test.go:3: want 1\n"+strings.Repeat("=== RUN   TestY\n--- PASS: TestY (0.00s)\n", 30)+"--- FAIL: TestX (0.00s)\nFAIL\n", 8, 400, 40)
	add(strings.Repeat("x.c:1:2: warning: w\n", 50)+"x.c:9:1: error: e\n"+strings.Repeat("x.c:1:2: warning: w\n", 50), 6, 300, 2000)
}

// FuzzExecHighlights: whatever a command prints and whatever the budget,
// head, highlights and tail are whole lines of the output at the numbers
// they claim (checked against the spool through page, cleaned and clipped
// alike), within maxLines and maxBytes, in output order between head and
// tail; an output without a hit has no highlights.
func FuzzExecHighlights(f *testing.F) {
	highlightSeeds(f, func(out string, maxLines, maxBytes, maxChars int) { f.Add(out, maxLines, maxBytes, maxChars) })
	svc, s := newExecService(f, nil) // one for every input, as FuzzExecPage's
	file := filepath.Join(f.TempDir(), "out")
	f.Fuzz(func(t *testing.T, out string, maxLines, maxBytes, maxChars int) {
		if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		maxLines, maxBytes, maxChars = 1+abs(maxLines)%50, 1+abs(maxBytes)%3000, abs(maxChars)%100
		r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"argv": []string{"cat", file},
			"maxLines": maxLines, "maxBytes": maxBytes, "maxLineChars": maxChars})
		checkShownLines(t, svc, s, r.Stdout, 1, false, maxLines, maxBytes, maxChars)
	})
}

// FuzzProcessHighlights: process/read of a background process's output
// from any cursor, a line's middle included, shows head, highlights and
// tail as whole lines of the spool at the numbers they claim, the spool's
// (numbered from the whole output's start), within the budget.
func FuzzProcessHighlights(f *testing.F) {
	highlightSeeds(f, func(out string, maxLines, maxBytes, maxChars int) {
		for _, cut := range []int{0, 1, 4, len(out) / 3} {
			f.Add(out, cut, maxLines, maxBytes, maxChars)
		}
	})
	// One service for every input (each input's process is killed, and
	// gone, before the next): a service and its directories an input were
	// a quarter of the seeds' CPU under -race, 120 of their 160 new files.
	svc, s := newExecService(f, nil)
	file := filepath.Join(f.TempDir(), "out")
	f.Fuzz(func(t *testing.T, out string, cut, maxLines, maxBytes, maxChars int) {
		if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		cut = abs(cut) % (len(out) + 1)
		maxLines, maxBytes, maxChars = 1+abs(maxLines)%50, 1+abs(maxBytes)%3000, abs(maxChars)%100
		r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "cat " + file + "; read x",
			"background": true, "yieldMs": 0})
		id := *r.Process
		defer call[protocol.ProcessInfo](t, svc.ProcessKill, s, map[string]any{"id": id})
		for w := r.Stdout.TotalBytes; w < int64(len(out)); {
			o := call[protocol.ProcessOutput](t, svc.ProcessWait, s, map[string]any{"id": id, "timeoutMs": 10000, "until": map[string]any{"idleMs": 20}})
			if o.Reason == protocol.ReasonTimeout || !o.Running {
				t.Fatalf("wait for the output: %+v", o)
			}
			w += o.Stdout.TotalBytes
		}
		o := call[protocol.ProcessOutput](t, svc.ProcessRead, s, map[string]any{"id": id, "since": fmt.Sprintf("%d:0", cut),
			"maxLines": maxLines, "maxBytes": maxBytes, "maxLineChars": maxChars})
		first := int64(strings.Count(out[:cut], "\n")) + 1
		mid := cut > 0 && out[cut-1] != '\n'
		checkShownLines(t, svc, s, o.Stdout, first, mid, maxLines, maxBytes, maxChars)
	})
}

// checkShownLines checks a stream whose first line is the spool's line
// first (mid: only the end of it): head, highlights and tail are the lines
// page gives at the numbers they claim, within the budget, in order.
func checkShownLines(t *testing.T, svc *Service, s *Session, st protocol.Stream, first int64, mid bool, maxLines, maxBytes, maxChars int) {
	t.Helper()
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
		last := first + st.TotalLines - 1
		for _, part := range []struct {
			text     string
			from, to int64
		}{{st.Head, first, st.Omitted.FromLine - 1}, {st.Tail, st.Omitted.ToLine + 1, last}} {
			if part.from > part.to || strings.Contains(part.text, "\r") {
				continue
			}
			if want := page(part.from, part.to); part.text != want && !(mid && part.from == first && strings.HasSuffix(want, part.text)) {
				t.Fatalf("lines %d-%d are %q; page gives %q", part.from, part.to, part.text, want)
			}
		}
	}
	prev := first - 1
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
}
