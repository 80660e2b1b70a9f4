package highlight

import (
	"bytes"
	"math/bits"

	"github.com/toold/toold/truncate"
)

// Block feeds whole lines at once: b holds lines first, first+1, ..., each
// ending in '\n' but for a last line at the end of the stream, cleaned as
// for Line. It returns the number of lines b holds. Only the lines that hold
// an anchor, and those a hit's continuation takes, go through Line's rules;
// the others cost one pass of a table loop. b is not kept.
//
// It is the two halves Parallel runs apart: classify, which finds the
// candidate lines and matches them against the rules (pure work but for
// the rules' cache, which only it uses), and apply, the state machine.
func (d *Detector) Block(first int64, b []byte) int64 {
	d.cls.classify(b, d.shapes, d.fed)
	return d.apply(first, b, &d.cls)
}

// blockClass is what classify found in a block: the shapes of its sample
// of lines (see sampleShapes) and its candidate lines, in order.
type blockClass struct {
	samples []uint64
	cands   []cand
	// keys: make the Key of a hit line that may open a group (one whose
	// line before is not a hit), for apply, which would make it
	// otherwise (Parallel: it moves that work to the classifier's core).
	keys bool
}

// cand is a candidate line of a block: b[ls:le], its kind (ruleLine or
// testLine) and, for a ruleLine, the rule that matches it (-1 for none)
// and its shape, as matchCache.match gives them; its Key when keyed.
type cand struct {
	ls, le int
	kind   int
	rule   int16
	h      uint64
	keyed  bool
	key    string
}

// classify finds the candidate lines of b, fed after fed bytes, as Block's
// loop over the anchors finds them, and matches each ruleLine through
// shapes. A line that a hit's continuation takes in apply is classified
// too (its match is the same, the cache's use is the same: a line that is
// not a candidate holds no keyword and is never cached).
func (c *blockClass) classify(b []byte, shapes *matchCache, fed int64) {
	c.samples = sampleShapes(c.samples[:0], b, fed)
	c.cands = c.cands[:0]
	ls, le := 0, 0 // the line that holds b[i], once known
	for i := 0; ; i++ {
		var hit uint32
		if i, hit = nextAnchor(b, i); hit == 0 {
			return
		}
		if !maybe(b, i, hit) {
			continue
		}
		if i >= le {
			ls = le + bytes.LastIndexByte(b[le:i], '\n') + 1
			le = lineEnd(b, i)
		}
		kind := candidate(b, ls, le, i, hit)
		if kind == noHit {
			continue
		}
		k := cand{ls: ls, le: le, kind: kind, rule: -1}
		if kind == ruleLine {
			body, _ := truncate.SplitEnding(b[ls:le])
			var r *Rule
			r, _, k.h = shapes.match(body)
			if r != nil {
				k.rule = int16(r.index)
				if c.keys && r.Severity > 0 && !c.hitBefore(ls) {
					k.keyed, k.key = true, Key(body)
				}
			}
		}
		c.cands = append(c.cands, k)
		i = le - 1
	}
}

// hitBefore reports whether the line that ends at ls is a candidate with a
// rule.
func (c *blockClass) hitBefore(ls int) bool {
	if len(c.cands) == 0 {
		return false
	}
	p := &c.cands[len(c.cands)-1]
	return p.le == ls && p.rule >= 0
}

// apply runs the state machine over the block b of lines first, first+1,
// ..., classified as c: the candidates go through line, and the lines a
// hit's continuation takes. It returns the number of lines b holds.
func (d *Detector) apply(first int64, b []byte, c *blockClass) int64 {
	for _, h := range c.samples {
		d.tmpl.sample(h)
	}
	d.fed += int64(len(b))
	n, pos, k := first, 0, 0
	pos, n, k = d.follow(b, pos, n, c.cands, k)
	for ; k < len(c.cands); k++ {
		cd := &c.cands[k]
		if cd.ls < pos {
			continue // a continuation took it
		}
		n += int64(bytes.Count(b[pos:cd.ls], nl))
		pos = cd.ls
		if cd.kind == testLine {
			body, _ := truncate.SplitEnding(b[cd.ls:cd.le])
			d.testLine(n, body)
			pos, n = cd.le, n+1
			continue
		}
		d.sync(b, pos, n)
		if cd.keyed {
			d.preKey = &cd.key
		}
		d.line(n, b[pos:cd.le], ruleAt(cd.rule), cd.h)
		d.preKey = nil
		pos, n, k = d.follow(b, cd.le, n+1, c.cands, k+1)
		k--
	}
	n += int64(bytes.Count(b[pos:], nl))
	if pos < len(b) && b[len(b)-1] != '\n' {
		n++ // a last line without '\n' that Line did not take
	}
	d.sync(b, len(b), n)
	d.seen = max(d.seen, n-1)
	return n - first
}

// ruleAt returns the rule of index i, nil for -1.
func ruleAt(i int16) *Rule {
	if i < 0 {
		return nil
	}
	return &Rules()[i]
}

var nl = []byte{'\n'}

// sampleStride is the stride of the sample of lines' shapes: the line that
// holds each stride-th byte of the stream (see templates.sample). A
// sample by bytes costs Block no pass over the lines it skips, and is the
// same however the stream is cut into blocks or lines.
const sampleStride = 1024

