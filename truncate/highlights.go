package truncate

import (
	"slices"
	"strings"
)

// Highlight is a group of whole lines from the middle of an output that a
// preview should show: an error with its context, say.
type Highlight struct {
	FromLine, ToLine int64    // raw line numbers, 1-based and inclusive
	Lines            []string // lines FromLine..ToLine, raw or cleaned, with their endings
	Hit              int64    // the line that made it a group: kept when it must be cut
	// Spare: a group the detector kept beyond its best (highlight's
	// Group.Spare): shown only whole, after every other, with what they
	// left of the budget.
	Spare bool
	// Reason says why it is there (highlight's Group.Reason); Weight
	// orders reasons: groups merged into one shown keep the reason of
	// the heaviest.
	Reason string
	Weight int
}

// ShownHighlight is a group as a preview shows it: whole lines, cleaned and
// clipped as Head and Tail are.
type ShownHighlight struct {
	FromLine, ToLine int64
	Text             string
	Reason           string
	// Rank is the group's place in the ranked order Preview was given (0
	// first); a group merged of several keeps the best. A rendering that
	// must give groups up gives up the last ranked first.
	Rank int
}

// Preview renders the preview of o: as the package's Preview does, using
// o.Known where the kept bytes cut a line, and with groups of lines from
// the middle.
// ranked holds the groups in the order they earn a place (highlight.Rank:
// the first error, the last, distinct ones, repeats, then warnings). Groups
// that head or tail show whole need none. The others come before head and
// tail, within MaxLines and MaxBytes (see choose): first the hit line of
// each, in rank order while they fit (the first one cut to the budget when
// it alone is too long); then a head and a tail of two lines each when
// what is left allows; then whole groups in rank order while they fit, and
// the others' context around their hits, a line each in turn; head and
// tail share the rest as Preview shares the whole, but each keeps at most
// FoundEndLines and FoundEndBytes once a group was found (unless not one
// fits: then they are as without groups).
// Highlights come out in output order, trimmed of the lines head and tail
// show, touching ones merged.
func (o Output) Preview(ranked []Highlight, opt PreviewOptions) PreviewResult {
	if o.TotalBytes <= 0 {
		return PreviewResult{Highlights: []ShownHighlight{}}
	}
	maxLines, maxBytes := max(opt.MaxLines, 0), max(opt.MaxBytes, 0)
	w := walker{clean: opt.Clean, maxChars: opt.MaxLineChars, budget: maxBytes, fit: true}
	hd, tl := w.headTail(o, maxLines, maxBytes, opt.Mode)
	base := w.result(hd, tl, o.TotalBytes, o.TotalLines)
	base.Highlights = []ShownHighlight{}
	if base.Omitted == nil || maxLines == 0 || maxBytes == 0 || len(ranked) == 0 {
		return base
	}
	// Something was found: head and tail shrink to FoundEndLines and
	// FoundEndBytes each, the budget goes to the groups.
	w.capEnds = true
	hd, tl = w.headTail(o, maxLines, maxBytes, opt.Mode)
	// Candidates are the groups head and tail do not show whole; as head
	// and tail shrink for them, more groups may become candidates.
	in := make([]bool, len(ranked))
	var taken []group
	var left []Highlight
	for {
		added := false
		for i, g := range ranked {
			if !in[i] && len(g.Lines) > 0 && !shows(hd, tl, o.TotalLines, g) {
				in[i], added = true, true
			}
		}
		if !added {
			break
		}
		var cands []Highlight
		for i, g := range ranked {
			if in[i] {
				cands = append(cands, g)
			}
		}
		taken, left = w.choose(o, cands, maxLines, maxBytes, opt.Mode)
		hd, tl = w.settle(o, taken, maxLines, maxBytes, opt.Mode)
	}
	if taken == nil && left != nil {
		// Not one group fits: today's head and tail, the groups counted.
		w.capEnds = false
		hd, tl = w.headTail(o, maxLines, maxBytes, opt.Mode)
	}
	r := w.result(hd, tl, o.TotalBytes, o.TotalLines)
	r.Highlights = []ShownHighlight{}
	for _, sg := range merge(taken, int64(len(hd.lines)), o.TotalLines-int64(len(tl.lines))+1) {
		r.Highlights = append(r.Highlights, ShownHighlight{FromLine: sg.from, ToLine: sg.from + int64(len(sg.lines)) - 1, Text: strings.Join(sg.lines, ""), Reason: sg.reason, Rank: sg.rank})
		r.ShownLines += len(sg.lines)
		r.ShownBytes += sg.shown
		r.ClippedLines += sg.clipped
	}
	// A group left out whose hit head or tail show after all is shown.
	for _, g := range left {
		if g.Hit > int64(len(hd.lines)) && g.Hit < o.TotalLines-int64(len(tl.lines))+1 {
			r.HighlightsOmitted++
		}
	}
	return r
}

