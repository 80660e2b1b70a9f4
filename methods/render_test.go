package methods

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
)

// synthStream is a stream of total lines "line N" (its first line first)
// previewed with head lines, tail lines and highlight groups at the given
// starts of the given lengths, as the daemon would give it.
func synthStream(first, total int64, head, tail int, groups [][2]int64) protocol.Stream {
	text := func(from, to int64) string {
		var b strings.Builder
		for n := from; n <= to; n++ {
			fmt.Fprintf(&b, "line %d\n", n)
		}
		return b.String()
	}
	last := first + total - 1
	s := protocol.Stream{
		Head: text(first, first+int64(head)-1), Tail: text(last-int64(tail)+1, last),
		TotalBytes: total * 10, TotalLines: total, Truncated: true,
		Omitted: &protocol.Omitted{FromLine: first + int64(head), ToLine: last - int64(tail), Bytes: 1000},
		Spool:   &protocol.SpoolRef{ID: "sp1"},
	}
	for i, g := range groups {
		s.Highlights = append(s.Highlights, protocol.Highlight{FromLine: g[0], ToLine: g[0] + g[1] - 1, Text: text(g[0], g[0]+g[1]-1), Rank: i})
	}
	return s
}

// fitText is the rendering of head, the streams and the notice n after
// fitStreams fitted it to budget (the streams and n are left as they were).
func fitText(head string, stdout, stderr *protocol.Stream, n *string, budget int) string {
	o, e := *stdout, *stderr
	fitStreams(func() string { return notice.StreamsText(head, &o, &e, n) }, &o, &e, &n, budget)
	return notice.StreamsText(head, &o, &e, n)
}

var (
	gapRe  = regexp.MustCompile(`^\[\.\.\. lines (\d+)-(\d+) omitted(?: \([^)]*\))?; page spool=sp1 offset=(\d+) to read them \.\.\.\]$`)
	lineRe = regexp.MustCompile(`^(?:\s*(\d+)\t)?line (\d+)$`)
)

// checkCover checks that a stream's rendering accounts for every line
// first..last once, in order: a shown line is the source line of its
// number, a gap names the lines it stands for and the page call from its
// first.
func checkCover(t *testing.T, rendered string, first, last int64) {
	t.Helper()
	next := first
	for _, l := range strings.Split(strings.TrimSuffix(rendered, "\n"), "\n")[1:] {
		if m := gapRe.FindStringSubmatch(l); m != nil {
			from, _ := strconv.ParseInt(m[1], 10, 64)
			to, _ := strconv.ParseInt(m[2], 10, 64)
			if from != next || to < from || m[3] != m[1] {
				t.Fatalf("gap %q where line %d comes next", l, next)
			}
			next = to + 1
			continue
		}
		m := lineRe.FindStringSubmatch(l)
		if m == nil || m[2] != fmt.Sprint(next) || (m[1] != "" && m[1] != m[2]) {
			t.Fatalf("line %q where line %d comes next", l, next)
		}
		next++
	}
	if next != last+1 {
		t.Fatalf("the rendering ends before line %d (of %d)", next, last)
	}
}

