package truncate_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/internal/testtext"
	"github.com/toold/toold/truncate"
)

// lines100 is "line 1\n" ... "line 100\n".
func lines100() string {
	var sb strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}

// hl makes a highlight of lines from..to of out, hit at hit.
func hl(out string, from, to, hit int64) truncate.Highlight {
	var ls []string
	for _, l := range strings.SplitAfter(out, "\n")[from-1 : to] {
		ls = append(ls, l)
	}
	return truncate.Highlight{FromLine: from, ToLine: to, Lines: ls, Hit: hit}
}

func TestOutputPreview(t *testing.T) {
	out := lines100()
	opt := truncate.PreviewOptions{MaxLines: 10, MaxBytes: 1000, Mode: truncate.ModeHeadTail, Clean: true}
	type span struct{ from, to int64 }
	tests := []struct {
		name    string
		groups  []truncate.Highlight
		opt     truncate.PreviewOptions
		want    []span
		head    string
		tail    string
		left    int
		omitted *truncate.Omitted
	}{
		{name: "none", opt: opt, head: "line 1\nline 2\nline 3\nline 4\nline 5\n", tail: "line 96\nline 97\nline 98\nline 99\nline 100\n",
			omitted: &truncate.Omitted{FromLine: 6, ToLine: 95}},
		{name: "one in the middle takes its lines first", opt: opt, groups: []truncate.Highlight{hl(out, 50, 52, 51)}, want: []span{{50, 52}},
			head: "line 1\nline 2\nline 3\nline 4\n", tail: "line 98\nline 99\nline 100\n",
			omitted: &truncate.Omitted{FromLine: 5, ToLine: 97}},
		{name: "in the head: nothing to add", opt: opt, groups: []truncate.Highlight{hl(out, 2, 3, 2)},
			head: "line 1\nline 2\nline 3\nline 4\nline 5\n", tail: "line 96\nline 97\nline 98\nline 99\nline 100\n",
			omitted: &truncate.Omitted{FromLine: 6, ToLine: 95}},
		{name: "the first group is cut around its hit", opt: truncate.PreviewOptions{MaxLines: 6, MaxBytes: 1000},
			groups: []truncate.Highlight{hl(out, 40, 49, 45)}, want: []span{{45, 46}},
			head: "line 1\nline 2\n", tail: "line 99\nline 100\n", omitted: &truncate.Omitted{FromLine: 3, ToLine: 98}},
		{name: "every hit before context, head and tail", opt: truncate.PreviewOptions{MaxLines: 6, MaxBytes: 1000},
			groups: []truncate.Highlight{hl(out, 60, 61, 60), hl(out, 30, 31, 30), hl(out, 70, 70, 70)}, want: []span{{30, 30}, {60, 60}, {70, 70}},
			head: "line 1\nline 2\n", tail: "line 100\n", omitted: &truncate.Omitted{FromLine: 3, ToLine: 99}},
		{name: "hits that do not all fit: rank order keeps the first and the last", opt: truncate.PreviewOptions{MaxLines: 3, MaxBytes: 1000},
			groups: []truncate.Highlight{hl(out, 20, 22, 21), hl(out, 80, 82, 81), hl(out, 50, 52, 51), hl(out, 40, 40, 40)},
			want:   []span{{21, 21}, {51, 51}, {81, 81}}, left: 1, omitted: &truncate.Omitted{FromLine: 1, ToLine: 100}},
		{name: "context is cut around each hit, lines after it first, before head and tail grow", opt: truncate.PreviewOptions{MaxLines: 12, MaxBytes: 1000},
			groups: []truncate.Highlight{hl(out, 20, 29, 22), hl(out, 70, 79, 72)}, want: []span{{22, 25}, {72, 75}},
			head: "line 1\nline 2\n", tail: "line 99\nline 100\n", omitted: &truncate.Omitted{FromLine: 3, ToLine: 98}},
		{name: "by bytes: hits first, then head and tail keep a line or two", opt: truncate.PreviewOptions{MaxLines: 100, MaxBytes: 40},
			groups: []truncate.Highlight{hl(out, 40, 45, 41), hl(out, 60, 65, 61)}, want: []span{{41, 41}, {61, 61}},
			head: "line 1\n", tail: "line 99\nline 100\n", omitted: &truncate.Omitted{FromLine: 2, ToLine: 98}},
		{name: "a group the full head showed is shown when the head shrinks", opt: opt,
			groups: []truncate.Highlight{hl(out, 50, 55, 50), hl(out, 4, 5, 4)}, want: []span{{4, 5}, {50, 53}},
			head: "line 1\nline 2\n", tail: "line 99\nline 100\n", omitted: &truncate.Omitted{FromLine: 3, ToLine: 98}},
		{name: "touching groups merge, in output order", opt: opt,
			groups: []truncate.Highlight{hl(out, 52, 53, 52), hl(out, 50, 51, 50)}, want: []span{{50, 53}},
			head: "line 1\nline 2\nline 3\n", tail: "line 98\nline 99\nline 100\n", omitted: &truncate.Omitted{FromLine: 4, ToLine: 97}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := truncate.Output{Prefix: []byte(out), TotalBytes: int64(len(out)), TotalLines: 100}.Preview(tc.groups, tc.opt)
			var got []span
			for _, h := range r.Highlights {
				got = append(got, span{h.FromLine, h.ToLine})
				if want := string(testtext.Lines([]byte(out), h.FromLine, h.ToLine)); h.Text != want {
					t.Errorf("highlight %d-%d: %q, want %q", h.FromLine, h.ToLine, h.Text, want)
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) || r.Head != tc.head || r.Tail != tc.tail || r.HighlightsOmitted != tc.left {
				t.Errorf("got %v head %q tail %q left %d\nwant %v head %q tail %q left %d", got, r.Head, r.Tail, r.HighlightsOmitted, tc.want, tc.head, tc.tail, tc.left)
			}
			tc.omitted.Bytes = int64(len(out) - len(tc.head) - len(tc.tail))
			if fmt.Sprint(r.Omitted) != fmt.Sprint(tc.omitted) {
				t.Errorf("omitted %+v, want %+v", r.Omitted, tc.omitted)
			}
			checkBudget(t, r, tc.opt)
		})
	}
}