// shows reports whether head hd or tail tl shows all of g's lines.
func shows(hd, tl part, totalLines int64, g Highlight) bool {
	return g.ToLine <= int64(len(hd.lines)) || g.FromLine > totalLines-int64(len(tl.lines))
}

// settle lays out head and tail beside the taken groups: they get what
// the groups leave, and then again what the groups' lines that they do not
// show leave, while that changes and the whole stays within the budget
// (head and tail need not grow with it: a larger head leaves the tail
// less).
func (w walker) settle(o Output, taken []group, maxLines, maxBytes int, mode string) (hd, tl part) {
	lines, size := usage(taken)
	hd, tl = w.headTail(o, maxLines-lines, maxBytes-size, mode)
	for range 4 {
		lines, size = usage(merge(taken, int64(len(hd.lines)), o.TotalLines-int64(len(tl.lines))+1))
		h2, t2 := w.headTail(o, maxLines-lines, maxBytes-size, mode)
		if len(h2.lines) == len(hd.lines) && len(t2.lines) == len(tl.lines) && h2.shown == hd.shown && t2.shown == tl.shown {
			break
		}
		lines, size = usage(merge(taken, int64(len(h2.lines)), o.TotalLines-int64(len(t2.lines))+1))
		if lines+len(h2.lines)+len(t2.lines) > maxLines || size+h2.shown+t2.shown > maxBytes {
			break
		}
		hd, tl = h2, t2
	}
	return hd, tl
}

// usage counts the lines and bytes groups show.
func usage(gs []group) (lines, size int) {
	for _, g := range gs {
		lines, size = lines+len(g.lines), size+g.shown
	}
	return lines, size
}

// pick is a group being chosen: lines lo..hi-1 of g are taken.
type pick struct {
	g      group
	lo, hi int
	full   bool // its next line did not fit
}

// next is the index of the line p takes next: the lines after its hit to
// the group's end (a traceback, a compiler error's source and caret),
// then those before it; -1 when it has them all.
func (p *pick) next() int {
	switch {
	case p.full:
		return -1
	case p.hi < len(p.g.lines):
		return p.hi
	case p.lo > 0:
		return p.lo - 1
	}
	return -1
}

