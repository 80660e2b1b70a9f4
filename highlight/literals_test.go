package highlight

import (
	"bytes"
	"math/bits"
	"testing"
)

// oneScanLines are lines for the checks of the one-pass helpers (shapeScan,
// verify, hashWords, mayHold): every rule's samples and some of each
// keyword, digit runs and quoting.
func oneScanLines() [][]byte {
	lines := [][]byte{
		[]byte("2026-11-22T07:00:00.006Z ERROR [db] req=152958 zyutee cp vrqcnzeon not found"),
		[]byte(`src/x.go:12:5: error: "quoted value" and 'another one' at /usr/lib/a.so`),
		[]byte("eRror ERROR error Rr rR FAILED fAiL cannot Can't NO SUCH no such (core dumped)"),
		[]byte(`{"level":"error","lvl":"warn","log.level":"fatal"} level=error runtime error: Sanitizer`),
		[]byte("12 123 1234 a1b2 0xdeadbeef12 x=42 (id=7) [5] `cmd' \"unterminated"),
		[]byte("Exception in thread \"main\" java.lang.Error: Segmentation fault Killed Aborted oom-kill EMORY"),
		{}, []byte("rr"), []byte("1"), []byte("a.java:3: error TS1: x.kt: ERR_PNPM_X ELIFECYCLE"),
	}
	for _, r := range Rules() {
		for _, l := range r.Lits {
			lines = append(lines, []byte("x "+l+" y"), []byte(l))
		}
	}
	for _, k := range keywords {
		lines = append(lines, []byte("a "+k.word+" b"), bytes.ToUpper([]byte(k.word)))
	}
	return lines
}

// TestOneScan holds the one-pass helpers to what they stand for: shapeScan
// to shape and pairsIn, verify to a search for each pair, keywordScan to
// scanAnchors and shapeScan's literal pairs, matchCache.ruleIndex to
// ruleIndex, mayHold to
// hasAny (it may say true more often, never false when a literal is there).
func TestOneScan(t *testing.T) {
	for _, l := range oneScanLines() {
		checkOneScan(t, l)
	}
	for _, l := range fastLines(t) { // the corpus's lines and logs
		checkOneScan(t, l)
	}
}

func FuzzOneScan(f *testing.F) {
	for _, l := range oneScanLines() {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkOneScan(t, line)
	})
}

// oneScanCache keeps its lists of rules tried (matchCache.tried) from one
// line to the next, as a detector does.
var oneScanCache = newMatchCache()

func checkOneScan(t *testing.T, line []byte) {
	t.Helper()
	Rules() // fills litBits
	h, set, lits := shapeScan(line)
	if want := shape(line, 0); h != want {
		t.Errorf("%q: shapeScan's shape %x, shape %x", line, h, want)
	}
	if want := pairsIn(line); set != want {
		t.Errorf("%q: shapeScan's anchors %b, pairsIn %b", line, set, want)
	}
	if got, want := verify(line, set), verifyBySearch(line, set); got != want {
		t.Errorf("%q: verify %b, by search %b", line, got, want)
	}
	if m, klits := keywordScan(line); m != scanAnchors(line, set) || klits != lits {
		t.Errorf("%q: keywordScan %b, %b; scanAnchors %b, shapeScan's literal pairs %b", line, m, klits, scanAnchors(line, set), lits)
	}
	m := scanAnchors(line, set)
	if got, want := oneScanCache.ruleIndex(line, m, lits), ruleIndex(line, m, lits); got != want {
		t.Errorf("%q: the rules tried by keywords and first byte find rule %d, all of them %d", line, got, want)
	}
	for i := range Rules() {
		r := &Rules()[i]
		if hasAny(line, r.Lits) && !r.mayHold(line, lits) {
			t.Errorf("%q: rule %s: mayHold false, but it holds one of %q", line, r.Name, r.Lits)
		}
	}
	got := hashWords(nil, line)
	var want []uint64
	for _, w := range maskWords(line) {
		want = append(want, fnvAdd(fnvOffset, []byte(w)))
	}
	if len(got) != len(want) {
		t.Fatalf("%q: hashWords %d words, maskWords %d", line, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%q: word %d: hashWords %x, hash of maskWords' %q %x", line, i, got[i], maskWords(line)[i], want[i])
		}
	}
}

// verifyBySearch is verify as it was: a search for each pair of each anchor.
func verifyBySearch(line []byte, set uint32) kw {
	var m kw
	for ; set != 0; set &= set - 1 {
		an := &anchors[bits.TrailingZeros32(set)]
		if an.keys == nil {
			continue
		}
		for _, pair := range an.pairs {
			for off := 0; ; {
				i := bytes.Index(line[off:], pair)
				if i < 0 {
					break
				}
				m |= keysAt(line, off+i, an.keys)
				off += i + 1
			}
		}
	}
	return m
}

// TestLiteralPairs: every literal of the rules has a pair in litBits (the
// table has room for all of them), so that no rule searches for nothing.
func TestLiteralPairs(t *testing.T) {
	for _, r := range Rules() {
		if r.litAny {
			t.Errorf("rule %s: a literal without a pair: it always searches", r.Name)
		}
		if len(r.Lits) > 0 && r.litMask == 0 {
			t.Errorf("rule %s: literals %q, no bits", r.Name, r.Lits)
		}
	}
}
