package truncate_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/internal/corpus"
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

// ranked is what exec gives Output.Preview for out: the detector's groups
// in rank order, each after its evidence read back from out; and the
// groups themselves.
func ranked(out []byte) ([]truncate.Highlight, []highlight.Group) {
	res := highlight.Scan(out, highlight.Options{})
	var hs []truncate.Highlight
	for _, i := range highlight.Rank(res.Groups) {
		g := res.Groups[i]
		for _, ev := range g.Evidence {
			ls := strings.SplitAfter(string(testtext.Lines(out, ev.FromLine, ev.ToLine)), "\n")
			if ls[len(ls)-1] == "" {
				ls = ls[:len(ls)-1]
			}
			hs = append(hs, truncate.Highlight{FromLine: ev.FromLine, ToLine: ev.ToLine, Lines: ls, Hit: ev.FromLine, Spare: g.Spare,
				Reason: g.Reason, Weight: highlight.ReasonWeight(g.Reason)})
		}
		hs = append(hs, truncate.Highlight{FromLine: g.FromLine, ToLine: g.ToLine, Lines: g.Lines, Hit: g.Hit, Spare: g.Spare,
			Reason: g.Reason, Weight: highlight.ReasonWeight(g.Reason)})
	}
	return hs, res.Groups
}

// shownLines maps each line number a preview shows to its text.
func shownLines(r truncate.PreviewResult, totalLines int64) map[int64]string {
	m := map[int64]string{}
	put := func(from int64, text string) {
		for i, l := range strings.SplitAfter(text, "\n") {
			if l != "" {
				m[from+int64(i)] = l
			}
		}
	}
	put(1, r.Head)
	put(totalLines-testtext.CountLines([]byte(r.Tail))+1, r.Tail)
	for _, h := range r.Highlights {
		put(h.FromLine, h.Text)
	}
	return m
}

// checkHits: when the hit lines of every ranked group fit the budget
// together, each is shown; else the first and the last error are (when
// those two fit), and the groups whose hit is not shown are counted.
func checkHits(t *testing.T, out []byte, hs []truncate.Highlight, r truncate.PreviewResult, opt truncate.PreviewOptions) {
	t.Helper()
	if r.Omitted == nil {
		return
	}
	shown := shownLines(r, testtext.CountLines(out))
	lines, size, missing := 0, 0, 0
	spare := 0
	for i, h := range hs {
		if h.Spare {
			// Shown whole with what the others left, or counted omitted
			// (below): its hit line alone does not earn a place.
			if _, ok := shown[h.Hit]; !ok {
				spare++
			}
			continue
		}
		l, _ := truncate.ShowLine([]byte(h.Lines[h.Hit-h.FromLine]), opt.Clean, opt.MaxLineChars)
		if !strings.HasSuffix(l, "\n") {
			l += "\n"
		}
		lines, size = lines+1, size+len(l)
		if _, ok := shown[h.Hit]; !ok {
			missing++
			if i < 2 && lines <= opt.MaxLines && size <= opt.MaxBytes {
				t.Errorf("hit %d of the group ranked %d (%d-%d) not shown", h.Hit, i, h.FromLine, h.ToLine)
			}
		}
	}
	if lines <= opt.MaxLines && size <= opt.MaxBytes && missing > 0 {
		t.Errorf("%d hits fit in %d lines, %d bytes, but %d are not shown", len(hs), lines, size, missing)
	}
	if r.HighlightsOmitted > missing+spare {
		t.Errorf("%d groups counted as omitted, %d hits not shown", r.HighlightsOmitted, missing)
	}
}

// TestOutputPreviewCorpus: real outputs of real tools at budgets from the
// default down to a few lines: the hits come first, then head and tail.
func TestOutputPreviewCorpus(t *testing.T) {
	cs, err := corpus.LoadForTests("../testdata/outputs") // the cases it takes are kept, not generated
	if err != nil {
		t.Fatal(err)
	}
	budgets := []truncate.PreviewOptions{{MaxLines: 2000, MaxBytes: 51200}, {MaxLines: 2000, MaxBytes: 5120},
		{MaxLines: 100, MaxBytes: 51200}, {MaxLines: 14, MaxBytes: 51200}, {MaxLines: 2000, MaxBytes: 1024}, {MaxLines: 3, MaxBytes: 300}}
	for _, c := range cs {
		switch c.Name {
		case "go-test-v-subtest", "make-k-warnings", "python-log-traceback", "pytest-failures", "cargo-warnings-error", "go-test-clean":
		default:
			continue
		}
		hs, _ := ranked(c.Output)
		for _, opt := range budgets {
			opt.MaxLineChars, opt.Clean = 2000, true
			t.Run(fmt.Sprintf("%s/%d lines %d bytes", c.Name, opt.MaxLines, opt.MaxBytes), func(t *testing.T) {
				r := truncate.Output{Prefix: c.Output, TotalBytes: int64(len(c.Output)), TotalLines: testtext.CountLines(c.Output)}.Preview(hs, opt)
				checkBudget(t, r, opt)
				checkHits(t, c.Output, hs, r, opt)
				checkEnds(t, r, opt, len(hs) > 0)
				for _, h := range r.Highlights {
					if c.Clean && h.Reason != highlight.ReasonRare {
						t.Errorf("a clean run has a highlight of reason %q: %+v", h.Reason, h)
					}
				}
				if !c.Clean && opt.MaxBytes >= 5120 && opt.MaxLines >= 100 {
					all := r.Head + r.Tail
					for _, h := range r.Highlights {
						all += h.Text
					}
					for _, k := range c.Keys {
						if !strings.Contains(all, k) {
							t.Errorf("key line %q not shown", k)
						}
					}
				}
			})
		}
	}
}

