package highlight

import (
	"bytes"
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
	"strings"
)

// The template table: the shapes of the hit lines, Drain-style. A line is
// cut into words; a word that holds a digit, a path or a quoted value is
// masked (<*>); lines of as many words whose first plain word is the same
// share a bucket, and a line joins the template of its bucket that it
// matches best when half its words or more are equal there (the words that
// differ become <*>), else it starts a template of its own. The table is
// bounded (maxKinds templates, maxBucket a bucket): a line that finds no
// room is counted apart. It gives the kinds of failure of an error-dense
// output (Result.Kinds) and tells a word of failure that repeats all
// through an output (a test's "no errors, 0 failed, recovered panic as
// expected" logged 200 times) from one that stands out.

const (
	bucketMisses = 256  // lines of a full bucket joining none in a row before it is skipped
	bucketSkip   = 4096 // lines of it then not compared
	maxKinds     = 256  // templates kept
	maxBucket    = 16   // templates of one bucket
	maxWords     = 40   // words of a line compared; the rest is one masked word
	maxKindShown = 10   // kinds a Result lists
	maxKindText  = 200  // bytes of a kind's text
	rareKind     = 3    // a kind of at most this many lines is rare (Group.Rare)
	// A template of words of failure only (the vocab rule) that repeats
	// more than vocabMinRepeat times and on more than one line in
	// vocabShare is the output's ordinary talk.
	vocabMinRepeat = 3
	vocabShare     = 50
	// Words of failure not shaped as a message stay rare in an output of
	// repeated shapes while they are at most rareKind lines or one line in
	// proseShare (5 "No such file" among 40,000 "fine N" lines).
	proseShare = 1000
)

// Kind is a shape of hit lines: its template (variable words masked as
// <*>), how many hit lines have it, and the first and the last of them.
type Kind struct {
	Text                string
	Count               int64
	FirstLine, LastLine int64
	Severity            Severity
	weak                bool // all its lines are words of failure only
	prose               bool // all its lines are words of failure not shaped as a message
}

// bucket is the templates of a bucketKey. misses counts the lines of a
// closed bucket (full, or the table full) that joined none of them in a
// row; past bucketMisses the bucket is not compared for its next
// bucketSkip lines (counted apart, as lines that find no room): on a log
// of random words every line misses all 16 of a bucket, and comparing
// them was a fifth of the detector's work. A bucket the full table left
// with fewer templates is skipped alike (a key=value log of many components has more buckets
// than the table has room for: a third of its work was comparing them).
type bucket struct {
	ids    []int
	misses int
}

// keyOf is the bucket of line: its number of words as hashWords cuts
// them, and the hash of its first plain word among the first three; made
// without hashing every word, so that a line of a bucket skipped costs
// little.
func keyOf(line []byte) bucketKey {
	var key bucketKey
	i, j := nextWord(line, 0)
	for ; i < len(line) && key.words < 3 && key.first == 0; i, j = nextWord(line, j) {
		if h := wordHash(line[i:j]); h != maskHash {
			key.first = h
		}
		key.words++
	}
	if i == len(line) {
		return key
	}
	// The rest is only counted: eight bytes a step, unless a word there
	// starts with a quote (a quoted value may hold spaces).
	if n, ok := countWords(line[i:]); ok {
		key.words = min(key.words+n, maxWords)
		return key
	}
	for ; i < len(line); i, j = nextWord(line, j) {
		if key.words == maxWords-1 {
			key.words++
			break
		}
		key.words++
	}
	return key
}

// SWAR constants: a byte of ones, the high bit of every byte.
const (
	swarLo = 0x0101010101010101
	swarHi = 0x8080808080808080
)

// swarEq returns the high bit of each byte of x that equals c.
func swarEq(x uint64, c byte) uint64 {
	y := x ^ (swarLo * uint64(c))
	return ^((y&^swarHi + ^uint64(swarHi)) | y | ^uint64(swarHi))
}

// countWords counts the words of b, cut at spaces and tabs, eight bytes a
// step; ok is false when one starts with a quote, which nextWord cuts
// otherwise.
func countWords(b []byte) (n int, ok bool) {
	prev := uint64(swarHi) // the byte before b counts as a space
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		sp := swarEq(x, ' ') | swarEq(x, '\t')
		starts := ^sp & swarHi & (sp<<8 | prev>>56)
		if starts&(swarEq(x, '\'')|swarEq(x, '"')|swarEq(x, '`')) != 0 {
			return 0, false
		}
		n += bits.OnesCount64(starts)
		prev = sp
	}
	wasSpace := prev>>63 != 0
	for ; i < len(b); i++ {
		c := b[i]
		space := c == ' ' || c == '\t'
		if !space && wasSpace {
			if c == '\'' || c == '"' || c == '`' {
				return 0, false
			}
			n++
		}
		wasSpace = space
	}
	return n, true
}

