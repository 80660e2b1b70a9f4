package search

import "bytes"

// litFinder finds a literal in a buffer by its rarest byte, as ripgrep's
// memchr does: bytes.IndexByte (vectorised) jumps to each place that byte
// could sit, and a second rare byte is checked there before the whole
// literal. bytes.Index looks for the first byte instead, which in code is
// often common ('E' of EXPORT_SYMBOL, 'o' of "out of memory"), and stops
// at each.
type litFinder struct {
	lit []byte // lower-case ASCII when fold
	// fold: compared without regard to ASCII case.
	fold bool
	// c1 is the rarest byte of lit, at o1 (lower case when fold), c1up its
	// upper case (c1 itself when it has none); c2 the next rarest, at o2.
	o1, o2   int
	c1, c1up byte
	c2       byte
	cost1    int
}

// passCost is what one more pass of bytes.IndexByte over a buffer costs,
// in candidates a million bytes: a folded letter takes two passes, one for
// each case, and a pass costs about what 3,000 candidate stops a megabyte
// cost (0.05 ns a byte against 15 ns a stop).
const passCost = 3000

// byteCost is the cost of searching for c: how often it occurs, both cases
// when folded, and one pass for each case.
func byteCost(c byte, fold bool) int {
	if up := upper(c); fold && up != c {
		return int(byteFreq[c]+byteFreq[up]) + 2*passCost
	}
	return int(byteFreq[c]) + passCost
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// newLitFinder readies the search for lit (lower-case ASCII when fold).
func newLitFinder(lit []byte, fold bool) litFinder {
	f := litFinder{lit: lit, fold: fold}
	if len(lit) == 0 {
		return f
	}
	best, second := 0, -1
	for i := 1; i < len(lit); i++ {
		c := byteCost(lit[i], fold)
		switch {
		case c < byteCost(lit[best], fold):
			best, second = i, best
		case second < 0 || c < byteCost(lit[second], fold):
			second = i
		}
	}
	if second < 0 {
		second = best
	}
	f.o1, f.c1, f.o2, f.c2 = best, lit[best], second, lit[second]
	f.c1up = f.c1
	if fold {
		f.c1up = upper(f.c1)
	}
	f.cost1 = byteCost(f.c1, fold)
	return f
}

// index is the offset of the first lit in s, or -1.
func (f *litFinder) index(s []byte) int {
	n := len(f.lit)
	switch {
	case n == 0:
		return 0
	case f.fold:
		return f.indexFold(s)
	case n == 1:
		return bytes.IndexByte(s, f.c1)
	}
	fails := 0
	for i := 0; i+n <= len(s); {
		// c1 at i+o1 and after, where a whole lit still fits.
		j := bytes.IndexByte(s[i+f.o1:len(s)-n+f.o1+1], f.c1)
		if j < 0 {
			return -1
		}
		i += j
		if s[i+f.o2] == f.c2 && bytes.Equal(s[i:i+n], f.lit) {
			return i
		}
		i++
		// The rare byte is not rare here: bytes.Index's own fallbacks
		// bound the work better.
		if fails++; fails > 16 && fails > i>>5 {
			if k := bytes.Index(s[i:], f.lit); k >= 0 {
				return i + k
			}
			return -1
		}
	}
	return -1
}

// indexFold is index for a folded lit: it looks for both cases of c1,
// remembering where each occurs next so that no byte is scanned twice for
// it.
func (f *litFinder) indexFold(s []byte) int {
	n := len(f.lit)
	none := len(s) // no candidate: past every start a lit fits at
	lim := s[:max(len(s)-n+f.o1+1, 0)]
	lo, up := -1, -1
	if f.c1up == f.c1 {
		up = none
	}
	for i := 0; i+n <= len(s); {
		if lo < i {
			lo = f.candidate(lim, f.c1, i, none)
		}
		if up < i {
			up = f.candidate(lim, f.c1up, i, none)
		}
		i = min(lo, up)
		if i == none {
			return -1
		}
		if lower(s[i+f.o2]) == f.c2 && equalFold(s[i:i+n], f.lit) {
			return i
		}
		i++
	}
	return -1
}

// candidate is the first start at or after i where c sits at o1, with lim
// the part of the buffer c is looked for in; none when there is none.
func (f *litFinder) candidate(lim []byte, c byte, i, none int) int {
	if k := bytes.IndexByte(lim[i+f.o1:], c); k >= 0 {
		return i + k
	}
	return none
}

// equalFold compares s with lower-case ASCII lit, ignoring ASCII case.
func equalFold(s, lit []byte) bool {
	for i, c := range lit {
		if lower(s[i]) != c {
			return false
		}
	}
	return true
}
