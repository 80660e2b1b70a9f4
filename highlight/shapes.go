package highlight

// The shapes of the whole output: every line's words, each masked as the
// kinds mask them (a word that holds a digit, a path or a quote is one
// shape whatever its value), hashed into one number (lineShape), and
// counted in a small sketch (shapeCounts). A line whose shape is seen once
// or twice in an output of shapes repeated thousands of times is what the
// output itself says is unusual, whatever tool printed it and in whatever
// words: "attempt to index a nil value" among 3,000 "check N ok" lines,
// "bad CRC" among "OK" lines. classify hashes each line of a block (pure
// work, beside the prefilter's pass); apply counts them in output order.

// lineShape hashes the masked words of line (without its ending): words
// split at spaces and tabs, a word holding a digit, '/', '\' or a quote
// counted as one masked word, at most maxWords words, and their number.
// Bytes are folded with a rotate and xor, a word with one multiply: the
// loop runs on every byte of the output.
func lineShape(line []byte) uint64 {
	h := uint64(fnvOffset)
	words := uint64(0)
	var w uint64
	var seen uint8
	n, hex := 0, 0 // the word's bytes, and its hex digits
	for _, c := range line {
		m := maskClass[c]
		if m&mSpace != 0 {
			if n > 0 {
				h = shapeWord(h, w, seen, n, hex)
				words++
				n, hex, w, seen = 0, 0, 0, 0
			}
			continue
		}
		n++
		hex += int(hexDigit[c])
		seen |= m
		w = (w<<7 | w>>57) ^ uint64(c)
	}
	if n > 0 {
		h = shapeWord(h, w, seen, n, hex)
		words++
	}
	return (h ^ min(words, maxWords)) * fnvPrime
}

// shapeWord adds a word (its folded bytes w, the classes seen in it, its
// length n, its hex digits) to h: masked when it holds a digit, a path or
// a quote, or is an id of 8 or more hex digits ("deadbeef", which Key
// masks too).
func shapeWord(h, w uint64, seen uint8, n, hex int) uint64 {
	if seen&(mDigit|mQuote) != 0 || n >= 8 && hex == n {
		w = maskHash
	}
	return (h ^ w) * fnvPrime
}

// hexDigit is 1 for the bytes of hexadecimal digits.
var hexDigit = func() (t [256]uint8) {
	for _, c := range []byte("0123456789abcdefABCDEF") {
		t[c] = 1
	}
	return t
}()

// blockShapes appends to dst the shape of each line of b and to ends the
// end of each (its '\n' included).
func blockShapes(dst []uint64, ends []int32, b []byte) ([]uint64, []int32) {
	for s := 0; s < len(b); {
		e := lineEnd(b, s)
		body := b[s:e]
		if body[len(body)-1] == '\n' {
			body = body[:len(body)-1]
		}
		if len(body) > 0 && body[len(body)-1] == '\r' {
			body = body[:len(body)-1]
		}
		dst = append(dst, lineShape(body))
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
