package mcp

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
)

// fitStreams renders head, the streams and the notice (as streamsText does)
// in at most budget bytes when it can: a stream whose middle was omitted,
// and so is kept whole in its spool, gives up lines until the text fits,
// the longest stream first. Lines go in this order: head and tail lines
// beyond the first and last 5 (those next to the omitted middle first),
// then highlight groups (the middle ones first, the first group last), then
// the rest of head and tail. Each run of lines given up is shown as the
// omitted lines it is, with the page call that reads it.
func fitStreams(head string, stdout, stderr *protocol.Stream, n *string, budget int) string {
	text := streamsText(head, stdout, stderr, n)
	if len(text) <= budget {
		return text
	}
	views := []*streamView{newStreamView("stdout", stdout), newStreamView("stderr", stderr)}
	var parts []string
	for _, v := range views {
		parts = append(parts, v.render(0))
	}
	over := len(text) + len(notice.FittedResult(budget)) + 1 - budget
	order := []int{0, 1}
	sort.SliceStable(order, func(a, b int) bool { return len(parts[order[a]]) > len(parts[order[b]]) })
	for _, i := range order {
		v := views[i]
		if over <= 0 || !v.trimmable() {
			continue
		}
		k := v.fit(len(parts[i]) - over)
		fitted := v.render(k)
		over -= len(parts[i]) - len(fitted)
		parts[i] = fitted
	}
	var b strings.Builder
	b.WriteString(head)
	b.WriteByte('\n')
	for _, p := range parts {
		b.WriteString(p)
	}
	if n != nil {
		b.WriteString(*n + "\n")
	}
	b.WriteString(notice.FittedResult(budget))
	return b.String()
}

// srcLine is a shown line of a stream with its line number; numbered lines
// (a highlight's) are rendered with it.
type srcLine struct {
	n        int64
	text     string
	numbered bool
	group    int // a highlight's lines: its index in the stream's, plus 1
}

// streamView is a stream as the lines it shows, numbered, and the order in
// which fitting gives them up.
type streamView struct {
	name    string
	s       *protocol.Stream
	spool   string
	lines   []srcLine
	first   int64 // the stream's first line number (a process read's starts past 1)
	removal []int // indices into lines, in the order they go
}

func newStreamView(name string, s *protocol.Stream) *streamView {
	v := &streamView{name: name, s: s}
	if s.Spool != nil {
		v.spool = s.Spool.ID
	}
	if !v.trimmable() {
		return v
	}
	head, tail := splitText(s.Head), splitText(s.Tail)
	v.first = s.Omitted.FromLine - int64(len(head))
	var hi, ti []int
	var groups [][]int
	for i, t := range head {
		v.lines = append(v.lines, srcLine{n: v.first + int64(i), text: t})
		hi = append(hi, len(v.lines)-1)
	}
	for k, h := range s.Highlights {
		var g []int
		for i, t := range splitText(h.Text) {
			v.lines = append(v.lines, srcLine{n: h.FromLine + int64(i), text: t, numbered: true, group: k + 1})
			g = append(g, len(v.lines)-1)
		}
		groups = append(groups, g)
	}
	for i, t := range tail {
		v.lines = append(v.lines, srcLine{n: s.Omitted.ToLine + 1 + int64(i), text: t})
		ti = append(ti, len(v.lines)-1)
	}
	v.removal = removalOrder(hi, ti, groups)
	return v
}

// keepEnds is how many of the first head and last tail lines fitting gives
// up only after every highlight.
const keepEnds = 5

// removalOrder is the order in which fitting gives lines up: head lines
// from the end and tail lines from the start, alternately, down to
// keepEnds of each; then highlight groups, each from its end, the middle
// groups first and the first group last; then the rest of head and tail.
// Each line given up touches lines already given up or the omitted middle,
// so that the rendering shrinks with each one.
func removalOrder(head, tail []int, groups [][]int) []int {
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
	if m := len(groups); m > 0 {
		mid := make([]int, 0, m)
		for i := 1; i < m-1; i++ {
			mid = append(mid, i)
		}
		c := float64(m-1) / 2
		sort.SliceStable(mid, func(a, b int) bool { return abs(float64(mid[a])-c) < abs(float64(mid[b])-c) })
		if m > 1 {
			mid = append(mid, m-1)
		}
		for _, g := range append(mid, 0) {
			out = append(out, reversed(groups[g])...)
		}
	}
	ends(head[:kh], tail[len(tail)-kt:])
	return out
}

// trimmable reports whether the stream's middle was omitted, so that its
// spool keeps every line fitting could give up.
func (v *streamView) trimmable() bool {
	return v.s.Omitted != nil && v.spool != "" && !v.s.Binary && v.s.TotalBytes > 0
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
// up; k 0 is the stream as the daemon previewed it.
func (v *streamView) render(k int) string {
	var b strings.Builder
	if v.s.TotalBytes == 0 {
		return ""
	}
	if k == 0 || !v.trimmable() {
		writeStream(&b, v.name, v.s)
		return b.String()
	}
	gone := make([]bool, len(v.lines))
	for _, i := range v.removal[:k] {
		gone[i] = true
	}
	b.WriteString(notice.StreamHeader(v.name) + "\n")
	next, group := v.first, 0
	for i, l := range v.lines {
		if gone[i] {
			continue
		}
		if l.n > next {
			b.WriteString(notice.OmittedGap(next, l.n-1, v.spool) + "\n")
		}
		if l.group > 0 && l.group != group {
			// Why the group is shown, before the first of its lines kept.
			if why := notice.HighlightReason(v.s.Highlights[l.group-1]); why != "" {
				b.WriteString(why + "\n")
			}
		}
		group = l.group
		if l.numbered {
			fmt.Fprintf(&b, "%6d\t%s\n", l.n, l.text)
		} else {
			b.WriteString(l.text + "\n")
		}
		next = l.n + 1
	}
	if last := v.lastLine(); next <= last {
		b.WriteString(notice.OmittedGap(next, last, v.spool) + "\n")
	}
	writeKinds(&b, v.s.Kinds) // a few short lines, bounded: kept whole
	return b.String()
}

// lastLine is the number of the stream's last line: the tail's last, or the
// omitted middle's end when there is no tail.
func (v *streamView) lastLine() int64 {
	return v.s.Omitted.ToLine + int64(len(splitText(v.s.Tail)))
}

// splitText splits shown text into its lines, without their "\n".
func splitText(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

func reversed(xs []int) []int {
	out := slices.Clone(xs)
	slices.Reverse(out)
	return out
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