// TestOutputPreviewPriority: the reviewer's outputs. Five errors among
// 6000 numbers at maxLines 100 are all shown, with head and tail; an
// error and a Python traceback at maxLines 14 show the traceback to its
// exception line.
func TestOutputPreviewPriority(t *testing.T) {
	var five bytes.Buffer
	seq := func(b *bytes.Buffer) {
		for i := 1; i <= 1000; i++ {
			fmt.Fprintf(b, "%d\n", i)
		}
	}
	seq(&five)
	for k := 1; k <= 5; k++ {
		fmt.Fprintf(&five, "error: problem %d\n", k)
		seq(&five)
	}
	var tb bytes.Buffer
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&tb, "%d\n", i)
	}
	tb.WriteString("error: config not found\n")
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&tb, "%d\n", i)
	}
	tb.WriteString("Traceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    main()\n" +
		"  File \"app.py\", line 2, in main\n    raise ValueError(\"bad value\")\nValueError: bad value\n")
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&tb, "%d\n", i)
	}
	tests := []struct {
		name string
		out  []byte
		opt  truncate.PreviewOptions
		want []string // lines that must be shown
	}{
		{"five errors at maxLines 100", five.Bytes(), truncate.PreviewOptions{MaxLines: 100, MaxBytes: 51200},
			[]string{"1\n", "error: problem 1\n", "error: problem 2\n", "error: problem 3\n", "error: problem 4\n", "error: problem 5\n"}},
		{"five errors at maxBytes 100", five.Bytes(), truncate.PreviewOptions{MaxLines: 2000, MaxBytes: 100},
			[]string{"error: problem 1\n", "error: problem 2\n", "error: problem 3\n", "error: problem 4\n", "error: problem 5\n"}},
		{"error and traceback at maxLines 14", tb.Bytes(), truncate.PreviewOptions{MaxLines: 14, MaxBytes: 51200},
			[]string{"error: config not found\n", "Traceback (most recent call last):\n", "ValueError: bad value\n"}},
		{"error and traceback, head mode", tb.Bytes(), truncate.PreviewOptions{MaxLines: 14, MaxBytes: 51200, Mode: truncate.ModeHead},
			[]string{"1\n", "error: config not found\n", "ValueError: bad value\n"}},
		{"error and traceback, tail mode", tb.Bytes(), truncate.PreviewOptions{MaxLines: 14, MaxBytes: 51200, Mode: truncate.ModeTail},
			[]string{"100\n", "error: config not found\n", "ValueError: bad value\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.MaxLineChars, tc.opt.Clean = 2000, true
			hs, _ := ranked(tc.out)
			r := truncate.Output{Prefix: tc.out, TotalBytes: int64(len(tc.out)), TotalLines: testtext.CountLines(tc.out)}.Preview(hs, tc.opt)
			checkBudget(t, r, tc.opt)
			checkHits(t, tc.out, hs, r, tc.opt)
			all := r.Head + r.Tail
			for _, h := range r.Highlights {
				all += h.Text
			}
			for _, w := range tc.want {
				if !strings.HasPrefix(all, w) && !strings.Contains(all, "\n"+w) {
					t.Errorf("%q not shown: head %q highlights %+v tail %q", w, r.Head, r.Highlights, r.Tail)
				}
			}
			if r.HighlightsOmitted != 0 {
				t.Errorf("%d groups omitted", r.HighlightsOmitted)
			}
		})
	}
}

// checkEnds: once something was found (and shown) in an output whose
// middle is omitted, head and tail keep at most FoundEndLines and
// FoundEndBytes each; with nothing found, they take the budget as before.
func checkEnds(t *testing.T, r truncate.PreviewResult, opt truncate.PreviewOptions, found bool) {
	t.Helper()
	if r.Omitted == nil {
		return
	}
	for _, p := range []string{r.Head, r.Tail} {
		n := int(testtext.CountLines([]byte(p)))
		if len(r.Highlights) > 0 && (n > truncate.FoundEndLines || len(p) > truncate.FoundEndBytes) {
			t.Errorf("highlights shown, but head or tail keeps %d lines %d bytes", n, len(p))
		}
	}
	if !found && opt.MaxLines >= 100 && opt.MaxBytes >= 5120 && r.ShownBytes < opt.MaxBytes*3/4 && r.ShownLines < opt.MaxLines*3/4 {
		t.Errorf("nothing found, but head and tail keep only %d lines %d bytes of %d, %d", r.ShownLines, r.ShownBytes, opt.MaxLines, opt.MaxBytes)
	}
}