// TestFitStreams: a preview whose rendering is over the budget (highlight
// groups of one line each, every one with a gap line of its own) is cut to
// the budget, every line accounted for by a shown line or a gap; what fits
// is left alone.
func TestFitStreams(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name          string
		first, total  int64
		head, tail    int
		groups        int
		budget, under int // under: the text must be at least this long (nothing needless cut)
	}{
		{"fits", 1, 5000, 40, 40, 3, protocol.MCPResultBytes, 0},
		// 1,500 groups with TOOLD_LONG=1; 500 in the quick run (67 KB
		// plain, still 2.7 times the budget: the fitting must give groups
		// up), where -race made 1,500 the test's costliest case.
		{"many groups", 1, 1000000, 100, 100, testenv.Size(500, 1500), protocol.MCPResultBytes, protocol.MCPResultBytes - 400},
		{"process output past line 1", 5001, 200000, 50, 50, 800, protocol.MCPResultBytes, protocol.MCPResultBytes - 400},
		{"tiny budget", 1, 100000, 100, 100, 300, 2048, 0},
		{"no groups", 1, 100000, 3000, 3000, 0, 8192, 8192 - 400},
		{"head only", 1, 100000, 3000, 0, 10, 8192, 8192 - 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var groups [][2]int64
			lo := tc.first + int64(tc.head) + 1
			hi := tc.first + tc.total - int64(tc.tail) - 1
			step := (hi - lo) / int64(max(tc.groups, 1))
			for i := 0; i < tc.groups; i++ {
				at := lo + int64(i)*step
				groups = append(groups, [2]int64{at, 1 + rng.Int64N(min(step-1, 4))})
			}
			out := synthStream(tc.first, tc.total, tc.head, tc.tail, groups)
			errs := synthStream(1, 30, 30, 0, nil)
			errs.Omitted, errs.Spool, errs.Truncated = nil, nil, false
			n := "[stdout: lines omitted]"
			text := fitText("exit status 1", &out, &errs, &n, tc.budget)
			if len(text) > tc.budget || len(text) < tc.under {
				t.Fatalf("%d bytes, budget %d (at least %d)", len(text), tc.budget, tc.under)
			}
			plain := notice.StreamsText("exit status 1", &out, &errs, &n)
			if fitted := text != plain; fitted != (len(plain) > tc.budget) {
				t.Fatalf("fitted %v, the plain text is %d bytes", fitted, len(plain))
			}
			stdout, rest, _ := strings.Cut(strings.TrimPrefix(text, "exit status 1\n"), "--- stderr ---\n")
			checkCover(t, stdout, tc.first, tc.first+tc.total-1)
			if !strings.HasPrefix(rest, errs.Head) {
				t.Errorf("stderr, shown whole, was cut: %q", rest)
			}
			if text != plain && (!strings.HasSuffix(text, "give maxBytes for more]") || !strings.Contains(text, strings.TrimSuffix(n, "]"))) {
				t.Errorf("a fitted text ends %q", text[max(0, len(text)-300):])
			}
			if tc.groups > 0 && !strings.Contains(stdout, fmt.Sprintf("%6d\tline %d\n", groups[0][0], groups[0][0])) {
				t.Errorf("the first group's first line is gone")
			}
		})
	}
}

// TestFitKeepsKinds: a stream's kinds of failure are kept whole when its
// lines are given up to fit the budget, and count in it.
func TestFitKeepsKinds(t *testing.T) {
	t.Parallel()
	var groups [][2]int64
	for at := int64(200); at < 90000; at += 300 {
		groups = append(groups, [2]int64{at, 1})
	}
	out := synthStream(1, 100000, 100, 100, groups)
	for i := range 10 {
		out.Kinds = append(out.Kinds, protocol.Kind{Text: strings.Repeat(fmt.Sprintf("kind %d <*> ", i), 18), Count: int64(9000 - i), FirstLine: int64(200 + i), LastLine: 99000})
	}
	var errs protocol.Stream
	for _, budget := range []int{protocol.MCPResultBytes, 6000} {
		text := fitText("exit status 1", &out, &errs, nil, budget)
		if len(text) > budget {
			t.Errorf("budget %d: %d bytes", budget, len(text))
		}
		body, _, _ := strings.Cut(text, "\n[kind of failure: ")
		checkCover(t, strings.TrimPrefix(body, "exit status 1\n")+"\n", 1, 100000)
		for _, k := range out.Kinds {
			if want := notice.KindOfFailure(k) + "\n"; !strings.Contains(text, want) {
				t.Errorf("budget %d: no %q", budget, want)
			}
		}
	}
}

