package highlight

// The prefilter decides, in one pass over a line's bytes, which keywords the
// line holds, so that no regexp runs on the lines that hold none (nearly all
// of them). It looks for anchor bigrams, case-folded, through a 64 Ki-bit
// table, and checks the keyword around each anchor; line-start markers that
// hold no keyword (pytest's "E   ", klog's "E1122", "●", "not ok") are
// checked once per line.

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
	kKilled                // killed
	kSegv                  // segmentation
	kAbort                 // aborted
	kGoFile                // ".go:"
	kLevel                 // a JSON "level" key whose value says error or fatal
	kMemory                // memory
	kStart                 // a line-start marker (see startMarks)
)

// keyword is a case-folded word and the bigram of it that anchors the search.
type keyword struct {
	word   string
	anchor int // index of the anchor bigram in word
	bit    kw
}

// keywords: each anchor is a bigram that is rare in ordinary output.
var keywords = []keyword{
	{"err", 1, kErr},
	{"fail", 0, kFail},
	{"fatal", 0, kFatal},
	{"panic", 3, kPanic},
	{"warn", 0, kWarn},
	{"exception", 1, kExcept},
	{"critical", 4, kCrit},
	{"killed", 0, kKilled},
	{"segmentation", 2, kSegv},
	{"aborted", 1, kAbort},
	{".go:", 0, kGoFile},
	{`"level"`, 0, kLevel},
	{`"lvl"`, 0, kLevel},
	{"memory", 4, kMemory},
}

// anchors is a bit per folded bigram (first byte << 8 | second).
var anchors [1 << 16 / 64]uint64

// byAnchor lists the keywords of each anchor bigram.
var byAnchor = map[uint16][]keyword{}

func init() {
	for _, k := range keywords {
		a := uint16(fold(k.word[k.anchor]))<<8 | uint16(fold(k.word[k.anchor+1]))
		anchors[a>>6] |= 1 << (a & 63)
		byAnchor[a] = append(byAnchor[a], k)
	}
}

// fold maps ASCII upper case to lower case; other bytes are kept.
func fold(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// lower is fold as a table, for the scan loop.
var lower [256]byte

func init() {
	for i := range lower {
		lower[i] = fold(byte(i))
	}
}

// scan returns the keywords of line (without its ending).
func scan(line []byte) kw {
	var m kw
	if len(line) > 0 {
		m = startMarks(line)
	}
	if len(line) < 2 {
		return m
	}
	prev := uint16(lower[line[0]])
	for i := 1; i < len(line); i++ {
		cur := uint16(lower[line[i]])
		a := prev<<8 | cur
		prev = cur
		if anchors[a>>6]&(1<<(a&63)) == 0 {
			continue
		}
		for _, k := range byAnchor[a] {
			if at := i - 1 - k.anchor; at >= 0 && hasFold(line[at:], k.word) {
				if k.bit == kLevel && !badLevel(line[at+len(k.word):]) {
					continue
				}
				m |= k.bit
			}
		}
	}
	return m
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
