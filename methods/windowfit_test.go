package methods

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
)

// fitFiles are files whose rendering differs from their bytes in each way
// a window's can: many short lines (the numbers outweigh the text), long
// lines, characters of several bytes, CRLF endings, one line longer than
// a window, and lines clipped by maxLineChars. The quick run's are a
// quarter of TOOLD_LONG=1's: still more than a window each, which is what
// the walk needs.
var fitFiles = map[string][]byte{
	"short lines": bytes.Repeat([]byte("x\n"), testenv.Size(2000, 8000)),
	"long lines":  bytes.Repeat([]byte(strings.Repeat("long ", 100)+"\n"), testenv.Size(75, 300)),
	"multibyte":   bytes.Repeat([]byte("日本語 é 😀 "+strings.Repeat("ü", 40)+"\n"), testenv.Size(200, 800)),
	"crlf":        bytes.Repeat([]byte("a line\r\n"), testenv.Size(750, 3000)),
	"one line":    bytes.Repeat([]byte("é"), testenv.Size(12500, 50000)),
}

// TestRenderFitsWindow: a read, readBytes or page with render.maxBytes is
// the largest window whose rendering (notice.WindowText) fits: walking its
// next gives the file whole, each window fits, and one line (byte) more
// would not.
func TestRenderFitsWindow(t *testing.T) {
	svc, _ := newTestService(t)
	for name, data := range fitFiles {
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// Two budgets in the quick run, three with TOOLD_LONG=1.
		for _, budget := range testenv.Size([]int{700, protocol.MCPResultBytes}, []int{700, 3000, protocol.MCPResultBytes}) {
			for _, clip := range []int{0, 20} {
				lr := lineRequest{render: budget}
				lr.Limit, lr.MaxBytes, lr.MaxLineChars = protocol.DefaultLimits.Read.Limit, protocol.MCPWindowBytes, clip
				if got := walkFitted(t, svc, path, lr); clip == 0 && !bytes.Equal(got, data) {
					t.Errorf("%s, budget %d: the fitted windows hold %d bytes of %d", name, budget, len(got), len(data))
				}
			}
			var got []byte
			for pos := int64(0); ; {
				// As page with startByte and line params: the notice that
				// names them is in the rendering that fits.
				lead := notice.ByteModeIgnores([]string{"offset", "limit"})
				br := &byteRequest{startByte: pos, maxBytes: protocol.MCPWindowBytes, render: budget, lead: lead}
				w := fitted(t, svc, path, nil, br)
				if !strings.HasPrefix(deref(w.Notice), strings.TrimSuffix(lead, "]")) {
					t.Fatalf("%s: the notice does not start with %q: %q", name, lead, deref(w.Notice))
				}
				got = append(got, w.Content...)
				if w.Next == nil {
					break
				}
				pos = *w.Next.StartByte
			}
			if !bytes.Equal(got, data) {
				t.Errorf("%s, budget %d: the fitted byte windows hold %d bytes of %d", name, budget, len(got), len(data))
			}
		}
	}
}

// walkFitted walks path's line windows as lr asks (walkLines), checking
// that each one is the largest whose rendering fits lr.render; it returns
// their content end to end.
func walkFitted(t *testing.T, svc *Service, path string, lr lineRequest) []byte {
	return walkLines(t, svc, path, lr, func(w *protocol.Window) {
		if n := w.EndLine - w.StartLine + 1; !w.PartialLine && w.Truncated && n < int64(lr.Limit) {
			more := lr
			more.offset, more.render, more.Limit = w.StartLine, 0, int(n+1)
			if m := fitted(t, svc, path, &more, nil); m.EndLine > w.EndLine && len(notice.WindowText(m)) <= lr.render {
				t.Fatalf("lines %d-%d fit %d bytes, but %d-%d were given", m.StartLine, m.EndLine, lr.render, w.StartLine, w.EndLine)
			}
		}
	})
}

// fitted is the window of path that lr (or br) asks for, checked to fit
// its render budget and to hold whole characters.
func fitted(t testing.TB, svc *Service, path string, lr *lineRequest, br *byteRequest) *protocol.Window {
	t.Helper()
	w, err := svc.window(context.Background(), path, pathOpener(path), lr, br)
	if err != nil {
		t.Fatal(err)
	}
	budget := 0
	if lr != nil {
		budget = lr.render
	} else {
		budget = br.render
	}
	if text := notice.WindowText(w); budget > 0 && len(text) > budget {
		t.Fatalf("lines %d-%d (bytes %d-%d) render in %d bytes, over %d:\n%.300s", w.StartLine, w.EndLine, w.StartByte, w.EndByte, len(text), budget, text)
	}
	if !utf8.ValidString(w.Content) {
		t.Fatalf("lines %d-%d split a character", w.StartLine, w.EndLine)
	}
	return w
}

// FuzzRenderFit: whatever the file and the budget, a fitted window holds
// whole characters and (valid UTF-8 is shown as it is) the file's bytes
// from its start; it fits its budget
// unless it is the least a window can be (one line, or a character of
// one).
func FuzzRenderFit(f *testing.F) {
	f.Add([]byte("x\nyy\nzzz\n"), 40, int64(1), false)
	f.Add(bytes.Repeat([]byte("é\r\n"), 500), 300, int64(7), true)
	f.Add(bytes.Repeat([]byte("a"), 5000), 200, int64(1), false)
	svc, _ := newTestService(f)
	f.Fuzz(func(t *testing.T, data []byte, budget int, at int64, byBytes bool) {
		if budget < 1 || budget > 1<<20 || at < 0 {
			return
		}
		path := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var lr *lineRequest
		var br *byteRequest
		if byBytes {
			br = &byteRequest{startByte: at, maxBytes: 2000, render: budget}
		} else {
			lr = &lineRequest{offset: max(at, 1), render: budget}
			lr.Limit, lr.MaxBytes = 500, 2000
		}
		w, err := svc.window(context.Background(), path, pathOpener(path), lr, br)
		if err != nil || w.Binary {
			return
		}
		if utf8.Valid(data) && w.StartByte < w.EndByte && w.Content != string(data[w.StartByte:w.EndByte]) {
			t.Fatalf("bytes %d-%d are not the file's: %q", w.StartByte, w.EndByte, w.Content)
		}
		least := w.EndLine <= w.StartLine && (!w.PartialLine || len(w.Content) <= utf8.UTFMax)
		if len(notice.WindowText(w)) > budget && !least {
			t.Fatalf("lines %d-%d render over %d bytes: %q", w.StartLine, w.EndLine, budget, notice.WindowText(w))
		}
	})
}