// checkBudget: head, highlights and tail together stay within the limits,
// and the counts add up.
func checkBudget(t *testing.T, r truncate.PreviewResult, opt truncate.PreviewOptions) {
	t.Helper()
	parts := []string{r.Head, r.Tail}
	for _, h := range r.Highlights {
		parts = append(parts, h.Text)
	}
	text, lines := "", 0
	for _, p := range parts {
		text += p
		lines += int(testtext.CountLines([]byte(p)))
	}
	// A line that clean-up empties ("\r") is shown as nothing: count >=.
	if r.ShownBytes != len(text) || r.ShownLines < lines {
		t.Fatalf("shown %d lines %d bytes, counted %d lines %d bytes", r.ShownLines, r.ShownBytes, lines, len(text))
	}
	if r.ShownBytes > max(opt.MaxBytes, 0) || r.ShownLines > max(opt.MaxLines, 0) {
		t.Fatalf("shown %d lines %d bytes, over %d lines %d bytes", r.ShownLines, r.ShownBytes, opt.MaxLines, opt.MaxBytes)
	}
}

// FuzzOutputPreview: whatever the output and the budget, the highlights
// of its detected groups are whole cleaned lines at the numbers they claim,
// between head and tail, in output order, within the budget; an output
// without a hit has none.
func FuzzOutputPreview(f *testing.F) {
	f.Add([]byte("a\nb\nERROR: boom\nc\nd\ne\n"), 3, 20)
	f.Add([]byte(strings.Repeat("ok\n", 50)+"Traceback (most recent call last):\n  File \"x\", line 1\nValueError: x\n"+strings.Repeat("ok\n", 50)), 6, 60)
	f.Fuzz(func(t *testing.T, out []byte, maxLines, maxBytes int) {
		opt := truncate.PreviewOptions{MaxLines: maxLines % 64, MaxBytes: maxBytes % 4096, MaxLineChars: 40, Clean: true}
		res := highlight.Scan(out, highlight.Options{})
		var ranked []truncate.Highlight
		for _, i := range highlight.Rank(res.Groups) {
			g := res.Groups[i]
			ranked = append(ranked, truncate.Highlight{FromLine: g.FromLine, ToLine: g.ToLine, Lines: g.Lines, Hit: g.FromLine})
		}
		total := testtext.CountLines(out)
		r := truncate.Output{Prefix: out, TotalBytes: int64(len(out)), TotalLines: total}.Preview(ranked, opt)
		checkBudget(t, r, opt)
		if len(res.Groups) == 0 && len(r.Highlights) != 0 {
			t.Fatalf("highlights without a hit: %+v", r.Highlights)
		}
		prev := int64(0)
		for _, h := range r.Highlights {
			if r.Omitted == nil || h.FromLine < r.Omitted.FromLine || h.ToLine > r.Omitted.ToLine || h.FromLine <= prev {
				t.Fatalf("highlight %d-%d outside %+v or out of order", h.FromLine, h.ToLine, r.Omitted)
			}
			prev = h.ToLine
			var want bytes.Buffer
			for _, l := range bytes.SplitAfter(testtext.Lines(out, h.FromLine, h.ToLine), []byte("\n")) {
				if len(l) == 0 {
					continue
				}
				s, _ := truncate.ShowLine(l, true, 40)
				if !strings.HasSuffix(s, "\n") {
					s += "\n"
				}
				want.WriteString(s)
			}
			// The first group's hit line may be cut further to fit maxBytes.
			cut := h.FromLine == h.ToLine && r.ClippedLines > 0 && strings.HasPrefix(want.String(), strings.TrimSuffix(h.Text, "\n"))
			if h.Text != want.String() && !cut {
				t.Fatalf("highlight %d-%d: %q, want %q", h.FromLine, h.ToLine, h.Text, want.String())
			}
		}
	})
}
