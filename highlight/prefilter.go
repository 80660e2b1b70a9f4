package highlight

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"
)

// The prefilter decides which lines may hold a hit, so that no regexp runs
// on the lines that hold none (nearly all of them). It looks for anchors:
// byte pairs that are rare in ordinary output, found in one branch-free
// loop over a 2 KiB table (pairBits), then checks the keyword around each
// one found. Block does this over many lines at once, so that a line
// without an anchor costs nothing but that loop; Line, line by line, also
// checks the line-start markers that hold no keyword (pytest's "E   ",
// klog's "E1122", "●", "not ok") with startMarks.

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
	kVocab                 // a word of the vocabulary of failure (see vocab.go)
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
// The words of the vocabulary of failure (kVocab) are checked as words by
// the vocab rule (vocab.go); here they only bring a line to the rules.
var keywords = []keyword{
	{word: "err", anchor: 1, bit: kErr | kVocab, pairs: []string{"rr", "RR"}},
	{word: "fail", anchor: 0, bit: kFail | kVocab, pairs: []string{"fa", "Fa", "FA"}},
	{word: "fatal", anchor: 0, bit: kFatal | kVocab, pairs: []string{"fa", "Fa", "FA"}},
	{word: "panic", anchor: 3, bit: kPanic | kVocab, pairs: []string{"ic", "IC"}},
	{word: "warn", anchor: 0, bit: kWarn, pairs: []string{"wa", "Wa", "WA"}},
	{word: "exception", anchor: 1, bit: kExcept | kVocab, pairs: []string{"xc", "XC"}},
	{word: "critical", anchor: 4, bit: kCrit, pairs: []string{"ic", "IC"}},
	{word: "killed", anchor: 0, bit: kKilled | kVocab, pairs: []string{"Ki", "KI"}},
	{word: "segmentation", anchor: 2, bit: kSegv, pairs: []string{"gm"}},
	{word: "aborted", anchor: 0, bit: kAbort, pairs: []string{"Ab"}},
	{word: ".go:", anchor: 0, bit: kGoFile, pairs: []string{".g"}, check: lineCol},
	{word: `"level"`, anchor: 0, bit: kLevel, pairs: []string{`"l`}, check: badLevel},
	{word: `"lvl"`, anchor: 0, bit: kLevel, pairs: []string{`"l`}, check: badLevel},
	// The vocabulary of failure: the words of a shell's and coreutils'
	// messages (cannot, can't, No such, not found, Permission denied,
	// Connection refused), anchored at a pair shared with others where one
	// fits ("cannot" at "no"). The other words of vocab.go (invalid,
	// overflow, undefined, timed out, ...) count on lines another anchor
	// brings (error, failed, fatal, ...): each anchor costs the loop over
	// every byte (BenchmarkDetectRandom lost a fifth with eleven more).
	{word: "cannot", anchor: 3, bit: kVocab, pairs: []string{"no", "NO"}},
	{word: "can't", anchor: 2, bit: kVocab, pairs: []string{"n'", "N'"}},
	{word: "couldn't", anchor: 5, bit: kVocab, pairs: []string{"n'", "N'"}},
	{word: "denied", anchor: 3, bit: kVocab, pairs: []string{"ie", "IE"}},
	{word: "refused", anchor: 2, bit: kVocab, pairs: []string{"fu", "FU"}},
	{word: "timed out", anchor: 7, bit: kVocab, pairs: []string{"ut", "UT"}},
	{word: "illegal", anchor: 0, bit: kVocab, pairs: []string{"Il", "IL"}},
	{word: "(core dumped)", anchor: 0, bit: kVocab, pairs: []string{"(c"}},
	{word: "no such", anchor: 0, bit: kVocab, pairs: []string{"no", "No", "NO"}},
	{word: "not ", anchor: 0, bit: kVocab, pairs: []string{"no", "No", "NO"}},
}

// startPairs anchor the markers of startMarks in Block: a line start and
// the marker's first byte, or the first two bytes of ● ✖ ✗ ✕ ×. They share
// two anchors: one for the line starts, one for the symbols.
var startPairs = []string{"\nE", "\nF", "\nW", "\nT", "\nC", "\nn", "\nm", "\ng", "\n*", "\nS", "\xe2\x97", "\xe2\x9c", "\xc3\x97"}

// testPairs anchor go test -v's "=== RUN" and "--- PASS" lines in Block,
// which goTests follows, and pytest's section lines ("=== FAILURES ===")
// and body headers ("____ test_x ____"), which pyTests follows; and a
// sanitizer's or valgrind's "==PID==" lines, which startMarks takes.
var testPairs = []string{"\n=", "SS", "\n_"}

// anchor is a set of byte pairs (the case variants of one pair) and what
// they may mark.
type anchor struct {
	pairs [][]byte
	keys  []keyword // keywords anchored here
	start bool      // a line-start marker: check the line with startMarks
	test  bool      // a go test marker line
}