// choose takes groups from cands (in rank order) within maxLines and
// maxBytes: the hit line of each while it fits, the rest left out; then, keeping back a head and a tail of two lines each, the
// groups that fit whole, in rank order (a traceback to its exception
// line), and the lines around the others' hits, one per group in turn,
// while they fit; then the spare groups (Highlight.Spare) that fit whole.
func (w walker) choose(o Output, cands []Highlight, maxLines, maxBytes int, mode string) (taken []group, left []Highlight) {
	var picks []*pick
	var spare []Highlight
	lines, size := 0, 0
	for _, h := range cands {
		if h.Spare {
			spare = append(spare, h)
			continue
		}
		g := w.group(h)
		i := int(min(max(h.Hit-h.FromLine, 0), int64(len(g.lines)-1)))
		l := g.lines[i]
		if lines+1 > maxLines || size+len(l) > maxBytes {
			f, ok := fitLine(l, maxBytes-size)
			if len(picks) > 0 || lines+1 > maxLines || !ok {
				left = append(left, h)
				continue
			}
			g.shown += len(f) - len(l)
			g.lines[i], g.clip[i], g.clipped = f, true, g.clipped+1
			l = f
		}
		picks = append(picks, &pick{g: g, lo: i, hi: i + 1})
		lines, size = lines+1, size+len(l)
	}
	reserve := 4
	if mode == ModeHead || mode == ModeTail {
		reserve = 2
	}
	hd, tl := w.headTail(o, min(reserve, maxLines-lines), maxBytes-size, mode)
	lines, size = lines+len(hd.lines)+len(tl.lines), size+hd.shown+tl.shown
	// Whole groups first, in rank order, while they fit; then the others
	// grow around their hits a line each in turn.
	for _, p := range picks {
		more, moreSize := len(p.g.lines)-1, p.g.shown-len(p.g.lines[p.lo])
		if lines+more <= maxLines && size+moreSize <= maxBytes {
			lines, size, p.lo, p.hi = lines+more, size+moreSize, 0, len(p.g.lines)
		}
	}
	for grew := true; grew; {
		grew = false
		for _, p := range picks {
			j := p.next()
			if j < 0 {
				continue
			}
			if l := p.g.lines[j]; lines+1 <= maxLines && size+len(l) <= maxBytes {
				lines, size, grew = lines+1, size+len(l), true
				if j == p.hi {
					p.hi++
				} else {
					p.lo--
				}
			} else {
				p.full = true
			}
		}
	}
	// Spare groups last, whole, in rank order, in what is left.
	for _, h := range spare {
		if g := w.group(h); len(g.lines) > 0 && lines+len(g.lines) <= maxLines && size+g.shown <= maxBytes {
			picks = append(picks, &pick{g: g, hi: len(g.lines)})
			lines, size = lines+len(g.lines), size+g.shown
		} else {
			left = append(left, h)
		}
	}
	taken = make([]group, 0, len(picks))
	for i, p := range picks {
		var sg group
		sg.from = p.g.from + int64(p.lo)
		sg.reason, sg.weight, sg.rank = p.g.reason, p.g.weight, i // picks are in rank order
		for j := p.lo; j < p.hi; j++ {
			sg.add(p.g.lines[j], p.g.clip[j])
		}
		taken = append(taken, sg)
	}
	return taken, left
}

// group is a highlight's lines as shown, from line from on.
type group struct {
	from    int64
	reason  string
	weight  int
	rank    int // its place among the groups taken, in rank order
	lines   []string
	shown   int
	clipped int
	clip    []bool // which lines are clipped
}

// group renders g's lines. A line kept without its ending (cut short where
// it was kept) gets one, and counts as clipped.
func (w walker) group(g Highlight) group {
	sg := group{from: g.FromLine, reason: g.Reason, weight: g.Weight}
	for _, l := range g.Lines {
		s, clipped := ShowLine([]byte(l), w.clean, w.maxChars)
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
			clipped = true
		}
		sg.add(s, clipped)
	}
	return sg
}

func (g *group) add(l string, clipped bool) {
	g.lines = append(g.lines, l)
	g.clip = append(g.clip, clipped)
	g.shown += len(l)
	if clipped {
		g.clipped++
	}
}

// merge puts groups in output order, drops the lines at or before headEnd
// and at or after tailStart (head and tail show them), and joins groups
// that overlap or touch.
func merge(gs []group, headEnd, tailStart int64) []group {
	gs = slices.Clone(gs)
	slices.SortFunc(gs, func(a, b group) int { return int(a.from - b.from) })
	var out []group
	for _, g := range gs {
		for len(g.lines) > 0 && g.from <= headEnd {
			g = g.drop(1)
		}
		for len(g.lines) > 0 && g.from+int64(len(g.lines))-1 >= tailStart {
			g.lines, g.clip = g.lines[:len(g.lines)-1], g.clip[:len(g.clip)-1]
		}
		if len(g.lines) == 0 {
			continue
		}
		if n := len(out); n > 0 {
			last := &out[n-1]
			if end := last.from + int64(len(last.lines)); g.from <= end {
				g = g.drop(int(end - g.from))
				if g.weight > last.weight {
					last.reason, last.weight = g.reason, g.weight
				}
				last.rank = min(last.rank, g.rank)
				last.lines = append(slices.Clip(last.lines), g.lines...)
				last.clip = append(slices.Clip(last.clip), g.clip...)
				continue
			}
		}
		out = append(out, g)
	}
	for i := range out {
		out[i].clipped, out[i].shown = 0, 0
		for j, c := range out[i].clip {
			out[i].shown += len(out[i].lines[j])
			if c {
				out[i].clipped++
			}
		}
	}
	return out
}

// drop removes the first n lines of g.
func (g group) drop(n int) group {
	n = min(n, len(g.lines))
	g.from += int64(n)
	g.lines, g.clip = g.lines[n:], g.clip[n:]
	return g
}
