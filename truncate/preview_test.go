package truncate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toold/toold/internal/testtext"
)

func numbered(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "%d\n", i)
	}
	return sb.String()
}

func TestPreview(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name      string
		out       string
		opt       PreviewOptions
		head      string
		tail      string
		omitted   *Omitted
		clipped   int
		shownLine int
	}{
		{name: "empty", out: "", opt: PreviewOptions{MaxLines: 10, MaxBytes: 100}},
		{name: "fits", out: "a\nb\n", opt: PreviewOptions{MaxLines: 10, MaxBytes: 100}, head: "a\nb\n", shownLine: 2},
		{name: "fits exactly", out: "a\nb\n", opt: PreviewOptions{MaxLines: 2, MaxBytes: 4}, head: "a\nb\n", shownLine: 2},
		{name: "no trailing newline", out: "a\nb", opt: PreviewOptions{MaxLines: 10, MaxBytes: 100}, head: "a\nb", shownLine: 2},
		{
			name: "headTail by lines", out: numbered(10), opt: PreviewOptions{MaxLines: 4, MaxBytes: 100},
			head: "1\n2\n", tail: "9\n10\n", omitted: &Omitted{3, 8, 12}, shownLine: 4,
		},
		{
			name: "headTail odd lines give the head one more", out: numbered(10), opt: PreviewOptions{MaxLines: 3, MaxBytes: 100},
			head: "1\n2\n", tail: "10\n", omitted: &Omitted{3, 9, 14}, shownLine: 3,
		},
		{
			name: "headTail by bytes", out: numbered(10), opt: PreviewOptions{MaxLines: 100, MaxBytes: 9},
			head: "1\n2\n", tail: "9\n10\n", omitted: &Omitted{3, 8, 12}, shownLine: 4,
		},
		{
			name: "head mode", out: numbered(10), opt: PreviewOptions{MaxLines: 3, MaxBytes: 100, Mode: ModeHead},
			head: "1\n2\n3\n", omitted: &Omitted{4, 10, 15}, shownLine: 3,
		},
		{
			name: "tail mode", out: numbered(10), opt: PreviewOptions{MaxLines: 3, MaxBytes: 100, Mode: ModeTail},
			tail: "8\n9\n10\n", omitted: &Omitted{1, 7, 14}, shownLine: 3,
		},
		{
			name: "line longer than the budget is omitted", out: "a\n" + long + "\nb\n", opt: PreviewOptions{MaxLines: 10, MaxBytes: 10},
			head: "a\n", tail: "b\n", omitted: &Omitted{2, 2, 101}, shownLine: 2,
		},
		{
			name: "first line too long: the tail gets the budget", out: long + "\na\nb\n", opt: PreviewOptions{MaxLines: 10, MaxBytes: 10},
			tail: "a\nb\n", omitted: &Omitted{1, 1, 101}, shownLine: 2,
		},
		{
			name: "a line longer than the budget is clipped to it, not dropped", out: strings.Repeat("0", 5000) + "\n",
			opt:  PreviewOptions{MaxLines: 10, MaxBytes: 1000, MaxLineChars: 2000},
			head: strings.Repeat("0", 999) + "\n", clipped: 1, shownLine: 1,
		},
		{
			name: "the same in head mode", out: strings.Repeat("0", 5000) + "\n",
			opt:  PreviewOptions{MaxLines: 10, MaxBytes: 1000, MaxLineChars: 2000, Mode: ModeHead},
			head: strings.Repeat("0", 999) + "\n", clipped: 1, shownLine: 1,
		},
		{
			name: "the same in tail mode", out: strings.Repeat("0", 5000) + "\n",
			opt:  PreviewOptions{MaxLines: 10, MaxBytes: 1000, MaxLineChars: 2000, Mode: ModeTail},
			head: strings.Repeat("0", 999) + "\n", clipped: 1, shownLine: 1,
		},
		{
			name: "a long line between two short ones: the tail clips it to what is left", out: "a\n" + long + "\nb\n",
			opt:  PreviewOptions{MaxLines: 10, MaxBytes: 10, MaxLineChars: 50},
			head: "a\nxxxxx\nb\n", clipped: 1, shownLine: 3,
		},
		{
			name: "a long line after a few short ones, many after it: the head clips it", out: "a\na\na\n" + strings.Repeat("x", 500) + "\n" + strings.Repeat("b\n", 50),
			opt:  PreviewOptions{MaxLines: 10, MaxBytes: 100, MaxLineChars: 200},
			head: "a\na\na\n" + strings.Repeat("x", 43) + "\n", tail: strings.Repeat("b\n", 6), omitted: &Omitted{5, 48, 88}, clipped: 1, shownLine: 10,
		},
		{
			name: "a long line among many short ones at a small budget is in the omitted middle", out: strings.Repeat("a\n", 30) + strings.Repeat("x", 500) + "\n" + strings.Repeat("b\n", 30),
			opt:  PreviewOptions{MaxLines: 10, MaxBytes: 100, MaxLineChars: 200},
			head: strings.Repeat("a\n", 5), tail: strings.Repeat("b\n", 5), omitted: &Omitted{6, 56, 601}, shownLine: 10,
		},
		{
			name: "clipped", out: "abcdef\nab\n", opt: PreviewOptions{MaxLines: 10, MaxBytes: 100, MaxLineChars: 3},
			head: "abc\nab\n", clipped: 1, shownLine: 2,
		},
		{
			name: "clipping makes it fit", out: long + "\n", opt: PreviewOptions{MaxLines: 10, MaxBytes: 10, MaxLineChars: 5},
			head: "xxxxx\n", clipped: 1, shownLine: 1,
		},
		{
			name: "clipped on a character boundary", out: "héllo wörld\n", opt: PreviewOptions{MaxLines: 10, MaxBytes: 100, MaxLineChars: 2},
			head: "hé\n", clipped: 1, shownLine: 1,
		},
		{
			name: "clean ansi", out: "\x1b[31mred\x1b[0m\nplain\n", opt: PreviewOptions{MaxLines: 10, MaxBytes: 100, Clean: true},
			head: "red\nplain\n", shownLine: 2,
		},
		{
			name: "clean progress", out: "10%\r50%\r100%\ndone\n", opt: PreviewOptions{MaxLines: 10, MaxBytes: 100, Clean: true},
			head: "100%\ndone\n", shownLine: 2,
		},
		{
			name: "clean progress makes it fit", out: strings.Repeat("working...\r", 50) + "ok\n", opt: PreviewOptions{MaxLines: 10, MaxBytes: 10, Clean: true},
			head: "ok\n", shownLine: 1,
		},
		{
			name: "not cleaned", out: "a\rb\n", opt: PreviewOptions{MaxLines: 10, MaxBytes: 100},
			head: "a\rb\n", shownLine: 1,
		},
		{name: "crlf kept", out: "a\r\nb\r\n", opt: PreviewOptions{MaxLines: 10, MaxBytes: 100, Clean: true}, head: "a\r\nb\r\n", shownLine: 2},
		{
			name: "crlf kept when truncated", out: "a\r\nb\r\nc\r\nd\r\n", opt: PreviewOptions{MaxLines: 2, MaxBytes: 100, Clean: true},
			head: "a\r\n", tail: "d\r\n", omitted: &Omitted{2, 3, 6}, shownLine: 2,
		},
		{name: "invalid utf-8", out: "a\xffb\n", opt: PreviewOptions{MaxLines: 10, MaxBytes: 100}, head: "a\uFFFDb\n", shownLine: 1},
		{
			name: "nothing shown", out: "a\n", opt: PreviewOptions{MaxLines: 0, MaxBytes: 100},
			omitted: &Omitted{1, 1, 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := []byte(tt.out)
			r := Preview(out, nil, int64(len(out)), testtext.CountLines(out), tt.opt)
			if r.Head != tt.head || r.Tail != tt.tail {
				t.Errorf("head %q tail %q, want %q %q", r.Head, r.Tail, tt.head, tt.tail)
			}
			if fmt.Sprint(r.Omitted) != fmt.Sprint(tt.omitted) {
				t.Errorf("omitted %v, want %v", r.Omitted, tt.omitted)
			}
			if r.Truncated != (tt.omitted != nil) {
				t.Errorf("truncated %v", r.Truncated)
			}
			if r.ClippedLines != tt.clipped || r.ShownLines != tt.shownLine {
				t.Errorf("clipped %d shown %d, want %d %d", r.ClippedLines, r.ShownLines, tt.clipped, tt.shownLine)
			}
			if r.ShownBytes != len(r.Head)+len(r.Tail) {
				t.Errorf("shownBytes %d, want %d", r.ShownBytes, len(r.Head)+len(r.Tail))
			}
		})
	}
}

