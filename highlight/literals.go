package highlight

import (
	"math/bits"
	"slices"
	"strings"
)

// The rules' literals (Rule.Lits) are a cheap check before a regexp, but a
// line that reaches the rules runs a search for each literal of each rule
// its keywords name: on an error-dense log, fifteen searches a line, a
// sixth of the detector's time. A literal cannot be in a line that lacks
// one of its byte pairs; litPairs picks, for each literal, its pair least
// likely in ordinary text, and the pass that hashes a line's shape (see
// shapeScan) notes which of those pairs it holds, as the prefilter notes
// its anchors. A rule whose literals' pairs are all missing is ruled out
// without a search; the others search as before, so nothing else changes.

// litPairs holds the literals' pairs: litBits[c] has bit k in its low half
// when c is the first byte of literal k's pair, in its high half when it is
// the second (as pairBits). Literals past the 32nd have no bit: their rules
// always search.
var litBits [256]uint64

// ruleLits sets the literal bits of each rule of rs (Rule.litMask) and
// fills litBits.
func ruleLits(rs []Rule) {
	var lits []string
	for i := range rs {
		r := &rs[i]
		for _, l := range r.Lits {
			k := slices.Index(lits, l)
			if k < 0 {
				lits = append(lits, l)
				k = len(lits) - 1
			}
			if k >= 32 || len(l) < 2 {
				r.litAny = true // no filter: search
				continue
			}
			r.litMask |= 1 << k
		}
	}
	for k, l := range lits[:min(len(lits), 32)] {
		if len(l) < 2 {
			continue
		}
		p := rarePair(l)
		litBits[l[p]] |= 1 << k
		litBits[l[p+1]] |= 1 << (32 + k)
	}
}

// letterOrder is English letters, most frequent first.
const letterOrder = "etaoinsrhldcumfpgwybvkxjqz"

// byteCost guesses how common c is in ordinary output: spaces and
// frequent lower-case letters most, punctuation least.
func byteCost(c byte) int {
	switch {
	case c == ' ':
		return 40
	case 'a' <= c && c <= 'z':
		return 30 - strings.IndexByte(letterOrder, c)
	case '0' <= c && c <= '9':
		return 15
	case 'A' <= c && c <= 'Z':
		return 10
	}
	return 0
}

// rarePair returns where the pair of l least likely in ordinary text
// starts (the first of equals).
func rarePair(l string) int {
	best, cost := 0, 1<<30
	for i := 0; i+1 < len(l); i++ {
		if c := byteCost(l[i]) + byteCost(l[i+1]); c < cost {
			best, cost = i, c
		}
	}
	return best
}

// mayHold reports whether line may hold one of r's literals, lits being
// the literal pairs line holds (see shapeScan): false only when it holds
// none; true, too, for a rule without literals.
func (r *Rule) mayHold(line []byte, lits uint32) bool {
	if len(r.Lits) == 0 {
		return true
	}
	if r.litMask&lits == 0 && !r.litAny {
		return false
	}
	return hasAny(line, r.Lits)
}

// shapeScan makes in one pass over line what shape, pairsIn and the
// literal pairs would make in three: its shape (shape(line, 0), the same
// value), the prefilter's anchors and the rules' literal pairs it holds.
// Rules must have been called (it fills litBits).
func shapeScan(line []byte) (h uint64, anchors, lits uint32) {
	const prime = 1099511628211
	h = 14695981039346656037
	var acc, prev, lacc, lprev uint64
	prev = 0 // no anchor starts before the line (as pairsIn)
	run := 0 // digits seen and not yet hashed
	for i, c := range line {
		t, u := pairBits[c], litBits[c]
		acc |= prev & (t >> 32)
		lacc |= lprev & (u >> 32)
		prev, lprev = t, u
		if isDigit(c) {
			run++
			continue
		}
		if run > 0 {
			h = hashDigits(h, line[i-run:i])
			run = 0
		}
		h = (h ^ uint64(c)) * prime
	}
	if run > 0 {
		h = hashDigits(h, line[len(line)-run:])
	}
	return h, uint32(acc), uint32(lacc)
}

// keywordScan is what a matchCache that is bypassed needs of line, in one
// pass: its keywords, scanAnchors(line, pairsIn(line)), and the literal
// pairs it holds. It checks the keywords of every anchor that it meets,
// as verify does of the anchors of a set found by a pass before.
func keywordScan(line []byte) (kw, uint32) {
	var m kw
	if len(line) > 0 {
		m = startMarks(line)
	}
	var prev, lacc, lprev uint64
	for i, c := range line {
		t, u := pairBits[c], litBits[c]
		lacc |= lprev & (u >> 32)
		hit := uint32(prev&(t>>32)) & keyedAnchors
		prev, lprev = t, u
		for ; hit != 0; hit &= hit - 1 {
			an := &anchors[bits.TrailingZeros32(hit)]
			if an.has(line[i-1], c) {
				m |= keysAt(line, i-1, an.keys)
			}
		}
	}
	return m, uint32(lacc)
}

// hashDigits adds a run of digits to the shape hash h as shape does: a run
// of three or more as its length, a shorter one byte by byte.
func hashDigits(h uint64, run []byte) uint64 {
	const prime = 1099511628211
	if len(run) >= 3 {
		return (h ^ 0x100 ^ uint64(len(run))) * prime
	}
	for _, c := range run {
		h = (h ^ uint64(c)) * prime
	}
	return h
}
