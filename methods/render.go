package methods

import (
	"math"
	"sort"
	"strings"

	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
)

// A result whose params bound its rendering (protocol.RenderParams: toold
// mcp's, so that a tool result reaches the model whole) is fitted here,
// once, after the preview: streams whose middle a spool keeps give up
// shown lines, measured on the rendering notice makes of them, until the
// rendering fits. Lines go in this order: head and tail lines beyond the
// first and last keepEnds (those next to the omitted middle first), then
// highlight groups from their ends, the last ranked (highlight.Rank) first,
// then the rest of head and tail. What is given up joins the omitted
// middle, which the rendering names with the page call that reads it.

// renderBudget is the rendered size r asks for; 0 for none.
func renderBudget(r *protocol.RenderParams) (int, error) {
	if r == nil {
		return 0, nil
	}
	n, err := count("render.maxBytes", r.MaxBytes, 0, 0, math.MaxInt32)
	return int(n), err
}

// fitEntries gives out (find's or ls' entries, the first limit) its
// notice, after cutting its last entries, as a smaller limit would, until
// its rendering (notice.EntriesText) is at most budget bytes; 0 is none.
func fitEntries(method string, out *protocol.EntriesResult, limit, ignored, budget int) {
	out.Notice = optional(notice.Entries(method, out, limit, ignored))
	if budget <= 0 {
		return
	}
	for len(out.Entries) > 1 && len(notice.EntriesText(out)) > budget {
		// Cut to what fits before the notice, then an entry at a time
		// while the notice (whose numbers change) still does not fit.
		size, n := 0, 0
		for n < len(out.Entries)-1 && size+len(out.Entries[n])+1 <= budget-len(deref(out.Notice))-1 {
			size += len(out.Entries[n]) + 1
			n++
		}
		n = max(min(n, len(out.Entries)-1), 1)
		out.Entries, out.LimitReached, limit = out.Entries[:n], true, n
		out.Notice = optional(notice.Entries(method, out, limit, ignored))
	}
}

// fitExec fits r's rendering (notice.ExecText) in budget bytes; 0 leaves
// it as it is.
func fitExec(r *protocol.ExecResult, budget int) {
	if budget > 0 {
		fitStreams(func() string { return notice.ExecText(r) }, &r.Stdout, &r.Stderr, &r.Notice, budget)
	}
}

// fitProcess fits r's rendering (notice.ProcessText) in budget bytes; 0
// leaves it as it is.
func fitProcess(r *protocol.ProcessOutput, budget int) {
	if budget > 0 {
		fitStreams(func() string { return notice.ProcessText(r) }, &r.Stdout, &r.Stderr, &r.Notice, budget)
	}
}

// fitStreams makes text (the result's rendering) at most budget bytes when
// the streams can give up enough, the longest stream first, and says so in
// the notice n.
func fitStreams(text func() string, stdout, stderr *protocol.Stream, n **string, budget int) {
	size := len(text())
	if size <= budget {
		return
	}
	over := size + len(notice.FittedResult(budget)) + 1 - budget
	views := []*streamView{newStreamView("stdout", stdout), newStreamView("stderr", stderr)}
	sort.SliceStable(views, func(a, b int) bool { return len(views[a].render(0)) > len(views[b].render(0)) })
	cut := false
	for _, v := range views {
		if over <= 0 || len(v.removal) == 0 {
			continue
		}
		whole := len(v.render(0))
		k := v.fit(whole - over)
		over -= whole - len(v.render(k))
		*v.s = v.apply(k)
		cut = cut || k > 0
	}
	if cut {
		f := notice.Join(deref(*n), notice.FittedResult(budget))
		*n = &f
	}
}

// srcLine is a shown line of a stream: its number, its text with its
// ending, and its highlight's index plus 1 (0 for head and tail).
type srcLine struct {
	n     int64
	text  string
	group int
}

// streamView is a stream as the lines it shows, and the order in which
// fitting gives them up.
type streamView struct {
	name    string
	s       *protocol.Stream
	orig    protocol.Stream
	lines   []srcLine
	nHead   int
	removal []int // indices into lines, in the order they go
}

func newStreamView(name string, s *protocol.Stream) *streamView {
	v := &streamView{name: name, s: s, orig: *s}
	if s.Omitted == nil || s.Spool == nil || s.Binary || s.TotalBytes <= 0 {
		return v // nothing given up could be paged back
	}
	head, tail := splitText(s.Head), splitText(s.Tail)
	first := s.Omitted.FromLine - int64(len(head))
	var hi, ti []int
	groups := make([][]int, len(s.Highlights))
	for i, t := range head {
		v.lines = append(v.lines, srcLine{n: first + int64(i), text: t})
		hi = append(hi, len(v.lines)-1)
	}
	v.nHead = len(head)
	for k, h := range s.Highlights {
		for i, t := range splitText(h.Text) {
			v.lines = append(v.lines, srcLine{n: h.FromLine + int64(i), text: t, group: k + 1})
			groups[k] = append(groups[k], len(v.lines)-1)
		}
	}
	for i, t := range tail {
		v.lines = append(v.lines, srcLine{n: s.Omitted.ToLine + 1 + int64(i), text: t})
		ti = append(ti, len(v.lines)-1)
	}
	v.removal = removalOrder(hi, ti, groups, s.Highlights)
	return v
}

// keepEnds is how many of the first head and last tail lines fitting gives
// up only after every highlight.
const keepEnds = 5

