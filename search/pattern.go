package search

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

// Query is what a grep looks for.
type Query struct {
	// Pattern is an RE2 regular expression (Go's regexp syntax), or a plain
	// string when Literal is set.
	Pattern string
	// Literal matches Pattern as it is written.
	Literal bool
	// IgnoreCase matches without regard to case (Unicode simple folding).
	IgnoreCase bool
}

// Matcher finds the lines that match a Query. A line matches when the
// pattern matches within it: ^ and $ match at its ends (a CRLF line's \r
// does not stand in the way of $), and no match spans two lines. A Matcher
// is immutable and safe for concurrent use.
type Matcher struct {
	re *regexp.Regexp
	// lit is a string that every matching line contains, searched with
	// bytes.Index over a whole buffer before any line is split: most
	// patterns name one, and most lines of a tree lack it.
	lit []byte
	// fold: lit is lower-case ASCII, compared without regard to case.
	fold bool
	// pure: a line that holds lit matches, so re need not run.
	pure bool
	// also are other literals every matching line holds (case-sensitive),
	// looked for in a line that holds lit before re runs on it: in
	// 'static int \w+_probe\(' most lines with "static int " lack "_probe(".
	also [][]byte
	// find searches for lit.
	find litFinder
}

// Compile checks q and returns its Matcher. A bad pattern gives a
// *syntax.Error.
func Compile(q Query) (*Matcher, error) {
	pat := q.Pattern
	if q.Literal {
		pat = regexp.QuoteMeta(pat)
	}
	// Multi-line mode, so that ^ and $ match at line ends in a buffer of many
	// lines; without ClassNL, [^a] and \s cannot reach into the next line.
	flags := syntax.Perl &^ (syntax.OneLine | syntax.ClassNL)
	if q.IgnoreCase {
		flags |= syntax.FoldCase
	}
	tree, err := syntax.Parse(pat, flags)
	if err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	crlf := endLinesTakeCR(tree)
	re, err := regexp.Compile(tree.String())
	if err != nil {
		return nil, err
	}
	m := &Matcher{re: re}
	lit, fold := required(tree)
	cut := false
	if fold && !foldsASCII(lit) {
		// A fold into non-ASCII (k, K; s, ſ) the byte search would miss:
		// search for the longest piece of a required literal without one.
		lit, fold = longestSafe(tree)
		cut = true
	}
	if len(lit) > 0 && !containsRune(lit, '\n') {
		m.lit = []byte(string(lit))
		if fold {
			m.lit = bytes.ToLower(m.lit)
		}
		m.fold = fold
		m.pure = !cut && !crlf && isLiteral(tree)
		if !m.pure {
			m.also = otherLiterals(tree, m.lit)
			m.rarest()
		}
		m.find = newLitFinder(m.lit, m.fold)
	}
	return m, nil
}

// endLinesTakeCR rewrites each $ of tree into \r?$, so that a CRLF line
// ends where $ looks for its end; it reports whether there was any.
func endLinesTakeCR(re *syntax.Regexp) bool {
	found := false
	for i, sub := range re.Sub {
		if sub.Op == syntax.OpEndLine {
			cr := &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{'\r'}}
			re.Sub[i] = &syntax.Regexp{Op: syntax.OpConcat, Sub: []*syntax.Regexp{
				{Op: syntax.OpQuest, Sub: []*syntax.Regexp{cr}}, sub,
			}}
			found = true
			continue
		}
		found = endLinesTakeCR(sub) || found
	}
	if re.Op == syntax.OpEndLine {
		// A pattern that is only $: it matches every line anyway.
		found = true
	}
	return found
}

// isLiteral reports whether re matches exactly one string (perhaps folded).
func isLiteral(re *syntax.Regexp) bool {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	return re.Op == syntax.OpLiteral
}

// required returns the longest literal that every match of re contains,
// and whether it is compared without regard to case.
func required(re *syntax.Regexp) (lit []rune, fold bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var run []rune
		runFold := false
		take := func(l []rune, f bool) {
			if len(l) > len(lit) {
				lit, fold = l, f
			}
		}
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				run = append(run, sub.Rune...)
				runFold = runFold || sub.Flags&syntax.FoldCase != 0
				continue
			}
			take(run, runFold)
			run, runFold = nil, false
			take(required(sub))
		}
		take(run, runFold)
		return lit, fold
	}
	return nil, false
}