// TestPreviewPartial covers an output of which only the first and last bytes
// were kept.
func TestPreviewPartial(t *testing.T) {
	out := []byte(numbered(1000))
	total, lines := int64(len(out)), testtext.CountLines(out)
	opt := PreviewOptions{MaxLines: 4, MaxBytes: 1000}
	// The suffix starts in the middle of line 995 ("995\n"): that line is
	// not used even though the budget has room for it.
	suffix := out[len(out)-22:]
	r := Preview(out[:10], suffix, total, lines, opt)
	if r.Head != "1\n2\n" || r.Tail != "999\n1000\n" {
		t.Fatalf("head %q tail %q", r.Head, r.Tail)
	}
	want := Omitted{3, 998, total - 4 - 9}
	if *r.Omitted != want {
		t.Fatalf("omitted %v, want %v", *r.Omitted, want)
	}
	// A prefix cut inside a line: the cut line is not shown.
	r = Preview(out[:5], out[len(out)-9:], total, lines, PreviewOptions{MaxLines: 10, MaxBytes: 1000})
	if r.Head != "1\n2\n" || r.Tail != "1000\n" {
		t.Fatalf("head %q tail %q", r.Head, r.Tail)
	}
	if want := (Omitted{3, 999, total - 4 - 5}); *r.Omitted != want {
		t.Fatalf("omitted %v, want %v", *r.Omitted, want)
	}
	// Prefix and suffix that overlap cover the whole output.
	small := []byte("a\nb\nc\n")
	r = Preview(small[:4], small[2:], 6, 3, PreviewOptions{MaxLines: 10, MaxBytes: 100})
	if r.Head != "a\nb\nc\n" || r.Truncated {
		t.Fatalf("overlap: %+v", r)
	}
	// One line longer than prefix and suffix: nothing can be shown.
	huge := bytes.Repeat([]byte("y"), 100)
	r = Preview(huge[:10], huge[90:], 100, 1, PreviewOptions{MaxLines: 10, MaxBytes: 1000})
	if r.Head != "" || r.Tail != "" || *r.Omitted != (Omitted{1, 1, 100}) {
		t.Fatalf("huge line: %+v %v", r, r.Omitted)
	}
}

// checkPreview checks the invariants of a preview of out rendered from its
// first p and last p bytes, without clean-up or clipping.
func checkPreview(t *testing.T, out []byte, p int, opt PreviewOptions) {
	t.Helper()
	total, lines := int64(len(out)), testtext.CountLines(out)
	prefix, suffix := out[:min(p, len(out))], out[len(out)-min(p, len(out)):]
	r := Preview(prefix, suffix, total, lines, opt)
	if r.ShownLines > max(opt.MaxLines, 0) || r.ShownBytes > max(opt.MaxBytes, 0) {
		t.Fatalf("over budget: %d lines %d bytes", r.ShownLines, r.ShownBytes)
	}
	if r.ShownBytes != len(r.Head)+len(r.Tail) {
		t.Fatalf("shownBytes %d, head+tail %d", r.ShownBytes, len(r.Head)+len(r.Tail))
	}
	if got := testtext.CountLines([]byte(r.Head)) + testtext.CountLines([]byte(r.Tail)); got != int64(r.ShownLines) {
		t.Fatalf("shownLines %d, counted %d", r.ShownLines, got)
	}
	if !utf8.ValidString(r.Head) || !utf8.ValidString(r.Tail) {
		t.Fatal("invalid UTF-8 shown")
	}
	if r.Omitted == nil {
		if r.Truncated || r.Tail != "" || r.Head != Valid(out) {
			t.Fatalf("untruncated preview is not the output: %+v", r)
		}
		return
	}
	o := r.Omitted
	if !r.Truncated || o.FromLine < 1 || o.FromLine > o.ToLine || o.ToLine > lines {
		t.Fatalf("bad omitted %+v of %d lines", *o, lines)
	}
	mid := testtext.Lines(out, o.FromLine, o.ToLine)
	if int64(len(mid)) != o.Bytes {
		t.Fatalf("omitted bytes %d, lines %d-%d hold %d", o.Bytes, o.FromLine, o.ToLine, len(mid))
	}
	if got := r.Head + Valid(mid) + r.Tail; got != Valid(out) {
		t.Fatalf("head+omitted+tail != output\nhead %q\nmid  %q\ntail %q\nout  %q", r.Head, mid, r.Tail, out)
	}
	if int64(testtext.CountLines([]byte(r.Head))) != o.FromLine-1 {
		t.Fatalf("head holds %d lines, omitted starts at %d", testtext.CountLines([]byte(r.Head)), o.FromLine)
	}
}

