package highlight

import (
	"bytes"
	"math/bits"
)

// The prefilter decides, in one pass over a line's bytes, which keywords the
// line holds, so that no regexp runs on the lines that hold none (nearly all
// of them). It looks for anchor bigrams, a byte pair that is rare in ordinary
// output, in one branch-free loop (anyPair), and when the line has one,
// checks the keyword around each anchor found. Line-start markers that hold no
// keyword (pytest's "E   ", klog's "E1122", "●", "not ok") are checked once
// per line.

// kw is a bit set of the keywords a line holds.
type kw uint32

const (
	kErr    kw = 1 << iota // "err": error, ERROR, npm ERR!
	kFail                  // fail, FAILED, failure
	kFatal                 // fatal
	kPanic                 // panic, panicked
	kWarn                  // warn, warning
	kExcept                // exception
	kCrit                  // critical
	kKilled                // Killed
	kSegv                  // segmentation
	kAbort                 // Aborted
	kGoFile                // ".go:L:C:"
	kLevel                 // a JSON "level" key whose value says error, fatal or warning
	kStart                 // a line-start marker (see startMarks)
)

// keyword is a case-folded word, where its anchor pair starts in it, and
// the exact byte pairs (case variants) that anchor it.
type keyword struct {
	word   string
	anchor int
	bit    kw
	pairs  []string
	check  func(rest []byte) bool // what must follow the word; nil: anything
}

// keywords: each anchor is rare in ordinary output, in the cases listed.
var keywords = []keyword{
	{word: "err", anchor: 1, bit: kErr, pairs: []string{"rr", "RR"}},
	{word: "fail", anchor: 0, bit: kFail, pairs: []string{"fa", "Fa", "FA"}},
	{word: "fatal", anchor: 0, bit: kFatal, pairs: []string{"fa", "Fa", "FA"}},
	{word: "panic", anchor: 3, bit: kPanic, pairs: []string{"ic", "IC"}},
	{word: "warn", anchor: 0, bit: kWarn, pairs: []string{"wa", "Wa", "WA"}},
	{word: "exception", anchor: 1, bit: kExcept, pairs: []string{"xc", "XC"}},
	{word: "critical", anchor: 4, bit: kCrit, pairs: []string{"ic", "IC"}},
	{word: "killed", anchor: 0, bit: kKilled, pairs: []string{"Ki"}},
	{word: "segmentation", anchor: 2, bit: kSegv, pairs: []string{"gm"}},
	{word: "aborted", anchor: 0, bit: kAbort, pairs: []string{"Ab"}},
	{word: ".go:", anchor: 0, bit: kGoFile, pairs: []string{".g"}, check: lineCol},
	{word: `"level"`, anchor: 0, bit: kLevel, pairs: []string{`"l`}, check: badLevel},
	{word: `"lvl"`, anchor: 0, bit: kLevel, pairs: []string{`"l`}, check: badLevel},
}

// pairTab maps a byte pair (first | second<<8) to 1 + its index in pairKeys.
var (
	pairTab  [1 << 16]uint8
	pairKeys [][]keyword
)

func init() {
	for _, k := range keywords {
		for _, p := range k.pairs {
			a := uint16(p[0]) | uint16(p[1])<<8
			if pairTab[a] == 0 {
				pairKeys = append(pairKeys, nil)
				pairTab[a] = uint8(len(pairKeys))
			}
			pairKeys[pairTab[a]-1] = append(pairKeys[pairTab[a]-1], k)
		}
	}
}

// lower maps ASCII upper case to lower case.
var lower [256]byte

func init() {
	for i := range lower {
		lower[i] = byte(i)
		if 'A' <= i && i <= 'Z' {
			lower[i] = byte(i + 'a' - 'A')
		}
	}
}

// scan returns the keywords of line (without its ending).
func scan(line []byte) kw {
	var m kw
	if len(line) > 0 {
		m = startMarks(line)
	}
	if acc := pairsIn(line); acc != 0 {
		m |= verify(line, acc)
	}
	return m
}

// pairBits[c] has bit k in its low half when c is the first byte of anchor
// pair k, in its high half when it is the second: pair k is at j when
// low(pairBits[line[j]]) & high(pairBits[line[j+1]]) has bit k. The table
// is 2 KiB, so the loop reads nothing but the line and the L1 cache, and
// takes no branch but its own.
var pairBits [256]uint64

