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
}

// ShownHighlight is a group as a preview shows it: whole lines, cleaned and
// clipped as Head and Tail are.
type ShownHighlight struct {
	FromLine, ToLine int64
	Text             string
}

// Preview renders the preview of o: as the package's Preview does, using
// o.Known where the kept bytes cut a line, and with groups of lines from
// the middle.
// ranked holds the groups in the order they earn a place (highlight.Rank:
// the first error first). Groups that the head or tail show anyway need
// none. The others take up to half of MaxLines and MaxBytes, the first of
// them cut around its Hit line when it alone does not fit; head and tail
// share what is left as Preview shares the whole. Highlights come out in
// output order, trimmed of the lines head and tail show, touching ones
// merged.
func (o Output) Preview(ranked []Highlight, opt PreviewOptions) PreviewResult {
	if o.TotalBytes <= 0 {
		return PreviewResult{Highlights: []ShownHighlight{}}
	}
	w := walker{clean: opt.Clean, maxChars: opt.MaxLineChars}
	maxLines, maxBytes := max(opt.MaxLines, 0), max(opt.MaxBytes, 0)
	hd, tl := w.headTail(o, maxLines, maxBytes, opt.Mode)
	base := w.result(hd, tl, o.TotalBytes, o.TotalLines)
	base.Highlights = []ShownHighlight{}
	if base.Omitted == nil || len(ranked) == 0 || maxLines == 0 || maxBytes == 0 {
		return base
	}
	var mid []Highlight
	for _, g := range ranked {
		if g.ToLine >= base.Omitted.FromLine && g.FromLine <= base.Omitted.ToLine && len(g.Lines) > 0 {
			mid = append(mid, g)
		}
	}
	if len(mid) == 0 {
		return base
	}
	var taken []group
	var used part
	omitted := 0
	for i, g := range mid {
		sg := w.group(g)
		switch {
		case len(used.lines)+len(sg.lines) <= maxLines/2 && used.shown+sg.shown <= maxBytes/2:
		case i == 0:
			sg = w.cut(g, sg, maxLines/2, maxBytes/2, maxBytes)
		default:
			omitted++
			continue
		}
		if len(sg.lines) == 0 {
			omitted++
			continue
		}
		taken = append(taken, sg)
		for _, l := range sg.lines {
			used.add(l, 0, false)
		}
		used.clipped += sg.clipped
	}
	hd, tl = w.headTail(o, maxLines-len(used.lines), maxBytes-used.shown, opt.Mode)
	r := w.result(hd, tl, o.TotalBytes, o.TotalLines)
	headEnd, tailStart := int64(len(hd.lines)), o.TotalLines-int64(len(tl.lines))+1
	for _, sg := range merge(taken, headEnd, tailStart) {
		r.Highlights = append(r.Highlights, ShownHighlight{FromLine: sg.from, ToLine: sg.from + int64(len(sg.lines)) - 1, Text: strings.Join(sg.lines, "")})
		r.ShownLines += len(sg.lines)
		for _, l := range sg.lines {
			r.ShownBytes += len(l)
		}
		r.ClippedLines += sg.clipped
	}
	if r.Highlights == nil {
		r.Highlights = []ShownHighlight{}
	}
	r.HighlightsOmitted = omitted
	return r
}

// group is a highlight's lines as shown, from line from on.
type group struct {
	from    int64
	lines   []string
	shown   int
	clipped int
	clip    []bool // which lines are clipped
}

// group renders g's lines. A line kept without its ending (cut short where
// it was kept) gets one, and counts as clipped.
func (w walker) group(g Highlight) group {
	sg := group{from: g.FromLine}
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

// cut shrinks the first group to fit maxLines and maxBytes: from its hit
// on, as many lines as fit. The hit line is kept whatever its size, up to
// hardBytes (cut at a character boundary past that).
func (w walker) cut(g Highlight, sg group, maxLines, maxBytes, hardBytes int) group {
	i := int(min(max(g.Hit-g.FromLine, 0), int64(len(sg.lines)-1)))
	out := group{from: g.FromLine + int64(i)}
	for j := i; j < len(sg.lines); j++ {
		l, clipped := sg.lines[j], sg.clip[j]
		if j > i && (len(out.lines)+1 > maxLines || out.shown+len(l) > maxBytes) {
			break
		}
		if j == i && len(l) > hardBytes {
			l = l[:CutBack([]byte(l), hardBytes-1)] + "\n"
			if len(l) > hardBytes || len(l) == 1 {
				return group{} // no room for a character of it
			}
			clipped = true
		}
		out.add(l, clipped)
	}
	return out
}

// merge puts groups in output order, drops the lines at or before headEnd
// and at or after tailStart (head and tail show them), and joins groups
// that overlap or touch.
func merge(gs []group, headEnd, tailStart int64) []group {
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
				last.lines = append(last.lines, g.lines...)
				last.clip = append(last.clip, g.clip...)
				continue
			}
		}
		out = append(out, g)
	}
	for i := range out {
		out[i].clipped = 0
		for _, c := range out[i].clip {
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