// TestFitGivesUpLastRanked: the groups a fitted stream gives up are the last
// in highlight.Rank's order (Highlight.Rank), wherever they are in the
// output: no group kept ranks after one given up.
func TestFitGivesUpLastRanked(t *testing.T) {
	t.Parallel()
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 7))
		var groups [][2]int64
		for at := int64(200); at < 90000; at += 300 {
			groups = append(groups, [2]int64{at, 1 + rng.Int64N(3)})
		}
		out := synthStream(1, 100000, 20, 20, groups)
		for i, r := range rng.Perm(len(out.Highlights)) {
			out.Highlights[i].Rank = r
		}
		o, e := out, protocol.Stream{}
		var n *string
		fitStreams(func() string { return notice.StreamsText("exit status 1", &o, &e, n) }, &o, &e, &n, 8192)
		if text := notice.StreamsText("exit status 1", &o, &e, n); len(text) > 8192 {
			t.Fatalf("seed %d: %d bytes", seed, len(text))
		}
		kept := map[int64]bool{}
		worstKept := -1
		for _, h := range o.Highlights {
			kept[h.FromLine] = true
			worstKept = max(worstKept, h.Rank)
		}
		if len(kept) == 0 || len(kept) == len(out.Highlights) {
			t.Fatalf("seed %d: %d of %d groups kept: the case tests nothing", seed, len(kept), len(out.Highlights))
		}
		for _, h := range out.Highlights {
			if !kept[h.FromLine] && h.Rank < worstKept {
				t.Errorf("seed %d: group at line %d (rank %d) given up, one of rank %d kept", seed, h.FromLine, h.Rank, worstKept)
			}
		}
		if o.HighlightsOmitted != len(out.Highlights)-len(kept) {
			t.Errorf("seed %d: %d groups counted as left out, %d were", seed, o.HighlightsOmitted, len(out.Highlights)-len(kept))
		}
	}
}

// TestRenderParam: exec and process/wait given render.maxBytes answer with
// a result whose rendering (notice.ExecText, notice.ProcessText) is at
// most that, cut where the spool keeps the lines and said so; without it
// the same output renders longer, and a result that fits is left alone.
func TestRenderParam(t *testing.T) {
	svc, s := newExecService(t, nil)
	// Error lines all through the output: highlight groups to give up.
	// 2,156 lines: past exec's 2,000 a preview holds, so that lines are
	// omitted and the rendering is fitted (3,000 proved the same for
	// more CPU).
	const cmd = `for i in $(seq 1 2100); do echo "line $i"; if [ $((i % 37)) = 0 ]; then echo "error: failure number $i in module m$i"; fi; done`
	// The plain rendering, the same for every budget: run once.
	whole := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": cmd})
	plain := notice.ExecText(&whole)
	for _, tc := range []struct {
		name   string
		budget int
		cut    bool
	}{
		{"cut", 6000, true},
		{"tiny", 1500, true},
		{"fits", 1 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			render := map[string]any{"maxBytes": tc.budget}
			r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": cmd, "render": render})
			text := notice.ExecText(&r)
			if len(text) > tc.budget {
				t.Errorf("exec: %d bytes rendered, budget %d", len(text), tc.budget)
			}
			if cut := strings.Contains(text, "so that it reaches you whole"); cut != tc.cut || (tc.cut && len(plain) <= tc.budget) {
				t.Errorf("exec: cut %v (the plain rendering is %d bytes)", cut, len(plain))
			}
			if !tc.cut && (r.Stdout.ShownLines != whole.Stdout.ShownLines || len(r.Stdout.Highlights) != len(whole.Stdout.Highlights)) {
				t.Errorf("exec: a result that fits was changed")
			}
			b := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": cmd, "background": true})
			w := call[protocol.ProcessOutput](t, svc.ProcessWait, s, map[string]any{"id": *b.Process, "render": render})
			if text := notice.ProcessText(&w); len(text) > tc.budget || strings.Contains(text, "so that it reaches you whole") != tc.cut {
				t.Errorf("process/wait: %d bytes rendered, budget %d", len(text), tc.budget)
			}
		})
	}
}