// pairStrs are the anchor pairs by their bit in pairBits.
var pairStrs [][]byte

func init() {
	k := 0
	for a := range pairTab {
		if pairTab[a] == 0 {
			continue
		}
		pairBits[a&0xff] |= 1 << k
		pairBits[a>>8] |= 1 << (32 + k)
		pairStrs = append(pairStrs, []byte{byte(a), byte(a >> 8)})
		k++
	}
	if k > 32 {
		panic("highlight: more than 32 anchor pairs")
	}
}

// pairsIn returns the set of anchor pairs that line holds.
func pairsIn(line []byte) uint32 {
	var acc, prev uint64
	for _, c := range line {
		t := pairBits[c]
		acc |= prev & (t >> 32)
		prev = t
	}
	return uint32(acc)
}

// verify checks the keywords around each occurrence of the anchor pairs
// in set.
func verify(line []byte, set uint32) kw {
	var m kw
	for ; set != 0; set &= set - 1 {
		k := bits.TrailingZeros32(set)
		pair, keys := pairStrs[k], pairKeys[pairTab[uint16(pairStrs[k][0])|uint16(pairStrs[k][1])<<8]-1]
		for off := 0; ; {
			i := bytes.Index(line[off:], pair)
			if i < 0 {
				break
			}
			p := off + i
			for _, kw := range keys {
				at := p - kw.anchor
				if at >= 0 && hasFold(line[at:], kw.word) && (kw.check == nil || kw.check(line[at+len(kw.word):])) {
					m |= kw.bit
				}
			}
			off = p + 1
		}
	}
	return m
}

// lineCol reports whether b starts with "L:C:" (digits), as after "x.go".
func lineCol(b []byte) bool {
	for range 2 {
		n := 0
		for n < len(b) && isDigit(b[n]) {
			n++
		}
		if n == 0 || n == len(b) || b[n] != ':' {
			return false
		}
		b = b[n+1:]
	}
	return true
}

// hasFold reports whether b starts with word (lower case) ignoring case.
func hasFold(b []byte, word string) bool {
	if len(b) < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		if lower[b[i]] != word[i] {
			return false
		}
	}
	return true
}

// badLevel reports whether the JSON value after a level key (b starts just
// after the key's closing quote) says error, fatal and the like, or warning:
// as words, or as pino's numbers (40 warn, 50 error, 60 fatal).
func badLevel(b []byte) bool {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == ':') {
		i++
	}
	b = b[i:]
	if len(b) >= 2 && (b[0] == '4' || b[0] == '5' || b[0] == '6') && b[1] == '0' {
		return len(b) == 2 || b[2] < '0' || b[2] > '9'
	}
	if len(b) < 2 || b[0] != '"' {
		return false
	}
	for _, w := range []string{"err", "fatal", "crit", "panic", "emerg", "alert", "warn"} {
		if hasFold(b[1:], w) {
			return true
		}
	}
	return false
}

// startMarks checks the markers that open a line (after its indentation) and
// hold none of the keywords.
func startMarks(line []byte) kw {
	i := 0
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	b := line[i:]
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case 'E', 'F', 'W': // pytest "E   ", klog "E1122 ", "F1122 ", "W1122 "
		if len(b) >= 4 && (b[1] == ' ' && b[2] == ' ' || isDigit(b[1]) && isDigit(b[2])) {
			return kStart
		}
	case 'T':
		if hasPrefix(b, "Traceback") {
			return kStart
		}
	case 'C':
		if hasPrefix(b, "Caused by:") {
			return kStart
		}
	case 'n':
		if hasPrefix(b, "not ok") {
			return kStart
		}
	case 'm', 'g':
		if hasPrefix(b, "make") || hasPrefix(b, "gmake") {
			return kStart
		}
	case '-', '*', '>', 'B', 'S', 'e', 't':
		// "--- FAIL", "> Task :x FAILED", "BUILD FAILED", "* What went wrong:",
		// "error:", "test result: FAILED" hold keywords; these do not:
		if hasPrefix(b, "* What went wrong") {
			return kStart
		}
	case 0xe2, 0xc3: // ● ✖ ✗ ✕ ×
		return kStart
	}
	return 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }
