package index

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A Query says which trigrams a file must hold for a pattern to match in
// it: an AND or an OR of trigrams and of sub-queries, as codesearch's
// index/regexp.go builds it from the pattern's RE2 syntax tree. Trigrams
// are of ASCII-lower-cased bytes, as the index stores them, so one query
// serves a pattern with or without ignoreCase. A nil *Query (or OpAll)
// matches every file: the pattern has no trigram and grep scans.
type Query struct {
	Op       QueryOp
	Trigrams []uint32 // all (OpAnd) or any (OpOr) of these
	Sub      []*Query // and all (OpAnd) or any (OpOr) of these
}

// QueryOp is a Query's operator.
type QueryOp int

const (
	// OpAll matches every file.
	OpAll QueryOp = iota
	// OpAnd needs every trigram and sub-query.
	OpAnd
	// OpOr needs one trigram or sub-query.
	OpOr
)

// maxExact bounds the strings an exact set keeps before it is turned into
// trigrams (codesearch keeps 16).
const maxExact = 16

// Parse flags: those of search.Compile (line by line, no class reaching
// into the next line), so that the query is made from the tree the
// scanner matches with.
const parseFlags = syntax.Perl &^ (syntax.OneLine | syntax.ClassNL)

// QueryFor returns the trigram query of a grep's pattern, or nil when it
// has none (or does not parse: the scanner refuses it first).
func QueryFor(pattern string, literal, ignoreCase bool) *Query {
	if literal {
		pattern = regexp.QuoteMeta(pattern)
	}
	flags := parseFlags
	if ignoreCase {
		flags |= syntax.FoldCase
	}
	re, err := syntax.Parse(pattern, flags)
	if err != nil {
		return nil
	}
	return analyze(re.Simplify()).query().simplify()
}

// info is what a sub-expression says about its matches: either the
// exact set of strings it matches (exact != nil), or a query every match
// satisfies.
type info struct {
	exact []string
	q     *Query
}

func anyInfo() info { return info{q: &Query{Op: OpAll}} }

func exactInfo(s ...string) info { return info{exact: s} }

// query returns the query of i's matches.
func (i info) query() *Query {
	if i.exact != nil {
		return orExact(i.exact)
	}
	return i.q
}

func analyze(re *syntax.Regexp) info {
	fold := re.Flags&syntax.FoldCase != 0
	switch re.Op {
	case syntax.OpNoMatch, syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine,
		syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return exactInfo("")
	case syntax.OpLiteral:
		return literalInfo(re.Rune, fold)
	case syntax.OpCharClass:
		return classInfo(re.Rune)
	case syntax.OpCapture:
		return analyze(re.Sub[0])
	case syntax.OpPlus:
		return info{q: analyze(re.Sub[0]).query()}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return info{q: analyze(re.Sub[0]).query()}
		}
	case syntax.OpConcat:
		return concatInfo(re.Sub)
	case syntax.OpAlternate:
		return alternateInfo(re.Sub)
	}
	return anyInfo() // ., *, ?, {0,n}
}

// literalInfo is a literal's exact strings: each rune lower-cased when
// ASCII (as the index stores bytes), and when folded, every rune of its
// fold orbit (k: k and the Kelvin sign). U+FFFD also matches an invalid
// byte: it asks for nothing.
func literalInfo(rs []rune, fold bool) info {
	parts := make([]info, 0, len(rs))
	for _, r := range rs {
		if r == utf8.RuneError {
			parts = append(parts, anyInfo())
			continue
		}
		alts := []string{lowerASCII(string(r))}
		if fold {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				alts = append(alts, lowerASCII(string(f)))
			}
		}
		parts = append(parts, exactInfo(dedupe(alts)...))
	}
	return concat(parts)
}

// foldsASCII: r's case folds are all ASCII (not k, s or beyond ASCII).
func foldsASCII(r rune) bool {
	switch {
	case r >= utf8.RuneSelf, r == 'k', r == 'K', r == 's', r == 'S':
		return false
	}
	return true
}

// classInfo is a small class's characters as an exact set.
func classInfo(ranges []rune) info {
	var set []string
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if len(set) >= maxExact || r == utf8.RuneError {
				return anyInfo()
			}
			set = append(set, lowerASCII(string(r)))
		}
	}
	return exactInfo(dedupe(set)...)
}

func concatInfo(subs []*syntax.Regexp) info {
	parts := make([]info, len(subs))
	for i, sub := range subs {
		parts[i] = analyze(sub)
	}
	return concat(parts)
}

