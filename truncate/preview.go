package truncate

import (
	"bytes"
	"strings"
)

// The preview modes: which end of the output gets the budget.
const (
	// ModeHeadTail splits the budget: the head gets ceil(MaxLines/2) lines
	// and MaxBytes/2 bytes, the tail what the head left.
	ModeHeadTail = "headTail"
	// ModeHead gives the whole budget to the head.
	ModeHead = "head"
	// ModeTail gives the whole budget to the tail.
	ModeTail = "tail"
)

// PreviewOptions are the limits of a preview. The budget counts shown lines
// and bytes: after clean-up, clipping and U+FFFD replacement.
type PreviewOptions struct {
	MaxLines     int    // lines shown in head + tail; <= 0 shows none
	MaxBytes     int    // bytes shown in head + tail; <= 0 shows none
	MaxLineChars int    // lines are clipped at this many characters; 0 turns clipping off
	Mode         string // ModeHeadTail (also for ""), ModeHead or ModeTail
	Clean        bool   // CleanLine each line: drop ANSI escapes, keep the last \r redraw
}

// Omitted names the raw lines, 1-based and inclusive, that a preview leaves
// out between its head and its tail, and how many raw bytes they hold.
type Omitted struct {
	FromLine int64
	ToLine   int64
	Bytes    int64
}

// PreviewResult is a preview of some output: whole lines of its beginning
// (Head) and of its end (Tail). When everything fits, it is all in Head and
// Omitted is nil.
type PreviewResult struct {
	Head         string
	Tail         string
	ShownLines   int // lines in Head + Tail
	ShownBytes   int // bytes in Head + Tail
	ClippedLines int // lines of Head + Tail cut at MaxLineChars
	Omitted      *Omitted
	Truncated    bool // true when anything is omitted
	// Highlights are groups of lines from the omitted middle that
	// Output.Preview shows, in output order; counted in ShownLines,
	// ShownBytes and ClippedLines. Omitted still names the lines between
	// Head and Tail.
	Highlights []ShownHighlight
	// HighlightsOmitted counts the groups of the middle left out for the
	// budget.
	HighlightsOmitted int
	// Clip is the first line of Head or Tail shown clipped; nil when none.
	Clip *Clip
}

// Preview renders the head/tail preview of an output of totalBytes bytes and
// totalLines lines (a last line without '\n' counts) of which the caller kept
// prefix, the first bytes, and suffix, the last bytes. When the two together
// hold totalBytes or more, they are taken to cover the whole output (they may
// overlap); otherwise the bytes between them are unknown and omitted.
//
// Head and Tail hold whole lines with their endings. A line that does not fit
// the budget ends the head (or, walking back, the tail). A line longer than
// the whole budget, even clipped at MaxLineChars, is shown cut to the bytes
// left where the walk meets it (the tail's walk first, with headTail), and
// counts as clipped: the budget holds and the line is not dropped. With
// MaxLineChars 0 lines are only shown whole, so such a line is omitted. The tail never
// uses the suffix's first line, which may have begun before the suffix. Lines
// are numbered in the raw output: cleaning only acts inside lines.
func Preview(prefix, suffix []byte, totalBytes, totalLines int64, opt PreviewOptions) PreviewResult {
	r := Output{Prefix: prefix, Suffix: suffix, TotalBytes: totalBytes, TotalLines: totalLines}.Preview(nil, opt)
	if len(r.Highlights) == 0 {
		r.Highlights = nil
	}
	return r
}

// Output is what a capture kept of an output stream: its first bytes
// (Prefix) and its last (Suffix), its totals, and the long lines that it
// could not keep whole but saw pass (LineStream's First and Last).
type Output struct {
	Prefix, Suffix         []byte
	TotalBytes, TotalLines int64
	Known                  []KnownLine
}

