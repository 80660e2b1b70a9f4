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
func (d *Detector) Block(first int64, b []byte) int64 {
	d.sampleBlock(b)
	n, pos := first, 0
	pos, n = d.follow(b, pos, n)
	ls, le := pos, pos // the line that holds b[i], once known
	for i := pos; ; i++ {
		var hit uint32
		if i, hit = nextAnchor(b, i); hit == 0 {
			break
		}
		if !maybe(b, i, hit) {
			continue
		}
		if i >= le {
			ls = le + bytes.LastIndexByte(b[le:i], '\n') + 1
			le = lineEnd(b, i)
		}
		kind := d.candidate(b, ls, le, i, hit)
		if kind == noHit {
			continue
		}
		n += int64(bytes.Count(b[pos:ls], nl))
		pos = ls
		if kind == testLine {
			body, _ := truncate.SplitEnding(b[ls:le])
			d.testLine(n, body)
			pos, n = le, n+1
		} else {
			d.sync(b, pos, n)
			d.Line(n, b[pos:le])
			pos, n = d.follow(b, le, n+1)
		}
		i, le = pos-1, pos
	}
	n += int64(bytes.Count(b[pos:], nl))
	if pos < len(b) && b[len(b)-1] != '\n' {
		n++ // a last line without '\n' that Line did not take
	}
	d.sync(b, len(b), n)
	d.seen = max(d.seen, n-1)
	return n - first
}

var nl = []byte{'\n'}

// sampleStride is the stride of the sample of lines' shapes: the line that
// holds each stride-th byte of the stream (see templates.sample). A
// sample by bytes costs Block no pass over the lines it skips, and is the
// same however the stream is cut into blocks or lines.
const sampleStride = 1024

// sampleBlock samples the lines of b (see sampleStride).
func (d *Detector) sampleBlock(b []byte) {
	done := 0 // the end of the line sampled last: no line sampled starts before
	for at := (sampleStride - int(d.fed%sampleStride)) % sampleStride; at < len(b); at += sampleStride {
		if at < done {
			// In the line sampled last: skip the strides it spans at
			// once, so a line of megabytes costs one pass, not one a KiB.
			at += (done - at - 1) / sampleStride * sampleStride
			continue
		}
		ls := done + bytes.LastIndexByte(b[done:at], '\n') + 1
		done = lineEnd(b, at)
		body, _ := truncate.SplitEnding(b[ls:done])
		d.tmpl.sample(shape(body, 0))
	}
	d.fed += int64(len(b))
}

// sampleLine is sampleBlock for one whole line.
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
func (d *Detector) candidate(b []byte, ls, le, i int, set uint32) int {
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

// follow feeds Line the lines from pos while a hit's continuation is open.
func (d *Detector) follow(b []byte, pos int, n int64) (int, int64) {
	for d.left > 0 && pos < len(b) {
		le := lineEnd(b, pos)
		d.Line(n, b[pos:le])
		pos, n = le, n+1
	}
	return pos, n
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