// FuzzFitStreams: whatever the stream and the budget, a fitted rendering
// accounts for every line once, in order (shown or named as omitted), and
// is within the budget unless every line that could go has gone.
func FuzzFitStreams(f *testing.F) {
	f.Add(uint16(40), uint16(40), uint16(30), uint16(4000), uint64(1))
	f.Add(uint16(0), uint16(3), uint16(200), uint16(900), uint64(2))
	f.Add(uint16(7), uint16(0), uint16(0), uint16(100), uint64(3))
	f.Fuzz(func(t *testing.T, head, tail, ngroups, budget uint16, seed uint64) {
		head, tail, ngroups = head%300, tail%300, ngroups%300
		const total = 20000
		rng := rand.New(rand.NewPCG(seed, 1))
		var groups [][2]int64
		lo, hi := int64(head)+2, int64(total)-int64(tail)-1
		for at := lo; at < hi && len(groups) < int(ngroups); at += 1 + rng.Int64N(60) {
			n := min(1+rng.Int64N(4), hi-at)
			groups = append(groups, [2]int64{at, n})
			at += n
		}
		out := synthStream(1, total, int(head), int(tail), groups)
		for i, r := range rng.Perm(len(out.Highlights)) {
			out.Highlights[i].Rank = r
		}
		var e protocol.Stream
		text := fitText("exit status 1", &out, &e, nil, int(budget))
		body, _, _ := strings.Cut(strings.TrimPrefix(text, "exit status 1\n"), "\n[Cut to ")
		checkCover(t, body+"\n", 1, total)
		if len(text) > int(budget) {
			o := out
			v := newStreamView("stdout", &o)
			if floor := notice.StreamsText("exit status 1", ptr(v.apply(len(v.removal))), &e, ptr(notice.FittedResult(int(budget)))); len(text) > len(floor) {
				t.Fatalf("%d bytes, budget %d, and %d with every line given up", len(text), budget, len(floor))
			}
		}
	})
}

// TestRenderEntries: find and ls given render.maxBytes answer with entries
// whose rendering (notice.EntriesText) is at most that: the last entries
// cut as a smaller limit cuts them, the notice naming the limit shown and
// the total; a result that fits is left alone.
func TestRenderEntries(t *testing.T) {
	svc, s := newExecService(t, nil)
	dir := t.TempDir()
	for i := range 300 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d-%s", i, strings.Repeat("n", 96))), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		method Method
		params map[string]any
		budget int
		shown  int // entries shown
	}{
		{svc.Find, map[string]any{"path": dir, "pattern": "*"}, 10000, 98},
		{svc.Ls, map[string]any{"path": dir}, 10000, 98},
		{svc.Ls, map[string]any{"path": dir}, 50, 1},
		{svc.Ls, map[string]any{"path": dir, "limit": 20}, 10000, 20},
		{svc.Find, map[string]any{"path": dir, "pattern": "*"}, 1 << 20, 300},
	} {
		tc.params["render"] = map[string]any{"maxBytes": tc.budget}
		r := call[protocol.EntriesResult](t, tc.method, s, tc.params)
		text := notice.EntriesText(&r)
		if len(r.Entries) != tc.shown || (tc.shown > 1 && len(text) > tc.budget) {
			t.Errorf("%v: %d entries, %d bytes, want %d entries within %d", tc.params, len(r.Entries), len(text), tc.shown, tc.budget)
		}
		if tc.shown < 300 && (!r.LimitReached || !strings.HasPrefix(text[len(text)-len(deref(r.Notice)):], fmt.Sprintf("[%d ", tc.shown)) || !strings.Contains(text, "(300 in all)")) {
			t.Errorf("%v: notice %q", tc.params, deref(r.Notice))
		}
	}
}

// TestRenderGrep: grep given render.maxBytes answers with matches whose
// rendering (notice.GrepText, grep -n's form) is at most that: the last
// matches cut as a smaller limit cuts them, with its notice; a result that
// fits is left alone.
func TestRenderGrep(t *testing.T) {
	svc, s := newExecService(t, nil)
	path := filepath.Join(t.TempDir(), strings.Repeat("d", 150), "f.txt")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("match "+strings.Repeat("x", 40)+"\n", 500)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		budget int
		cut    bool
	}{{8000, true}, {100, true}, {1 << 20, false}} {
		r := call[protocol.GrepResult](t, svc.Grep, s, map[string]any{"path": path, "pattern": "match", "context": 1, "limit": 1000, "render": map[string]any{"maxBytes": tc.budget}})
		text := notice.GrepText(&r)
		shown := 0
		for _, f := range r.Files {
			shown += len(f.Matches)
		}
		if tc.cut != (shown < 500) || (shown > 1 && len(text) > tc.budget) {
			t.Errorf("budget %d: %d matches shown, %d bytes", tc.budget, shown, len(text))
		}
		if tc.cut && !strings.Contains(deref(r.Notice), fmt.Sprintf("[%d matches limit reached. Use limit=%d", shown, 2*shown)) {
			t.Errorf("budget %d: notice %q", tc.budget, deref(r.Notice))
		}
	}
}