// sampleShapes appends to dst the shapes of the lines of b, fed after fed
// bytes of the stream, that the sample takes (see sampleStride).
func sampleShapes(dst []uint64, b []byte, fed int64) []uint64 {
	le := 0 // the end of the line sampled last: a long line is looked for once
	for at := (sampleStride - int(fed%sampleStride)) % sampleStride; at < len(b); at += sampleStride {
		if at < le {
			continue // the line sampled last
		}
		ls := le + bytes.LastIndexByte(b[le:at], '\n') + 1
		le = lineEnd(b, at)
		body, _ := truncate.SplitEnding(b[ls:le])
		dst = append(dst, shape(body, 0))
	}
	return dst
}

// sampleLine is the sample (see sampleShapes) of one whole line.
func (d *Detector) sampleLine(line []byte) {
	s, e := d.fed, d.fed+int64(len(line))
	if len(line) > 0 && (s%sampleStride == 0 || s/sampleStride != (e-1)/sampleStride) {
		body, _ := truncate.SplitEnding(line)
		d.tmpl.sample(shape(body, 0))
	}
	d.fed = e
}

// Kinds of candidate lines in Block.
const (
	noHit    = iota
	ruleLine // may match a rule: goes through Line
	testLine // a go test marker: goes to goTests
)

// candidate tells whether the anchors in set, ending at i in b, mark the
// line b[ls:le].
func candidate(b []byte, ls, le, i int, set uint32) int {
	kind := noHit
	for ; set != 0; set &= set - 1 {
		an := &anchors[bits.TrailingZeros32(set)]
		switch {
		case an.test:
			// The rest of the line is not scanned after a candidate.
			if body, _ := truncate.SplitEnding(b[ls:le]); scan(body) != 0 {
				return ruleLine
			}
			kind = testLine
		case an.start:
			if startMarks(b[ls:le]) != 0 {
				return ruleLine
			}
		default:
			if keysAt(b[ls:le], i-1-ls, an.keys) != 0 {
				return ruleLine
			}
		}
	}
	return kind
}

// nextAnchor returns the first i' >= i at which an anchor ends in b, with
// the set of them, or 0 for none. An anchor may start at b[i-1], but for i
// at a line start, where '\n' is taken to come before.
func nextAnchor(b []byte, i int) (int, uint32) {
	prev := pairBits['\n']
	if i > 0 {
		prev = pairBits[b[i-1]]
	}
	// Eight bytes a step, one branch: most steps find nothing.
	for ; i+8 <= len(b); i += 8 {
		w := b[i : i+8 : i+8] // one bounds check for the eight bytes
		t0, t1, t2, t3 := pairBits[w[0]], pairBits[w[1]], pairBits[w[2]], pairBits[w[3]]
		t4, t5, t6, t7 := pairBits[w[4]], pairBits[w[5]], pairBits[w[6]], pairBits[w[7]]
		if uint32(prev&(t0>>32)|t0&(t1>>32)|t1&(t2>>32)|t2&(t3>>32)|
			t3&(t4>>32)|t4&(t5>>32)|t5&(t6>>32)|t6&(t7>>32)) != 0 {
			break
		}
		prev = t7
	}
	for ; i < len(b); i++ {
		t := pairBits[b[i]]
		if hit := uint32(prev & (t >> 32)); hit != 0 {
			return i, hit
		}
		prev = t
	}
	return i, 0
}

// maybe is a first check of the anchors in set that end at i, without
// finding the line: a keyword cannot hold a '\n', so it is checked in b.
func maybe(b []byte, i int, set uint32) bool {
	for ; set != 0; set &= set - 1 {
		an := &anchors[bits.TrailingZeros32(set)]
		if an.test || an.start || keysAt(b, i-1, an.keys) != 0 {
			return true
		}
	}
	return false
}

// follow feeds line the lines from pos while a hit's continuation is open,
// each with its match from cands (from k on, in order) when it is a
// candidate, none when it is not (it holds no keyword). It returns where
// it stopped, the next line's number and the first of cands not before it.
func (d *Detector) follow(b []byte, pos int, n int64, cands []cand, k int) (int, int64, int) {
	for d.left > 0 && pos < len(b) {
		le := lineEnd(b, pos)
		for k < len(cands) && cands[k].ls < pos {
			k++
		}
		r, h := (*Rule)(nil), uint64(0)
		if k < len(cands) && cands[k].ls == pos {
			r, h = ruleAt(cands[k].rule), cands[k].h
		}
		d.line(n, b[pos:le], r, h)
		pos, n = le, n+1
	}
	return pos, n, k
}

// sync puts into the ring the lines of b before end (at most maxBefore),
// the last of them numbered n-1.
func (d *Detector) sync(b []byte, end int, n int64) {
	// Lines Line saw (a run of hits, say) are in the ring already.
	want := 0
	for want < maxBefore && n-1-int64(want) >= 1 && d.ringAt(n-1-int64(want)) == nil {
		want++
	}
	starts := [maxBefore + 1]int{}
	k, e := 0, end
	for k < want && e > 0 {
		s := bytes.LastIndexByte(b[:e-1], '\n') + 1
		starts[k] = s
		k++
		e = s
	}
	for j := k - 1; j >= 0; j-- {
		le := lineEnd(b, starts[j])
		d.push(n-1-int64(j), b[starts[j]:le])
	}
}

// lineEnd is the end of the line that holds b[i], its '\n' included.
func lineEnd(b []byte, i int) int {
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(b)
}
