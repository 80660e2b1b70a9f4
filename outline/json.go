package outline

import (
	"bytes"
	"fmt"
)

// jsonMaxChunks bounds the chunks of one array's elements.
const jsonMaxChunks = 16

// jsonScan outlines JSON without parsing it: a byte scanner that follows
// strings and nesting, and notes the keys of objects at depths 1 and 2 with
// the lines their values span. An array's elements at those depths are
// outlined as chunks ("[0-999]"). Memory: the open containers of depth 2 or
// less, a key, and the chunks of at most two arrays.
type jsonScan struct {
	c      collector
	line   int64 // current line, 1-based
	depth  int   // containers open
	inStr  bool
	esc    bool
	key    []byte // the string being read, when it may be a key
	keyCut bool
	keyAt  int // the depth whose key is being read
	// The containers at depths 1 and 2: kind '{' or '[' and the entry or
	// chunk being read in each.
	stack [3]jsonLevel
	// lastTok is the line of the last byte that was not white space: a
	// value ends there.
	lastTok int64
	sawAny  bool
}

type jsonLevel struct {
	kind      byte
	expectKey bool   // an object wants a key next
	noKeys    bool   // an array's element after its first: its keys are not outlined
	name      string // the key read, awaiting its value
	nameLine  int64
	member    int   // the open member's entry, -2 none
	elemLine  int64 // line of the open array element, 0 none
	chunks    chunker
}

func newJSON(opt Options) *jsonScan {
	return &jsonScan{c: collector{max: opt.MaxEntries, from: opt.FromLine}, line: 1}
}

func (j *jsonScan) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i++ {
		if j.inStr && !j.esc && j.key == nil {
			// Inside a string that is no key: skip to its end or an escape.
			k := bytes.IndexAny(p[i:], "\"\\")
			if k < 0 {
				k = len(p) - i
			}
			j.line += int64(bytes.Count(p[i:i+k], newline))
			if i += k; i == len(p) {
				break
			}
		} else if !j.inStr && j.skippable() {
			// Deeper than the outline looks, only strings, nesting and
			// lines matter: skip to the next of them. A loop over a table,
			// not bytes.IndexAny, which builds its set at each call: 64 MiB
			// of '[' took 18 s, a call a byte.
			k := i
			for k < len(p) && !jsonStops[p[k]] {
				k++
			}
			if len(bytes.TrimLeft(p[i:k], " \t\r")) > 0 {
				j.sawAny, j.lastTok = true, j.line
			}
			if i = k; i == len(p) {
				break
			}
		}
		j.byte(p[i])
	}
	return len(p), nil
}

var newline = []byte{'\n'}

// jsonStops are the bytes a skippable stretch of JSON stops at.
var jsonStops = func() (t [256]bool) {
	for _, c := range []byte("\"{}[]\n") {
		t[c] = true
	}
	return t
}()

func (j *jsonScan) byte(b byte) {
	if j.inStr {
		switch {
		case j.esc:
			j.esc = false
		case b == '\\':
			j.esc = true
		case b == '"':
			j.inStr = false
			return
		}
		if j.key != nil && !j.keyCut {
			if len(j.key) < maxName {
				j.key = append(j.key, b)
			} else {
				j.keyCut = true
			}
		}
		return
	}
	switch b {
	case '\n':
		j.line++
		return
	case ' ', '\t', '\r':
		return
	}
	j.sawAny = true
	d := j.depth
	switch b {
	case '"':
		j.inStr = true
		if d >= 1 && d <= 2 && j.stack[d].kind == '{' && j.stack[d].expectKey && !j.stack[d].noKeys {
			j.key, j.keyCut = j.key[:0], false
			if j.key == nil {
				j.key = make([]byte, 0, 32)
			}
			j.stack[d].nameLine, j.keyAt = j.line, d
		} else {
			j.valueStart(d)
		}
	case ':':
		if d >= 1 && d <= 2 && j.stack[d].kind == '{' && !j.stack[d].noKeys && j.key != nil && j.keyAt == d {
			j.stack[d].name = string(j.key)
			j.stack[d].expectKey = false
			j.key = nil
		}
	case ',':
		j.valueEnd(d)
		if d >= 1 && d <= 2 && j.stack[d].kind == '{' {
			j.stack[d].expectKey = true
		}
	case '{', '[':
		j.valueStart(d)
		j.depth++
		if j.depth <= 2 {
			// Of an array of objects, the first one's keys show their shape;
			// the others' would only repeat them.
			later := d >= 1 && j.stack[d].kind == '[' && j.stack[d].chunks.items > 0
			j.stack[j.depth] = jsonLevel{kind: b, expectKey: b == '{', noKeys: later, member: -2, chunks: newChunker(jsonMaxChunks, 1)}
		}
	case '}', ']':
		j.valueEnd(d)
		if d >= 1 && d <= 2 && j.stack[d].kind == '[' {
			j.flushChunks(d)
		}
		if j.depth > 0 {
			j.depth--
		}
	default:
		j.valueStart(d)
	}
	j.lastTok = j.line
}

// skippable says whether the bytes here matter only for their strings,
// brackets and newlines: deeper than depth 2, or in an object at depth 2
// whose keys are not outlined (an array's element after the first). A
// value's start there is noted by its first bracket or quote, or by
// valueStart at depth <= 2 only.
func (j *jsonScan) skippable() bool {
	return j.depth > 2 || j.depth == 2 && j.stack[2].kind == '{' && j.stack[2].noKeys
}

// valueStart notes that a value begins at depth d (a member's value, or an
// array element).
func (j *jsonScan) valueStart(d int) {
	if d < 1 || d > 2 {
		return
	}
	l := &j.stack[d]
	switch {
	case l.kind == '{' && l.name != "" && l.member == -2:
		l.member = j.c.add(Entry{Line: l.nameLine, EndLine: j.line, Depth: d, Kind: "key", Name: clip(l.name)})
	case l.kind == '[' && l.elemLine == 0:
		l.elemLine = j.line
	}
}

// valueEnd closes the value open at depth d, which ended at lastTok.
func (j *jsonScan) valueEnd(d int) {
	if d < 1 || d > 2 {
		return
	}
	l := &j.stack[d]
	switch l.kind {
	case '{':
		if l.member != -2 {
			j.c.end(l.member, j.lastTok)
		}
		l.member, l.name = -2, ""
	case '[':
		if l.elemLine != 0 {
			l.chunks.add(l.elemLine, j.lastTok)
			l.elemLine = 0
		}
	}
}

// flushChunks adds the chunks of the array closing at depth d.
func (j *jsonScan) flushChunks(d int) {
	ch := &j.stack[d].chunks
	for _, c := range ch.chunks {
		name := fmt.Sprintf("[%d]", c.first)
		if c.last > c.first {
			name = fmt.Sprintf("[%d-%d]", c.first, c.last)
		}
		j.c.add(Entry{Line: c.line, EndLine: c.endLine, Depth: d, Kind: "elements", Name: name, Lines: c.endLine - c.line + 1})
	}
	ch.chunks = nil
}

func (j *jsonScan) Finish(totalLines int64) *Outline {
	// A truncated document: close what is open at the end.
	for d := min(j.depth, 2); d >= 1; d-- {
		j.lastTok = totalLines
		j.valueEnd(d)
		if j.stack[d].kind == '[' {
			j.flushChunks(d)
		}
	}
	o := j.c.outline(JSON)
	sortByLine(o.Entries)
	return o
}