// headTail chooses the head and tail lines of a preview within maxLines and
// maxBytes (see Preview).
func (w walker) headTail(o Output, maxLines, maxBytes int, mode string) (hd, tl part) {
	prefix, suffix, totalBytes := o.Prefix, o.Suffix, o.TotalBytes
	var whole []byte
	switch {
	case int64(len(prefix)) >= totalBytes:
		whole = prefix[:totalBytes]
	case int64(len(prefix))+int64(len(suffix)) >= totalBytes:
		whole = make([]byte, 0, totalBytes)
		whole = append(whole, prefix...)
		whole = append(whole, suffix[int64(len(prefix))+int64(len(suffix))-totalBytes:]...)
	}

	var headSrc, tailSrc []byte
	if whole != nil {
		// Everything that fits is shown whole, in Head.
		all := w.head(whole, w.endLines(maxLines), w.endBytes(maxBytes))
		if all.raw == len(whole) || mode == ModeHead {
			return all, part{}
		}
		headSrc, tailSrc = whole, whole
	} else {
		// Only complete lines can be shown: the head ends at the prefix's
		// last '\n'; the suffix's first line may have begun before it.
		headSrc = prefix[:bytes.LastIndexByte(prefix, '\n')+1]
		if i := bytes.IndexByte(suffix, '\n'); i >= 0 {
			tailSrc = suffix[i+1:]
		}
	}

	switch mode {
	case ModeHead:
		return w.headOf(o, whole, headSrc, w.endLines(maxLines), w.endBytes(maxBytes)), part{}
	case ModeTail:
		return part{}, w.tailOf(o, part{}, whole, tailSrc, w.endLines(maxLines), w.endBytes(maxBytes))
	}
	// The head leaves a line too long for the budget to the tail, which
	// has more room for it when it reaches it; when it does not, the head
	// shows it clipped after all.
	nofit := w
	nofit.fit = false
	hLines, hBytes := w.endLines((maxLines+1)/2), w.endBytes(maxBytes/2)
	hd = nofit.headOf(o, whole, headSrc, hLines, hBytes)
	tl = w.tailOf(o, hd, whole, tailSrc, w.endLines(maxLines-len(hd.lines)), w.endBytes(maxBytes-hd.shown))
	if hd.stuck && w.fit && int64(hd.raw+tl.raw) < totalBytes {
		hd = w.headOf(o, whole, headSrc, hLines, hBytes)
		tl = w.tailOf(o, hd, whole, tailSrc, w.endLines(maxLines-len(hd.lines)), w.endBytes(maxBytes-hd.shown))
	}
	return hd, tl
}

// FoundEndLines and FoundEndBytes bound each of head and tail of a preview
// that shows highlights: once what matters is found, the ends of the
// output are mostly noise, and the budget is a cap, not a target.
const (
	FoundEndLines = 20
	FoundEndBytes = 2048
)

// endLines is the lines a head or a tail may take of n.
func (w walker) endLines(n int) int {
	if w.capEnds {
		return min(n, FoundEndLines)
	}
	return n
}

// endBytes is the bytes a head or a tail may take of n.
func (w walker) endBytes(n int) int {
	if w.capEnds {
		return min(n, FoundEndBytes)
	}
	return n
}

// headOf is the head of a whole output or, when only its ends were kept,
// of the prefix's complete lines and the long line known to follow them.
func (w walker) headOf(o Output, whole, headSrc []byte, maxLines, maxBytes int) part {
	if whole != nil {
		return w.head(headSrc, maxLines, maxBytes)
	}
	return w.headKnown(o, headSrc, maxLines, maxBytes)
}

// tailOf is the tail after hd: of a whole output, stopping where hd ends;
// else of the suffix's complete lines and the long line known to end where
// they begin.
func (w walker) tailOf(o Output, hd part, whole, tailSrc []byte, maxLines, maxBytes int) part {
	if whole != nil {
		return w.tail(tailSrc, 0, hd.raw, maxLines, maxBytes)
	}
	tl := w.tail(tailSrc, o.TotalBytes-int64(len(tailSrc)), 0, maxLines, maxBytes)
	return w.tailKnown(o, hd, tl, tailSrc, maxLines, maxBytes)
}

// headKnown is the head of the complete lines of headSrc, and then, when
// they all fit, the long line that follows them if the stream was seen to
// pass it (a first line longer than the prefix, say).
func (w walker) headKnown(o Output, headSrc []byte, maxLines, maxBytes int) part {
	hd := w.head(headSrc, maxLines, maxBytes)
	if hd.raw < len(headSrc) || len(hd.lines) >= maxLines {
		return hd
	}
	for _, k := range o.Known {
		if k.Line == int64(len(hd.lines))+1 && k.Start == int64(hd.raw) {
			if s, clipped, ok := w.known(k, maxBytes-hd.shown); ok {
				if clipped && hd.clip == nil {
					hd.clip = &clipAt{idx: len(hd.lines), end: k.Start + knownEnd(s)}
				}
				hd.add(s, int(k.End-k.Start), clipped)
			}
			break
		}
	}
	return hd
}

// tailKnown puts before the tail the long line that ends where the
// suffix's first complete line begins, when the stream was seen to pass it
// and the tail took all the suffix's complete lines: a line redrawn with
// \r is known by its final state.
func (w walker) tailKnown(o Output, hd, tl part, tailSrc []byte, maxLines, maxBytes int) part {
	if tl.raw < len(tailSrc) || len(tl.lines) >= maxLines {
		return tl
	}
	end := o.TotalBytes - int64(len(tailSrc))
	for _, k := range o.Known {
		if k.End == end && k.Line > int64(len(hd.lines)) && k.Start >= int64(hd.raw) {
			if s, clipped, ok := w.known(k, maxBytes-tl.shown); ok {
				tl.add(s, int(k.End-k.Start), clipped)
				// tail keeps its lines in output order: k comes first.
				copy(tl.lines[1:], tl.lines[:len(tl.lines)-1])
				tl.lines[0] = s
				switch {
				case clipped:
					tl.clip = &clipAt{idx: 0, end: k.Start + knownEnd(s)}
				case tl.clip != nil:
					tl.clip.idx++
				}
			}
			break
		}
	}
	return tl
}

// knownEnd is how many raw bytes of a known line its shown form s covers,
// taken as the bytes of s's body (clean-up may have shortened it).
func knownEnd(s string) int64 {
	body, _ := SplitEnding([]byte(s))
	return int64(len(body))
}

// known renders a known line within maxBytes, cut shorter when it must be;
// not at all when lines are not clipped (maxChars 0) and it would be.
func (w walker) known(k KnownLine, maxBytes int) (string, bool, bool) {
	s, clipped := ShowLine(k.Text, w.clean, w.maxChars)
	if w.maxChars <= 0 && (k.Cut || len(s) > maxBytes) {
		return "", false, false
	}
	f, ok := fitLine(s, maxBytes)
	return f, clipped || k.Cut || f != s, ok
}

// fitLine cuts the shown line s to at most maxBytes bytes, at a character
// boundary, keeping its ending; ok is false when not a character fits.
func fitLine(s string, maxBytes int) (string, bool) {
	if len(s) <= maxBytes {
		return s, s != ""
	}
	body, ending := SplitEnding([]byte(s))
	n := maxBytes - len(ending)
	if n < 1 {
		return "", false
	}
	if n = CutBack(body, n); n > maxBytes-len(ending) {
		return "", false
	}
	return string(body[:n]) + string(ending), true
}

// long reports whether the shown line s is too long for the whole budget:
// such a line is shown clipped rather than left out, unless clipping is
// off (maxChars 0), when lines are only shown whole.
func (w walker) long(s string) bool {
	return w.maxChars > 0 && len(s) > w.budget
}

// fitted renders the line src[i:j] clipped to the bytes left, for a line
// too long for the budget, with the raw offset (src at srcAbs) where its
// shown part ends; ok is false when not a character fits.
func (w walker) fitted(src []byte, srcAbs int64, i, j int, s string, left int) (string, *clipAt, bool) {
	f, ok := fitLine(s, left)
	if !ok || !w.fit {
		return "", nil, false
	}
	body, _ := SplitEnding([]byte(f))
	end := srcAbs + int64(i) + min(clipEnd(src[i:j], w.maxChars), int64(len(body)))
	return f, &clipAt{end: end}, true
}

// part is the head or the tail of a preview.
type part struct {
	lines   []string // shown lines, in output order
	raw     int      // raw bytes of those lines
	shown   int      // bytes of the shown lines
	clipped int      // lines clipped at maxChars
	clip    *clipAt  // the first clipped line, if any
	stuck   bool     // it ended at a line too long for the whole budget
}

// clipAt is a clipped line of a part: its index, and the raw offset in the
// output where its shown part ends.
type clipAt struct {
	idx int
	end int64
}

// Clip names the first line a preview shows clipped (in Head, else in
// Tail) and the raw byte offset where its shown part ends: a page call with
// that startByte reads the line on.
type Clip struct {
	Line      int64
	StartByte int64
}

// clipEnd is how many raw bytes of line a clip at maxChars shows.
func clipEnd(line []byte, maxChars int) int64 {
	body, _ := SplitEnding(line)
	shown, _ := ClipLine(body, maxChars)
	return int64(len(shown))
}

func (p *part) text() string {
	var sb strings.Builder
	sb.Grow(p.shown)
	for _, l := range p.lines {
		sb.WriteString(l)
	}
	return sb.String()
}

// walker renders lines for a preview.
type walker struct {
	clean    bool
	maxChars int
	budget   int  // the preview's MaxBytes: a longer line never fits whole
	fit      bool // show a line longer than budget clipped to the bytes left
	capEnds  bool // highlights were found: head and tail keep FoundEndLines and FoundEndBytes each
}

// head takes the lines of src from its start while they fit in maxLines and
// maxBytes. The last line of src counts even without '\n': callers pass
// either the whole output or complete lines only.
func (w walker) head(src []byte, maxLines, maxBytes int) part {
	var p part
	for i := 0; i < len(src) && len(p.lines) < maxLines; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			j = len(src)
		} else {
			j += i + 1
		}
		s, clipped := ShowLine(src[i:j], w.clean, w.maxChars)
		if p.shown+len(s) > maxBytes {
			if w.long(s) {
				p.stuck = true
				if f, at, ok := w.fitted(src, 0, i, j, s, maxBytes-p.shown); ok {
					if p.clip == nil {
						at.idx, p.clip = len(p.lines), at
					}
					p.add(f, j-i, true)
				}
			}
			break
		}
		if clipped && p.clip == nil {
			p.clip = &clipAt{idx: len(p.lines), end: int64(i) + clipEnd(src[i:j], w.maxChars)}
		}
		p.add(s, j-i, clipped)
		i = j
	}
	return p
}

// tail takes the lines of src from its end, walking back, while they fit in
// maxLines and maxBytes and start at or after lo. src begins at raw offset
// srcAbs of the output.
func (w walker) tail(src []byte, srcAbs int64, lo, maxLines, maxBytes int) part {
	var p part
	for j := len(src); j > lo && len(p.lines) < maxLines; {
		i := bytes.LastIndexByte(src[:j-1], '\n') + 1
		if i < lo {
			break
		}
		s, clipped := ShowLine(src[i:j], w.clean, w.maxChars)
		if p.shown+len(s) > maxBytes {
			if f, at, ok := w.fitted(src, srcAbs, i, j, s, maxBytes-p.shown); ok && w.long(s) {
				at.idx, p.clip = len(p.lines), at
				p.add(f, j-i, true)
			}
			break
		}
		if clipped { // walking back, the last one found is the first
			p.clip = &clipAt{idx: len(p.lines), end: srcAbs + int64(i) + clipEnd(src[i:j], w.maxChars)}
		}
		p.add(s, j-i, clipped)
		j = i
	}
	// Collected walking back: put them in output order.
	for a, b := 0, len(p.lines)-1; a < b; a, b = a+1, b-1 {
		p.lines[a], p.lines[b] = p.lines[b], p.lines[a]
	}
	if p.clip != nil {
		p.clip.idx = len(p.lines) - 1 - p.clip.idx
	}
	return p
}

func (p *part) add(s string, raw int, clipped bool) {
	p.lines = append(p.lines, s)
	p.raw += raw
	p.shown += len(s)
	if clipped {
		p.clipped++
	}
}

func (w walker) result(hd, tl part, totalBytes, totalLines int64) PreviewResult {
	r := PreviewResult{
		Head:         hd.text(),
		Tail:         tl.text(),
		ShownLines:   len(hd.lines) + len(tl.lines),
		ShownBytes:   hd.shown + tl.shown,
		ClippedLines: hd.clipped + tl.clipped,
	}
	switch {
	case hd.clip != nil:
		r.Clip = &Clip{Line: int64(hd.clip.idx) + 1, StartByte: hd.clip.end}
	case tl.clip != nil:
		r.Clip = &Clip{Line: totalLines - int64(len(tl.lines)) + int64(tl.clip.idx) + 1, StartByte: tl.clip.end}
	}
	omitted := totalBytes - int64(hd.raw) - int64(tl.raw)
	if omitted <= 0 && r.Tail != "" {
		// A line clipped to the budget joined head and tail: nothing is
		// omitted, and untruncated output is all in Head.
		r.Head, r.Tail = r.Head+r.Tail, ""
	}
	if omitted > 0 {
		r.Omitted = &Omitted{
			FromLine: int64(len(hd.lines)) + 1,
			ToLine:   totalLines - int64(len(tl.lines)),
			Bytes:    omitted,
		}
		r.Truncated = true
	}
	return r
}