type bucketKey struct {
	words int
	first uint64 // the hash of its first plain word (see wordHash), 0 for none
}

// pack is the key in one word, for a map of the runtime's fast kind (a
// struct key is hashed whole, and the lookup is made for every hit line):
// the hash with its low six bits replaced by the words, which are at most
// maxWords.
func (k bucketKey) pack() uint64 { return k.first&^63 | uint64(k.words) }

// The words of a bucketKey fit in pack's six bits.
var _ [63 - maxWords]struct{}

type templates struct {
	byShape map[uint64]int // a line's shape (see shape) -> its kind
	inShape shapeSet       // the shapes byShape holds, and some more
	kinds   []Kind
	words   [][]string         // each kind's template words
	hashes  [][]uint64         // the same words hashed (see wordHash): compared, not the strings
	plain   []int              // each kind's words not masked
	noPrune bool               // compare every template of a bucket (for tests)
	buckets map[uint64]*bucket // by bucketKey.pack
	other   int64              // hit lines that found no room
	line    []uint64           // the words of the line being added, hashed, reused
	// raw are each kind's words as its lines have them, hashed
	// (rawHashes), maskHash for a word that varies among them; open
	// counts its words that may vary (see maskAt) and have not yet.
	raw     [][]uint64
	open    []int
	first   []uint64 // each kind's first line, hashed (maphash): a line equal to it varies in nothing
	lineRaw []uint64 // the raw words of the line being added, reused

	// rep: the output is one of repeated shapes (see
	// shapeCounts.repetitive), set at Finish.
	rep bool
}

// add counts the hit line n (body, without its ending, of shape h: see
// shape) of rule r, and returns the index of its kind, -1 when it found no
// room.
func (t *templates) add(n int64, body []byte, r *Rule, h uint64) int {
	if h != 0 && t.inShape.may(h) {
		if i, ok := t.byShape[h]; ok {
			t.count(i, n, r)
			if t.open[i] > 0 && maphash.Bytes(shapeSeed, body) != t.first[i] {
				// Lines of one shape differ in numbers only: mask those
				// that vary, keep those every line shares.
				t.lineRaw = rawHashes(t.lineRaw[:0], body)
				t.varies(i, t.lineRaw)
			}
			return i
		}
	}
	i := t.addNew(n, body, r)
	if i >= 0 && h != 0 {
		if t.byShape == nil || len(t.byShape) >= maxShapes {
			t.byShape = map[uint64]int{}
			t.inShape = shapeSet{}
		}
		t.byShape[h] = i
		t.inShape.add(h)
	}
	return i
}

// count adds the hit line n of rule r to kind i.
func (t *templates) count(i int, n int64, r *Rule) {
	k := &t.kinds[i]
	k.Count++
	k.LastLine = n
	k.Severity = max(k.Severity, r.Severity)
	k.weak = k.weak && r.weak()
	k.prose = k.prose && r.Name == proseRule
}

// addNew is add for a line of a shape not seen yet. The line's words are
// compared by their hashes, so that a line that joins a template (or finds
// no room) costs one pass over it and no allocation; its words are made
// strings only when it starts a template.
func (t *templates) addNew(n int64, body []byte, r *Rule) int {
	key := keyOf(body)
	if t.buckets == nil {
		t.buckets = map[uint64]*bucket{}
	}
	bk := t.buckets[key.pack()]
	if bk == nil {
		bk = &bucket{}
		t.buckets[key.pack()] = bk
	}
	// closed: the bucket takes no new template, its own being full or
	// the table's; a line joins one of its templates or finds no room.
	closed := len(bk.ids) >= maxBucket || len(t.kinds) >= maxKinds
	if closed && len(bk.ids) == 0 {
		t.other++ // nothing to join
		return -1
	}
	if closed && bk.misses >= bucketMisses {
		if bk.misses++; bk.misses >= bucketMisses+bucketSkip {
			bk.misses = 0 // compare again
		}
		t.other++
		return -1
	}
	ws := hashWords(t.line[:0], body)
	t.line = ws
	best, bestSim := -1, 0
	for _, i := range bk.ids {
		if 2*t.plain[i] < len(ws) && !t.noPrune {
			// Too few plain words to take the line (see below), and too
			// few to be the best of one that can: which is best among
			// those that cannot does not matter.
			continue
		}
		if s := similar(t.hashes[i], ws); s > bestSim {
			best, bestSim = i, s
		}
	}
	if best >= 0 && 2*bestSim >= len(ws) {
		bk.misses = 0
		t.plain[best] = merge(t.words[best], t.hashes[best], ws)
		t.lineRaw = rawHashes(t.lineRaw[:0], body)
		t.varies(best, t.lineRaw)
		t.count(best, n, r)
		return best
	}
	if closed {
		bk.misses++
		t.other++
		return -1
	}
	t.kinds = append(t.kinds, Kind{Count: 1, FirstLine: n, LastLine: n, Severity: r.Severity, weak: r.weak(), prose: r.Name == proseRule})
	words := rawWords(body)
	raw := rawHashes(nil, body)
	open := 0
	for _, w := range words {
		if _, _, masked := maskAt([]byte(w)); masked {
			open++
		}
	}
	t.words = append(t.words, words)
	t.raw = append(t.raw, raw)
	t.first = append(t.first, maphash.Bytes(shapeSeed, body))
	t.open = append(t.open, open)
	t.hashes = append(t.hashes, slices.Clone(ws))
	t.plain = append(t.plain, plainWords(ws))
	bk.ids = append(bk.ids, len(t.kinds)-1)
	return len(t.kinds) - 1
}