// concat joins the parts: exact sets are crossed while they stay small; a
// part with no exact set (or a set grown too large) ends the run, whose
// trigrams join the query.
func concat(parts []info) info {
	and := &Query{Op: OpAnd}
	run := []string{""}
	exact := true // the whole concat is still exact
	flush := func() {
		if run != nil {
			and.Sub = append(and.Sub, orExact(run))
		}
		run = nil
	}
	for _, si := range parts {
		if si.exact == nil {
			exact = false
			flush()
			and.Sub = append(and.Sub, si.q)
			continue
		}
		if run == nil {
			run = []string{""}
		}
		if len(run)*len(si.exact) > maxExact {
			exact = false
			flush()
			run = slices.Clone(si.exact)
			continue
		}
		run = cross(run, si.exact)
	}
	if exact {
		return exactInfo(run...)
	}
	flush()
	return info{q: and}
}

func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	return dedupe(out)
}

func alternateInfo(subs []*syntax.Regexp) info {
	var set []string
	exact := true
	or := &Query{Op: OpOr}
	for _, sub := range subs {
		si := analyze(sub)
		if exact && si.exact != nil && len(set)+len(si.exact) <= maxExact {
			set = append(set, si.exact...)
			continue
		}
		exact = false
		or.Sub = append(or.Sub, si.query())
	}
	if exact {
		return exactInfo(dedupe(set)...)
	}
	if len(set) > 0 {
		or.Sub = append(or.Sub, orExact(set))
	}
	return info{q: or}
}

// orExact: a file holds one of the strings, so all the trigrams of one of
// them; a string shorter than three bytes asks for nothing.
func orExact(set []string) *Query {
	or := &Query{Op: OpOr}
	for _, s := range set {
		q := andStrings([]string{s})
		if q.Op == OpAll {
			return q
		}
		or.Sub = append(or.Sub, q)
	}
	if len(or.Sub) == 0 {
		return &Query{Op: OpAll}
	}
	return or
}

// andStrings asks for every trigram of each string (lower-cased).
func andStrings(ss []string) *Query {
	q := &Query{Op: OpAnd}
	for _, s := range ss {
		s = lowerASCII(s)
		for i := 0; i+3 <= len(s); i++ {
			q.Trigrams = append(q.Trigrams, tri(s[i], s[i+1], s[i+2]))
		}
	}
	if len(q.Trigrams) == 0 {
		return &Query{Op: OpAll}
	}
	return q
}

// simplify drops what asks for nothing: an OpAll in an AND, an OR with an
// OpAll; nil stands for OpAll.
func (q *Query) simplify() *Query {
	if q == nil || q.Op == OpAll {
		return nil
	}
	var subs []*Query
	for _, s := range q.Sub {
		s = s.simplify()
		switch {
		case s == nil && q.Op == OpOr:
			return nil
		case s == nil:
		case s.Op == q.Op: // and(a and(b)) is and(a b)
			q.Trigrams = append(q.Trigrams, s.Trigrams...)
			subs = append(subs, s.Sub...)
		case len(s.Trigrams) == 1 && len(s.Sub) == 0: // one trigram: either op
			q.Trigrams = append(q.Trigrams, s.Trigrams...)
		default:
			subs = append(subs, s)
		}
	}
	q.Sub = subs
	slices.Sort(q.Trigrams)
	q.Trigrams = slices.Compact(q.Trigrams)
	if len(q.Trigrams) == 0 && len(q.Sub) == 0 {
		return nil
	}
	if len(q.Trigrams) == 0 && len(q.Sub) == 1 {
		return q.Sub[0]
	}
	return q
}

// String renders q for tests and logs: and(abc def or(...)).
func (q *Query) String() string {
	if q == nil || q.Op == OpAll {
		return "all"
	}
	var parts []string
	for _, t := range q.Trigrams {
		parts = append(parts, string([]byte{byte(t >> 16), byte(t >> 8), byte(t)}))
	}
	for _, s := range q.Sub {
		parts = append(parts, s.String())
	}
	op := "and"
	if q.Op == OpOr {
		op = "or"
	}
	return op + "(" + strings.Join(parts, " ") + ")"
}

// key is q as a map key: unlike String, which prints trigrams as their
// bytes (a space or a parenthesis among them), it is one query's alone.
func (q *Query) key() string {
	if q == nil || q.Op == OpAll {
		return "*"
	}
	b := []byte{'&'}
	if q.Op == OpOr {
		b[0] = '|'
	}
	b = append(b, '(')
	for _, t := range q.Trigrams {
		b = strconv.AppendUint(b, uint64(t), 16)
		b = append(b, ',')
	}
	for _, s := range q.Sub {
		b = append(append(b, s.key()...), ',')
	}
	return string(append(b, ')'))
}

func tri(a, b, c byte) uint32 { return uint32(a)<<16 | uint32(b)<<8 | uint32(c) }

// lowerByte folds ASCII upper case, as the index does.
func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerByte(c)
	}
	return string(b)
}

func dedupe(ss []string) []string {
	slices.Sort(ss)
	return slices.Compact(ss)
}