var (
	anchors  []anchor       // by bit in pairBits
	anchorOf map[string]int // an anchor's name -> its index in anchors
	// pairBits[c] has bit k in its low half when c is the first byte of
	// a pair of anchor k, in its high half when it is the second: anchor k
	// ends at j when low(pairBits[b[j-1]]) & high(pairBits[b[j]]) has bit
	// k. The table is 2 KiB, so the loop reads nothing but the text and the
	// L1 cache. An anchor's first and second bytes pair freely ("fA" as
	// well as "fa", "Fa", "FA"): the check of the keyword sorts them out.
	pairBits [256]uint64
	// keyedAnchors are the anchors that anchor keywords (anchor.keys).
	keyedAnchors uint32
)

// anchorFor returns the anchor called name, with pair p among its pairs.
func anchorFor(name, p string) *anchor {
	i, ok := anchorOf[name]
	if !ok {
		anchors = append(anchors, anchor{})
		i = len(anchors) - 1
		anchorOf[name] = i
	}
	an := &anchors[i]
	for _, q := range an.pairs {
		if string(q) == p {
			return an
		}
	}
	an.pairs = append(an.pairs, []byte(p))
	return an
}

func init() {
	anchorOf = map[string]int{}
	for _, k := range keywords {
		for _, p := range k.pairs {
			an := anchorFor(strings.ToLower(p), p)
			if !slices.ContainsFunc(an.keys, func(o keyword) bool { return o.word == k.word }) {
				an.keys = append(an.keys, k)
			}
		}
	}
	for _, p := range startPairs {
		name := "start"
		if p[0] != '\n' {
			name = "symbol"
		}
		anchorFor(name, p).start = true
	}
	for _, p := range testPairs {
		anchorFor(p, p).test = true
	}
	if len(anchors) > 32 {
		panic(fmt.Sprintf("highlight: %d anchors, more than 32", len(anchors)))
	}
	for k, an := range anchors {
		if an.keys != nil {
			keyedAnchors |= 1 << k
		}
	}
	for k, an := range anchors {
		for _, p := range an.pairs {
			pairBits[p[0]] |= 1 << k
			pairBits[p[1]] |= 1 << (32 + k)
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
func scan(line []byte) kw { return scanAnchors(line, pairsIn(line)) }

// scanAnchors is scan for a line whose anchors (see pairsIn) are known.
func scanAnchors(line []byte, set uint32) kw {
	var m kw
	if len(line) > 0 {
		m = startMarks(line)
	}
	if set != 0 {
		m |= verify(line, set)
	}
	return m
}

// pairsIn returns the set of anchors that line holds.
func pairsIn(line []byte) uint32 {
	var acc, prev uint64
	for _, c := range line {
		t := pairBits[c]
		acc |= prev & (t >> 32)
		prev = t
	}
	return uint32(acc)
}

// verify checks the keywords around each occurrence of the anchors in set:
// one pass over line, as pairsIn's, that stops where an anchor of set may
// end and checks there that its pair is one of the anchor's.
func verify(line []byte, set uint32) kw {
	var keyed uint32 // the anchors of set that anchor keywords
	for s := set; s != 0; s &= s - 1 {
		if k := bits.TrailingZeros32(s); anchors[k].keys != nil {
			keyed |= 1 << k
		}
	}
	if keyed == 0 {
		return 0
	}
	var m kw
	prev := uint64(0)
	for i, c := range line {
		t := pairBits[c]
		hit := uint32(prev&(t>>32)) & keyed
		prev = t
		for ; hit != 0; hit &= hit - 1 {
			an := &anchors[bits.TrailingZeros32(hit)]
			if an.has(line[i-1], c) {
				m |= keysAt(line, i-1, an.keys)
			}
		}
	}
	return m
}

// has reports whether a, b is one of the anchor's pairs.
func (an *anchor) has(a, b byte) bool {
	for _, p := range an.pairs {
		if p[0] == a && p[1] == b {
			return true
		}
	}
	return false
}

// keysAt checks keys around their anchor at p in line.
func keysAt(line []byte, p int, keys []keyword) kw {
	var m kw
	for _, k := range keys {
		at := p - k.anchor
		if at >= 0 && hasFold(line[at:], k.word) && (k.check == nil || k.check(line[at+len(k.word):])) {
			m |= k.bit
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

// startMarks checks the markers that open a line and hold none of the
// keywords: ASCII ones at column 0 (as Block anchors them, after a '\n'),
// the symbols of test runners after any indentation.
func startMarks(line []byte) kw {
	b := line
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
	case '*':
		if hasPrefix(b, "* What went wrong") {
			return kStart
		}
	case 'S':
		if hasPrefix(b, "SUMMARY: ") { // a sanitizer's last line
			return kStart
		}
	case '=':
		if pidPrefix(b) > 0 { // a sanitizer's or valgrind's "==PID=="
			return kStart
		}
	case ' ', '\t', 0xe2, 0xc3:
		b = b[indentOf(b):]
		if len(b) >= 2 && (b[0] == 0xe2 && (b[1] == 0x97 || b[1] == 0x9c) || b[0] == 0xc3 && b[1] == 0x97) {
			return kStart // ● ✖ ✗ ✕ ×
		}
	}
	return 0
}

// pidPrefix returns the length of the "==PID==" that starts b, 0 for none.
func pidPrefix(b []byte) int {
	if !hasPrefix(b, "==") {
		return 0
	}
	i := 2
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	if i == 2 || !hasPrefix(b[i:], "==") {
		return 0
	}
	return i + 2
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }
