package outline

import "bytes"

// indent outlines any text by indentation: a block (depth 1) starts at a
// line at the least indentation (column 0) that follows a blank line or an
// indented one; inside it, a line at its first indented level that follows a
// blank line or a deeper line starts a sub-block (depth 2). Lines of closing
// brackets alone ("}", "});", "end") continue the block. A block ends at its
// last non-blank line before the next one.
type indent struct {
	lineSplitter
	c collector

	top, sub      int   // open entries (-2: none)
	topEnd        int64 // last non-blank line of the open block
	subEnd        int64
	childIndent   int  // the first indented level of the open block, 0 unknown
	afterBreak    bool // the last line was blank or indented (a block may start)
	subAfterBreak bool
}

func newIndent(opt Options) *indent {
	x := &indent{c: collector{max: opt.MaxEntries, from: opt.FromLine}, top: -2, sub: -2, afterBreak: true}
	x.fn = x.line
	return x
}

func (x *indent) line(n int64, line []byte) {
	body, w := trimIndent(line)
	if len(bytes.TrimSpace(body)) == 0 {
		x.afterBreak, x.subAfterBreak = true, true
		return
	}
	if w == 0 && !closing(body) {
		if x.afterBreak || x.top == -2 {
			x.closeSub()
			x.closeTop()
			x.top = x.c.add(Entry{Line: n, EndLine: n, Depth: 1, Kind: "block", Name: clip(string(body))})
			x.childIndent = 0
		}
		x.topEnd, x.afterBreak, x.subAfterBreak = n, false, true
		return
	}
	x.topEnd = n
	if w == 0 { // a closing line at column 0 ends the block's inside
		x.closeSub()
		x.afterBreak = true
		return
	}
	x.afterBreak = true
	if x.top == -2 {
		return
	}
	if x.childIndent == 0 {
		x.childIndent = w
	}
	switch {
	case w == x.childIndent && !closing(body):
		if x.subAfterBreak || x.sub == -2 {
			x.closeSub()
			x.sub = x.c.add(Entry{Line: n, EndLine: n, Depth: 2, Kind: "block", Name: clip(string(body))})
		}
		x.subEnd, x.subAfterBreak = n, false
	case w > x.childIndent || closing(body):
		x.subEnd, x.subAfterBreak = n, true
	default: // shallower than the first level: the block's inside is done
		x.closeSub()
	}
}

func (x *indent) closeSub() {
	if x.sub != -2 {
		x.c.end(x.sub, x.subEnd)
		x.sub = -2
	}
}

func (x *indent) closeTop() {
	if x.top != -2 {
		x.c.end(x.top, x.topEnd)
		x.top = -2
	}
}

// closing says whether a line holds only closing brackets and punctuation,
// or a block keyword that ends one.
func closing(b []byte) bool {
	t := bytes.TrimSpace(b)
	switch string(t) {
	case "end", "fi", "done", "esac", "endif", "}", "};", ")", ");", "]", "];":
		return true
	}
	for _, c := range t {
		switch c {
		case '}', ')', ']', ';', ',', ' ', '\t':
		default:
			return false
		}
	}
	return len(t) > 0
}

func (x *indent) Finish(totalLines int64) *Outline {
	x.flush()
	x.closeSub()
	x.closeTop()
	return x.c.outline(Indent)
}
