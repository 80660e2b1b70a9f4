package notice

import (
	"testing"

	"github.com/toold/toold/protocol"
)

// windowCases are windows in every shape WindowText renders: lines, CRLF
// lines, a last line with no ending, numbers past six digits, an outline,
// binary, an image, no notice, a notice alone.
var windowCases = map[string]protocol.Window{
	"lines":       {StartLine: 1, Content: "a\nbb\n", Notice: ptr("[Showing lines 1-2 of 9]")},
	"crlf":        {StartLine: 7, Content: "a\r\nb\r\n"},
	"no ending":   {StartLine: 3, Content: "a\nb"},
	"big numbers": {StartLine: 9999998, Content: "x\ny\nz\n", Notice: ptr("n")},
	"outline": {StartLine: 1, Content: "package p\n", Notice: ptr("[outline]"),
		Outline: &protocol.Outline{Entries: []protocol.OutlineEntry{{Line: 3, EndLine: 9, Kind: "func", Name: "F"}, {Line: 10, EndLine: 12, Depth: 1, Kind: "type", Name: "T"}}}},
	"binary":       {Binary: true, Content: "ignored", Notice: ptr("[binary]")},
	"image":        {Image: &protocol.Image{MimeType: "image/png"}, Notice: ptr("[image]")},
	"empty":        {StartLine: 1},
	"notice alone": {StartLine: 5, Notice: ptr("[past the end]\n")},
}

// TestWindowTextLen: the length the daemon fits a window by is that of the
// text toold mcp shows.
func TestWindowTextLen(t *testing.T) {
	for name, w := range windowCases {
		if got, want := WindowTextLen(&w), len(WindowText(&w)); got != want {
			t.Errorf("%s: WindowTextLen %d, len(WindowText) %d: %q", name, got, want, WindowText(&w))
		}
	}
}

func FuzzWindowTextLen(f *testing.F) {
	for _, w := range windowCases {
		f.Add(w.StartLine, w.Content, w.Notice != nil, w.Outline != nil)
	}
	f.Fuzz(func(t *testing.T, start int64, content string, hasNotice, hasOutline bool) {
		w := protocol.Window{StartLine: start, Content: content}
		if hasNotice {
			w.Notice = ptr(content)
		}
		if hasOutline {
			w.Outline = &protocol.Outline{Entries: []protocol.OutlineEntry{{Line: start, Name: content}}}
		}
		if got, want := WindowTextLen(&w), len(WindowText(&w)); got != want {
			t.Fatalf("WindowTextLen %d, len(WindowText) %d: %q", got, want, WindowText(&w))
		}
	})
}