// literals appends every literal that every match of re contains, as
// required finds them, each with whether it is folded.
func literals(re *syntax.Regexp, out *[]foldLit) {
	switch re.Op {
	case syntax.OpLiteral:
		*out = append(*out, foldLit{re.Rune, re.Flags&syntax.FoldCase != 0})
	case syntax.OpCapture, syntax.OpPlus:
		literals(re.Sub[0], out)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			literals(re.Sub[0], out)
		}
	case syntax.OpConcat:
		var run foldLit
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				run.r = append(run.r, sub.Rune...)
				run.fold = run.fold || sub.Flags&syntax.FoldCase != 0
				continue
			}
			*out = append(*out, run)
			run = foldLit{}
			literals(sub, out)
		}
		*out = append(*out, run)
	}
}

// otherLiterals returns the case-sensitive literals of at least three
// bytes that every match of re holds, but lit.
func otherLiterals(re *syntax.Regexp, lit []byte) [][]byte {
	var lits []foldLit
	literals(re, &lits)
	var out [][]byte
	for _, l := range lits {
		if b := []byte(string(l.r)); !l.fold && len(b) >= 3 && !bytes.Equal(b, lit) && !containsRune(l.r, '\n') {
			out = append(out, b)
		}
	}
	return out
}

// rarest makes the literal of m.also whose rarest byte is rarer than
// lit's the one searched first: in 'static int \w+_probe\(' every byte of
// "static int " is common, and '(' or 'b' of "_probe(" far less so. lit
// joins also unless it is folded (also is compared with case).
func (m *Matcher) rarest() {
	best, cost := -1, newLitFinder(m.lit, m.fold).cost1
	for i, a := range m.also {
		if c := newLitFinder(a, false).cost1; c < cost {
			best, cost = i, c
		}
	}
	if best < 0 {
		return
	}
	lit, fold := m.lit, m.fold
	m.lit, m.fold = m.also[best], false
	m.also = append(m.also[:best:best], m.also[best+1:]...)
	if !fold {
		m.also = append(m.also, lit)
	}
}

// hasAlso reports whether line holds every literal of m.also.
func (m *Matcher) hasAlso(line []byte) bool {
	for _, a := range m.also {
		if !bytes.Contains(line, a) {
			return false
		}
	}
	return true
}

type foldLit struct {
	r    []rune
	fold bool
}

// longestSafe returns the longest piece of a required literal that a
// byte search finds: a folded literal is cut where a rune folds beyond
// ASCII.
func longestSafe(re *syntax.Regexp) ([]rune, bool) {
	var lits []foldLit
	literals(re, &lits)
	var best []rune
	bestFold := false
	for _, l := range lits {
		start := 0
		for i := 0; i <= len(l.r); i++ {
			if i < len(l.r) && (!l.fold || foldsASCII(l.r[i:i+1])) {
				continue
			}
			if i-start > len(best) {
				best, bestFold = l.r[start:i], l.fold
			}
			start = i + 1
		}
	}
	return best, bestFold
}

// foldsASCII reports whether lit folds only to ASCII: ASCII, without k or s,
// whose folds include the Kelvin sign and the long s.
func foldsASCII(lit []rune) bool {
	for _, r := range lit {
		switch {
		case r >= utf8.RuneSelf, r == 'k', r == 'K', r == 's', r == 'S':
			return false
		}
	}
	return true
}

func containsRune(rs []rune, c rune) bool {
	for _, r := range rs {
		if r == c {
			return true
		}
	}
	return false
}

// next returns the bounds of the first matching line at or after pos, a
// line start: buf[start:end] without its '\n'. ok is false when no line
// of buf[pos:] matches.
func (m *Matcher) next(buf []byte, pos int) (start, end int, ok bool) {
	for pos < len(buf) {
		var at, stop int
		if m.lit != nil {
			i := m.index(buf[pos:])
			if i < 0 {
				return 0, 0, false
			}
			at, stop = pos+i, -1
		} else {
			loc := m.re.FindIndex(buf[pos:])
			if loc == nil {
				return 0, 0, false
			}
			at, stop = pos+loc[0], pos+loc[1]
		}
		start = pos + bytes.LastIndexByte(buf[pos:at], '\n') + 1
		end = len(buf)
		if j := bytes.IndexByte(buf[at:], '\n'); j >= 0 {
			end = at + j
		}
		if m.pure || stop >= 0 && stop <= end || m.hasAlso(buf[start:end]) && m.re.Match(buf[start:end]) {
			return start, end, true
		}
		pos = end + 1
	}
	return 0, 0, false
}

// matchLine reports whether line (without its '\n') matches.
func (m *Matcher) matchLine(line []byte) bool {
	if m.lit != nil && m.index(line) < 0 {
		return false
	}
	return m.pure || m.hasAlso(line) && m.re.Match(line)
}

func (m *Matcher) index(b []byte) int {
	return m.find.index(b)
}
