package highlight

import "hash/maphash"

// The shapes of the whole output: every line's words, each masked as the
// kinds mask them (a word that holds a digit, a path or a quote is one
// shape whatever its value), hashed into one number (lineShape), and
// counted in a small sketch (shapeCounts). A line whose shape is seen once
// or twice in an output of shapes repeated thousands of times is what the
// output itself says is unusual, whatever tool printed it and in whatever
// words: "attempt to index a nil value" among 3,000 "check N ok" lines,
// "bad CRC" among "OK" lines. apply hashes each line of a block and counts
// it, in output order (on Parallel's second goroutine: classify, the
// prefilter's pass and the rules, is the larger half).

// lineShape hashes the shape of line (without its ending): its bytes but
// digits and hexadecimal digits (numbers, ids, hashes, the numbers in
// names: "thumb_1703.webp" is "thumb_.webp"), spaces and tabs (columns
// padded to their values' widths). It is the kinds' masking made cheap
// enough for every byte of an output: one table load, a store and an add
// a byte, no branch, then maphash. Letters a-f go with the hexadecimal
// digits, and words run together: lines that differ only in those are of
// one shape, a small price for ids and hashes that mask whole. buf is
// scratch space, grown as needed.
func lineShape(line []byte, buf *[]byte) uint64 {
	if cap(*buf) < len(line) {
		*buf = make([]byte, len(line)+len(line)/2)
	}
	b := (*buf)[:len(line)]
	j := 0
	for _, c := range line {
		b[j] = c
		j += int(shapeKeep[c])
	}
	return maphash.Bytes(shapeSeed, b[:j])
}

// shapeSeed is the seed of lineShape: shapes are compared within a
// process only.
var shapeSeed = maphash.MakeSeed()

// shapeKeep is 1 for the bytes lineShape keeps.
var shapeKeep = func() (t [256]uint8) {
	for i := range t {
		t[i] = 1
	}
	for _, c := range []byte("0123456789abcdefABCDEF \t") {
		t[c] = 0
	}
	return t
}()

// blockShapes appends to dst the shape of each line of b and to ends the
// end of each (its '\n' included).
func blockShapes(dst []uint64, ends []int32, b []byte, buf *[]byte) ([]uint64, []int32) {
	for s := 0; s < len(b); {
		e := lineEnd(b, s)
		body := b[s:e]
		if body[len(body)-1] == '\n' {
			body = body[:len(body)-1]
		}
		if len(body) > 0 && body[len(body)-1] == '\r' {
			body = body[:len(body)-1]
		}
		dst = append(dst, lineShape(body, buf))
		ends = append(ends, int32(e))
		s = e
	}
	return dst, ends
}

// shapeCounts counts the lines of each shape, in bounded memory: two rows
// of saturating counters indexed by halves of the shape (a count-min
// sketch), so that a count is never less than the true one: a shape found
// rare (seen at most twice) is. It also counts the lines and the distinct
// shapes seen, which tell an output of repeated shapes from prose or
// random text, where no shape is unusual.
type shapeCounts struct {
	rows     *[2][sketchSize]uint8
	lines    int64
	distinct int64
}

const sketchSize = 1 << 15

// add counts a line of shape h and returns how many lines of its shape
// came before it (at most 255).
func (s *shapeCounts) add(h uint64) int {
	if s.rows == nil {
		s.rows = new([2][sketchSize]uint8)
	}
	a, b := &s.rows[0][h&(sketchSize-1)], &s.rows[1][(h>>32)&(sketchSize-1)]
	before := min(*a, *b)
	if *a < 255 {
		*a++
	}
	if *b < 255 {
		*b++
	}
	s.lines++
	if before == 0 {
		s.distinct++
	}
	return int(before)
}

// count returns how many lines of shape h were counted (at most 255).
func (s *shapeCounts) count(h uint64) int {
	if s.rows == nil {
		return 0
	}
	return int(min(s.rows[0][h&(sketchSize-1)], s.rows[1][(h>>32)&(sketchSize-1)]))
}

// repeatShare is how many lines per shape, on average, make an output one
// of repeated shapes, where a shape seen once or twice stands out.
const repeatShare = 16

// repetitive reports whether the lines so far are of repeated shapes.
func (s *shapeCounts) repetitive() bool {
	return s.lines >= 64 && s.distinct*repeatShare <= s.lines
}

// surprise is how unusual a new shape is now: lines per distinct shape
// so far.
func (s *shapeCounts) surprise() int64 {
	return s.lines / max(s.distinct, 1)
}
