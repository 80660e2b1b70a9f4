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
	d.cls.classify(b, d.shapes)
	return d.apply(first, b, &d.cls)
}

// blockClass is what classify found in a block, its candidate lines in
// order, and what apply makes of it first: the shape and the end of each
// of its lines (see shapes.go). The shapes are apply's half of the work:
// Parallel runs classify, the larger half, on the reader's goroutine.
type blockClass struct {
	shapes []uint64
	ends   []int32
	buf    []byte // lineShape's scratch
	cands  []cand
}

// cand is a candidate line of a block: b[ls:le], its kind (ruleLine or
// testLine) and, for a ruleLine, the rule that matches it (-1 for none)
// and its shape, as matchCache.match gives them.
type cand struct {
	ls, le int
	kind   int
	rule   int16
	h      uint64
}

// classify finds the candidate lines of b as Block's loop over the
// anchors finds them and matches each ruleLine through shapes. A line that
// a hit's continuation takes in apply is classified too (its match is the
// same, the cache's use is the same: a line that is not a candidate holds
// no keyword and is never cached).
func (c *blockClass) classify(b []byte, shapes *matchCache) {
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
			}
		}
		c.cands = append(c.cands, k)
		i = le - 1
	}
}

// apply runs the state machine over the block b of lines first, first+1,
// ..., classified as c: every line is hashed and counted by its shape and
// kept in the ring; the candidates go through line, and so do the lines a
// hit's continuation takes and those of a shape new in an output of
// repeated shapes. It returns the number of lines b holds.
func (d *Detector) apply(first int64, b []byte, c *blockClass) int64 {
	c.shapes, c.ends = blockShapes(c.shapes[:0], c.ends[:0], b, &c.buf)
	d.fed += int64(len(b))
	n, pos, k := first, 0, 0
	pushed := -1 // the block's last line in the ring
	for i, end := range c.ends {
		le := int(end)
		before := d.counts.add(c.shapes[i])
		for k < len(c.cands) && c.cands[k].ls < pos {
			k++
		}
		cd := (*cand)(nil)
		if k < len(c.cands) && c.cands[k].ls == pos {
			cd = &c.cands[k]
		}
		if cd != nil || d.left > 0 || before < novelBefore && d.counts.repetitive() {
			// The lines before it go to the ring first (context), then
			// the line itself: the others never need to.
			pushed = d.catchUp(b, c.ends, pushed, i, n)
			line := b[pos:le]
			d.lineShape = c.shapes[i]
			if cd != nil && cd.kind == testLine && d.left == 0 {
				body, _ := truncate.SplitEnding(line)
				d.testLine(n, body)
				d.novel(n, line, before)
				d.push(n, line)
			} else {
				d.line(n, line, ruleAt(cd.ruleOr(-1)), cd.shapeOr(0), before)
			}
			pushed = i
		}
		pos, n = le, n+1
	}
	d.catchUp(b, c.ends, pushed, len(c.ends), n)
	d.seen = max(d.seen, n-1)
	return n - first
}

// catchUp puts into the ring the lines of the block b (ending at ends)
// after its line pushed and before its line i (numbered n), at most
// maxBefore of them, and returns the index of the last one put.
func (d *Detector) catchUp(b []byte, ends []int32, pushed, i int, n int64) int {
	for j := max(pushed+1, i-maxBefore); j < i; j++ {
		s := 0
		if j > 0 {
			s = int(ends[j-1])
		}
		d.push(n-int64(i-j), b[s:ends[j]])
	}
	return i - 1
}

// ruleOr is c's rule, or none when c is nil.
func (c *cand) ruleOr(none int16) int16 {
	if c == nil {
		return none
	}
	return c.rule
}

// shapeOr is c's shape, or none when c is nil.
func (c *cand) shapeOr(none uint64) uint64 {
	if c == nil {
		return none
	}
	return c.h
}

// ruleAt returns the rule of index i, nil for -1.
func ruleAt(i int16) *Rule {
	if i < 0 {
		return nil
	}
	return &Rules()[i]
}

var nl = []byte{'\n'}

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

// lineEnd is the end of the line that holds b[i], its '\n' included.
func lineEnd(b []byte, i int) int {
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		return i + j + 1
	}
	return len(b)
}
