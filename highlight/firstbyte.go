package highlight

import (
	"regexp/syntax"
	"unicode/utf8"
)

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(c byte)      { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool { return s[c>>6]&(1<<(c&63)) != 0 }

func addRange(s *byteSet, lo, hi byte) {
	for c := int(lo); c <= int(hi); c++ {
		s.add(byte(c))
	}
}

// firstBytes returns the bytes a match of the expression expr can start
// with when it is anchored at the start of the text (it begins with ^),
// a superset of them; nil when it is not anchored or may match the empty
// string, where no byte can be ruled out. Ruling out a line by its first
// byte spares the regexp's call, whose setting up costs more than most
// lines' matching: a line that starts with a timestamp is none of the
// rules that want "error:", "FAIL", "[ERROR]" or a space first.
func firstBytes(expr string) *byteSet {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText {
		return nil
	}
	var s byteSet
	if nullable := first(&syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[1:]}, &s); nullable {
		return nil
	}
	return &s
}

// first adds to s the bytes a match of re may start with, and reports
// whether re may match the empty string. Where unsure it says more: a
// zero-width assertion is taken as empty, any rune beyond ASCII (or a
// case-folded letter, which folds to some) as any byte of 0x80 or more,
// which also covers invalid UTF-8, matched as U+FFFD.
func first(re *syntax.Regexp, s *byteSet) bool {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return true
		}
		addRune(s, re.Rune[0], re.Flags&syntax.FoldCase != 0)
		return false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if lo < utf8.RuneSelf {
				addRange(s, byte(lo), byte(min(hi, utf8.RuneSelf-1)))
			}
			if hi >= utf8.RuneSelf {
				addRange(s, 0x80, 0xff)
			}
		}
		return false
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		addRange(s, 0, 0xff)
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return first(re.Sub[0], s)
	case syntax.OpStar, syntax.OpQuest:
		first(re.Sub[0], s)
		return true
	case syntax.OpRepeat:
		return first(re.Sub[0], s) || re.Min == 0
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !first(sub, s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		nullable := false
		for _, sub := range re.Sub {
			nullable = first(sub, s) || nullable
		}
		return nullable
	case syntax.OpNoMatch:
		return false
	}
	// Empty, the assertions (^ $ \b \B ...): zero width.
	return true
}

// addRune adds the first byte of r, in both cases when fold.
func addRune(s *byteSet, r rune, fold bool) {
	if r >= utf8.RuneSelf || fold {
		addRange(s, 0x80, 0xff)
	}
	if r < utf8.RuneSelf {
		s.add(byte(r))
		if fold {
			s.add(lower[byte(r)])
			if 'a' <= r && r <= 'z' {
				s.add(byte(r) - 'a' + 'A')
			}
		}
		return
	}
	var b [utf8.UTFMax]byte
	utf8.EncodeRune(b[:], r)
	s.add(b[0])
}