func FuzzPreview(f *testing.F) {
	f.Add([]byte(numbered(100)), 10, 50, 40, uint8(0))
	f.Add([]byte("a\nbb\nccc\ndddd"), 2, 5, 3, uint8(1))
	f.Add([]byte("héllo\nwörld\n日本語\n"), 1, 8, 6, uint8(2))
	f.Add(bytes.Repeat([]byte("x"), 300), 5, 20, 50, uint8(0))
	f.Add([]byte("\n\n\n\nx\n\n"), 3, 3, 2, uint8(0))
	f.Fuzz(func(t *testing.T, out []byte, maxLines, maxBytes, p int, mode uint8) {
		opt := PreviewOptions{
			MaxLines: maxLines % 1000,
			MaxBytes: maxBytes % 5000,
			Mode:     []string{ModeHeadTail, ModeHead, ModeTail}[mode%3],
		}
		if p < 0 {
			p = -p
		}
		p %= len(out) + 2
		checkPreview(t, out, p, opt)
		checkPreview(t, out, len(out), opt)

		// With clean-up and clipping only the budget and UTF-8 are checked.
		opt.Clean, opt.MaxLineChars = true, int(mode%7)
		r := Preview(out[:p/2], out[len(out)-min(p/2, len(out)):], int64(len(out)), testtext.CountLines(out), opt)
		if r.ShownLines > max(opt.MaxLines, 0) || r.ShownBytes > max(opt.MaxBytes, 0) || r.ShownBytes != len(r.Head)+len(r.Tail) {
			t.Fatalf("over budget: %+v", r)
		}
		if !utf8.ValidString(r.Head) || !utf8.ValidString(r.Tail) {
			t.Fatal("invalid UTF-8 shown")
		}
	})
}

func BenchmarkPreview(b *testing.B) {
	out := []byte(strings.Repeat("some output line of a build tool\n", 20000))
	opt := PreviewOptions{MaxLines: 2000, MaxBytes: 51200, MaxLineChars: 2000, Clean: true}
	p := 4 * opt.MaxBytes
	b.SetBytes(int64(2 * p))
	for b.Loop() {
		Preview(out[:p], out[len(out)-p:], int64(len(out)), testtext.CountLines(out), opt)
	}
}