// removalOrder is the order in which fitting gives lines up: head lines
// from the end and tail lines from the start, alternately, down to
// keepEnds of each; then highlight groups, each from its end, the last
// ranked first; then the rest of head and tail. Each line given up touches
// lines already given up or the omitted middle.
func removalOrder(head, tail []int, groups [][]int, hs []protocol.Highlight) []int {
	var out []int
	ends := func(h, t []int) {
		for i, j := len(h)-1, 0; i >= 0 || j < len(t); i, j = i-1, j+1 {
			if i >= 0 {
				out = append(out, h[i])
			}
			if j < len(t) {
				out = append(out, t[j])
			}
		}
	}
	kh, kt := min(keepEnds, len(head)), min(keepEnds, len(tail))
	ends(head[kh:], tail[:len(tail)-kt])
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return hs[order[a]].Rank > hs[order[b]].Rank })
	for _, g := range order {
		for i := len(groups[g]) - 1; i >= 0; i-- {
			out = append(out, groups[g][i])
		}
	}
	ends(head[:kh], tail[len(tail)-kt:])
	return out
}

// fit is how many lines the stream gives up for its rendering to take at
// most target bytes (all it can when no number does).
func (v *streamView) fit(target int) int {
	k := sort.Search(len(v.removal)+1, func(k int) bool { return len(v.render(k)) <= target })
	for k < len(v.removal) && len(v.render(k)) > target {
		k++
	}
	return min(k, len(v.removal))
}

// render is the stream's rendering with its first k lines of removal given
// up.
func (v *streamView) render(k int) string {
	s := v.apply(k)
	return notice.StreamText(v.name, &s)
}

// apply is the stream with its first k lines of removal given up: head
// and tail shorter, the omitted middle wider, groups shorter or gone (and
// counted as left out). Lines given up were shown whole, so their bytes are
// counted as the middle's raw bytes.
func (v *streamView) apply(k int) protocol.Stream {
	s := v.orig
	if k == 0 {
		return s
	}
	gone := make([]bool, len(v.lines))
	lost := 0
	for _, i := range v.removal[:k] {
		gone[i] = true
		lost += len(v.lines[i].text) + 1
	}
	var head, tail strings.Builder
	texts := make([]strings.Builder, len(s.Highlights))
	kept := make([]int64, len(s.Highlights))
	nHead, nTail := 0, 0
	for i, l := range v.lines {
		switch {
		case gone[i]:
		case l.group > 0:
			texts[l.group-1].WriteString(l.text + "\n")
			kept[l.group-1]++
		case i < v.nHead:
			head.WriteString(l.text + "\n")
			nHead++
		default:
			tail.WriteString(l.text + "\n")
			nTail++
		}
	}
	om := *s.Omitted
	om.FromLine -= int64(len(splitText(s.Head)) - nHead)
	om.ToLine += int64(len(splitText(s.Tail)) - nTail)
	om.Bytes += int64(lost)
	s.Omitted = &om
	s.Head, s.Tail = keepEnding(head.String(), s.Head), keepEnding(tail.String(), s.Tail)
	s.Highlights = []protocol.Highlight{}
	for i, h := range v.orig.Highlights {
		if kept[i] == 0 {
			s.HighlightsOmitted++
			continue
		}
		h.ToLine, h.Text = h.FromLine+kept[i]-1, texts[i].String()
		s.Highlights = append(s.Highlights, h)
	}
	s.ShownLines -= k
	s.ShownBytes -= lost
	return s
}

// keepEnding is part (lines rebuilt, each ended with "\n") with the last
// line of orig's ending when orig's last line had none and is kept.
func keepEnding(part, orig string) string {
	if part != "" && !strings.HasSuffix(orig, "\n") && strings.HasSuffix(orig, strings.TrimSuffix(part, "\n")) {
		return strings.TrimSuffix(part, "\n")
	}
	return part
}

// splitText splits shown text into its lines, without their "\n".
func splitText(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// fitGrep gives out (grep's result, of a call with facts' limits) its
// notice, after cutting its last matches, as a smaller limit would, until
// its rendering (notice.GrepText) is at most budget bytes (at least one
// match is kept); 0 is none. The files' counts stay those the search saw.
func fitGrep(out *protocol.GrepResult, facts notice.GrepFacts, budget int) {
	facts.Result = out
	out.Notice = optional(notice.Grep(facts))
	shown := 0
	for _, f := range out.Files {
		shown += len(f.Matches)
	}
	if budget <= 0 || shown <= 1 || len(notice.GrepText(out)) <= budget {
		return
	}
	whole := *out
	cut := func(n int) protocol.GrepResult {
		r := whole
		r.Files = nil
		for _, f := range whole.Files {
			if n <= 0 {
				break
			}
			f.Matches = f.Matches[:min(n, len(f.Matches))]
			n -= len(f.Matches)
			r.Files = append(r.Files, f)
		}
		r.LimitReached = ptr(protocol.GrepByMatches)
		return r
	}
	fits := func(n int) bool {
		r := cut(n)
		facts.Result, facts.Limit = &r, n
		r.Notice = optional(notice.Grep(facts))
		return len(notice.GrepText(&r)) <= budget
	}
	n := max(sort.Search(shown, func(k int) bool { return k > 0 && !fits(k) })-1, 1)
	*out = cut(n)
	facts.Result, facts.Limit = out, n
	out.Notice = optional(notice.Grep(facts))
}