// TestOutputPreviewFoundEnds: an error among 3000 lines at the default
// limits shows the error, and head and tail of 20 lines each; the same
// lines without the error keep today's head and tail.
func TestOutputPreviewFoundEnds(t *testing.T) {
	var b bytes.Buffer
	for i := 1; i <= 3000; i++ {
		if i == 1500 {
			b.WriteString("main.c:12:5: error: 'x' undeclared\n")
		}
		fmt.Fprintf(&b, "[%d/3000] compiling unit_%04d.c\n", i, i)
	}
	opt := truncate.PreviewOptions{MaxLines: 2000, MaxBytes: 51200, MaxLineChars: 2000, Clean: true}
	for _, mode := range []string{truncate.ModeHeadTail, truncate.ModeHead, truncate.ModeTail} {
		opt.Mode = mode
		out := b.Bytes()
		hs, _ := ranked(out)
		o := truncate.Output{Prefix: out, TotalBytes: int64(len(out)), TotalLines: testtext.CountLines(out)}
		r := o.Preview(hs, opt)
		checkBudget(t, r, opt)
		checkEnds(t, r, opt, true)
		if len(r.Highlights) != 1 || !strings.Contains(r.Highlights[0].Text, "error: 'x' undeclared") {
			t.Fatalf("%s: highlights %+v", mode, r.Highlights)
		}
		if r.ShownBytes > 3*truncate.FoundEndBytes {
			t.Errorf("%s: %d bytes shown", mode, r.ShownBytes)
		}
		r = o.Preview(nil, opt)
		checkEnds(t, r, opt, false)
	}
}

// checkWhole: every line head, tail and highlights show is the line of
// out at the number it claims, rendered as opt says, or its beginning when
// it was clipped to fit the budget.
func checkWhole(t *testing.T, out []byte, r truncate.PreviewResult, opt truncate.PreviewOptions) {
	t.Helper()
	total := testtext.CountLines(out)
	if last := testtext.Lines(out, total, total); total > 0 && !bytes.HasSuffix(last, []byte("\n")) {
		if s, _ := truncate.ShowLine(last, opt.Clean, opt.MaxLineChars); s == "" {
			return // shown as nothing: the numbers of the tail cannot be told
		}
	}
	for n, got := range shownLines(r, total) {
		if n < 1 || n > total {
			t.Fatalf("line %d shown of %d: %q", n, total, got)
		}
		want, _ := truncate.ShowLine(testtext.Lines(out, n, n), opt.Clean, opt.MaxLineChars)
		if got == want || got == want+"\n" {
			continue
		}
		body, _ := truncate.SplitEnding([]byte(got))
		if r.ClippedLines == 0 || !strings.HasPrefix(want, string(body)) {
			t.Fatalf("line %d shown as %q, is %q", n, got, want)
		}
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
	f.Add([]byte("a\n"+strings.Repeat("0", 300)+"\nerror: x\nb\n"), 10, 100)
	f.Fuzz(func(t *testing.T, out []byte, maxLines, maxBytes int) {
		opt := truncate.PreviewOptions{MaxLines: maxLines % 64, MaxBytes: maxBytes % 4096, MaxLineChars: 40, Clean: true}
		opt.Mode = []string{truncate.ModeHeadTail, truncate.ModeHead, truncate.ModeTail}[(uint(maxLines)/64)%3]
		ranked, groups := ranked(out)
		res := highlight.Result{Groups: groups}
		total := testtext.CountLines(out)
		r := truncate.Output{Prefix: out, TotalBytes: int64(len(out)), TotalLines: total}.Preview(ranked, opt)
		checkBudget(t, r, opt)
		checkHits(t, out, ranked, r, opt)
		checkWhole(t, out, r, opt)
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

// TestOutputPreviewRank: each shown group carries its place in the ranked
// order Preview was given (a merged one its best), so that a rendering that
// must give groups up later gives up the last ranked first.
func TestOutputPreviewRank(t *testing.T) {
	out := lines100()
	opt := truncate.PreviewOptions{MaxLines: 40, MaxBytes: 1000, Clean: true}
	for _, tc := range []struct {
		name   string
		groups []truncate.Highlight
		want   []int // the shown groups' ranks, in output order
	}{
		{"output order is not rank order", []truncate.Highlight{hl(out, 70, 71, 70), hl(out, 30, 31, 30), hl(out, 50, 51, 50)}, []int{1, 2, 0}},
		{"merged groups keep the best", []truncate.Highlight{hl(out, 30, 31, 30), hl(out, 52, 53, 52), hl(out, 50, 51, 50)}, []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := truncate.Output{Prefix: []byte(out), TotalBytes: int64(len(out)), TotalLines: 100}.Preview(tc.groups, opt)
			var got []int
			for _, h := range r.Highlights {
				got = append(got, h.Rank)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("ranks %v, want %v", got, tc.want)
			}
		})
	}
}