// noise reports whether kind i is words of failure that the output
// repeats all through it (lines lines in all), or words of failure not
// shaped as a message that are not rare in an output of repeated shapes.
func (t *templates) noise(i int, lines int64) bool {
	if i < 0 || i >= len(t.kinds) || !t.kinds[i].weak {
		return false
	}
	c := t.kinds[i].Count
	if t.kinds[i].prose && (c > rareKind && c*proseShare > lines || !t.rep) {
		return true
	}
	return c > vocabMinRepeat && c*vocabShare > lines
}

// top returns the kinds most frequent first (the first found first among
// equals), noise left out, at most maxKindShown.
func (t *templates) top(lines int64) []Kind {
	var ks []Kind
	for i := range t.kinds {
		if t.noise(i, lines) {
			continue
		}
		k := t.kinds[i]
		k.Text = strings.Join(t.words[i], " ")
		if len(k.Text) > maxKindText {
			k.Text = string(bytes.ToValidUTF8([]byte(k.Text[:maxKindText]), nil)) + "…"
		}
		ks = append(ks, k)
	}
	slices.SortStableFunc(ks, func(a, b Kind) int {
		switch {
		case a.Count != b.Count:
			return int(b.Count - a.Count)
		default:
			return int(a.FirstLine - b.FirstLine)
		}
	})
	return ks[:min(len(ks), maxKindShown)]
}

// similar counts the words of ws equal to the template's plain words.
func similar(tmpl, ws []uint64) int {
	n := 0
	for i, w := range tmpl {
		if w != maskHash && w == ws[i] {
			n++
		}
	}
	return n
}

// varies masks the words of kind i that line (its words' raw hashes)
// does not share: as the kinds of Drain, a kind masks what varies within
// it, and a status code every line of it holds stays.
func (t *templates) varies(i int, line []uint64) {
	raw, words := t.raw[i], t.words[i]
	for k := range min(len(raw), len(line)) {
		if raw[k] == maskHash || raw[k] == line[k] {
			continue
		}
		raw[k] = maskHash
		if words[k] == "<*>" {
			continue // merge masked it: its shape varies
		}
		if _, _, maskable := maskAt([]byte(words[k])); maskable {
			words[k] = maskWord([]byte(words[k]))
			t.open[i]--
		} else {
			words[k] = "<*>"
		}
	}
}

// rawWords cuts line into words as maskWords does, without masking them.
func rawWords(line []byte) []string {
	var ws []string
	for i, j := nextWord(line, 0); i < len(line); i, j = nextWord(line, j) {
		if len(ws) == maxWords-1 {
			return append(ws, "<*>")
		}
		ws = append(ws, string(line[i:j]))
	}
	return ws
}

// rawHashes appends to dst the hashes of the words rawWords makes of line.
func rawHashes(dst []uint64, line []byte) []uint64 {
	for i, j := nextWord(line, 0); i < len(line); i, j = nextWord(line, j) {
		if len(dst) == maxWords-1 {
			return append(dst, maskHash)
		}
		dst = append(dst, fnvAdd(fnvOffset, line[i:j]))
	}
	return dst
}

// merge masks the words of the template (its words and their hashes) that
// ws does not share, and returns how many are left plain.
func merge(words []string, hashes, ws []uint64) int {
	for i := range hashes {
		if hashes[i] != ws[i] {
			words[i], hashes[i] = "<*>", maskHash
		}
	}
	return plainWords(hashes)
}

// plainWords counts the words of ws that are not masked.
func plainWords(ws []uint64) int {
	n := 0
	for _, w := range ws {
		if w != maskHash {
			n++
		}
	}
	return n
}

// hashWords appends to dst the hashes of the words maskWords makes of line
// (wordHash of each), without making them. A word with no byte that
// maskAt looks for (a digit, a slash, a quote) is hashed as it is read.
func hashWords(dst []uint64, line []byte) []uint64 {
	for i := 0; ; {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			return dst
		}
		if len(dst) == maxWords-1 {
			return append(dst, maskHash)
		}
		if maskClass[line[i]]&mQuote != 0 {
			j := wordEndAt(line, i)
			dst = append(dst, wordHash(line[i:j]))
			i = j
			continue
		}
		h, seen, j := uint64(fnvOffset), uint8(0), i
		for ; j < len(line); j++ {
			c := line[j]
			m := maskClass[c]
			if m&mSpace != 0 {
				break
			}
			seen |= m
			h = (h ^ uint64(c)) * fnvPrime
		}
		if seen != 0 {
			h = wordHash(line[i:j]) // maybe masked
		}
		dst = append(dst, h)
		i = j
	}
}

// maskClass classes the bytes for hashWords: the ends of a word, and the
// bytes without which maskAt leaves a word as it is.
var maskClass = func() (t [256]uint8) {
	t[' '], t['\t'] = mSpace, mSpace
	for c := '0'; c <= '9'; c++ {
		t[c] = mDigit
	}
	t['/'], t['\\'] = mDigit, mDigit
	t['\''], t['"'], t['`'] = mQuote, mQuote, mQuote
	return t
}()

const (
	mSpace = 1 << iota
	mDigit // or a slash
	mQuote
)

// nextWord returns where the next word of line from i on starts and ends
// (see wordEndAt); len(line) when there is none.
func nextWord(line []byte, i int) (int, int) {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i == len(line) {
		return i, i
	}
	return i, wordEndAt(line, i)
}

// FNV-1a, 64 bits: the hash of a masked word.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvAdd(h uint64, b []byte) uint64 {
	for _, c := range b {
		h = (h ^ uint64(c)) * fnvPrime
	}
	return h
}

// maskHash is the hash of "<*>", a masked word.
var maskHash = fnvAdd(fnvOffset, []byte("<*>"))

// wordHash is the hash of maskWord(w), made without the string.
func wordHash(w []byte) uint64 {
	k, end, masked := maskAt(w)
	if !masked {
		return fnvAdd(fnvOffset, w)
	}
	h := fnvAdd(fnvOffset, w[:k])
	h = fnvAdd(h, []byte("<*>"))
	return fnvAdd(h, w[end:])
}

// maskWords cuts line into words, each masked when it holds a digit, a
// path or a quoted value (a quoted value of several words is one).
func maskWords(line []byte) []string {
	var ws []string
	for i, j := nextWord(line, 0); i < len(line); i, j = nextWord(line, j) {
		if len(ws) == maxWords-1 {
			return append(ws, "<*>")
		}
		ws = append(ws, maskWord(line[i:j]))
	}
	return ws
}

// wordEndAt is where the word at line[i] ends: at a space, or after the
// closing quote of a quoted value it starts with.
func wordEndAt(line []byte, i int) int {
	if q := line[i]; q == '\'' || q == '"' || q == '`' {
		if k := bytes.IndexByte(line[i+1:], closing(q)); k >= 0 {
			j := i + 1 + k + 1
			for j < len(line) && line[j] != ' ' && line[j] != '\t' {
				j++
			}
			return j
		}
	}
	j := i
	for j < len(line) && line[j] != ' ' && line[j] != '\t' {
		j++
	}
	return j
}

func closing(q byte) byte {
	if q == '`' {
		return '\''
	}
	return q
}

// maskWord masks w when it holds a digit, a path or a quoted value; a
// key=value word keeps its key.
func maskWord(w []byte) string {
	k, end, masked := maskAt(w)
	if !masked {
		return string(w)
	}
	return string(w[:k]) + "<*>" + string(w[end:])
}

// maskAt tells how maskWord masks w: when masked, w[k:end] becomes <*>,
// after a key= and opening brackets (w[:k]) and before closing punctuation
// ("(id=42)" is "(id=<*>)", "[5]" is "[<*>]").
func maskAt(w []byte) (k, end int, masked bool) {
	if i := bytes.IndexByte(w, '='); i > 0 && i < len(w)-1 {
		k = i + 1
	}
	v := w[k:]
	e := len(v)
	for e > 1 && closingPunct(v[e-1]) {
		e--
	}
	s := 0
	for s < e-1 && (v[s] == '(' || v[s] == '[' || v[s] == '{') {
		s++
	}
	v = v[s:e]
	return k + s, k + e, hasDigit(v) || isPath(v) || v[0] == '\'' || v[0] == '"' || v[0] == '`'
}

func closingPunct(c byte) bool {
	return c == ')' || c == ']' || c == '}' || c == ',' || c == ';' || c == ':'
}

func hasDigit(b []byte) bool {
	for _, c := range b {
		if isDigit(c) {
			return true
		}
	}
	return false
}
