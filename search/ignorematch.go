package search

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// An ignoreLayer is one ignore file compiled into sets, so that the cost
// of matching an entry does not grow with the number of its patterns (as
// ripgrep's globset does): literal names and paths in maps, "*.ext" by
// extension, other "*suffix" and "prefix*" in short lists, and the rest of
// the name globs behind one combined regexp that rules out most names at
// once. Path globs with wildcards, rare, are matched one by one by
// go-git's gitignore, which stays the reference (ignorematch_test.go
// checks the sets against it).
//
// A layer answers for an entry alone, with go-git's semantics: go-git
// also matches a pattern against each ancestor of a path (a name pattern
// against any component, a path pattern against any leading part), which
// the walk carries down instead, as the best match of the ancestors (anc).
type ignoreLayer struct {
	layer  int
	domain []string
	pats   []patInfo
	ref    []gitignore.Pattern // go-git's, for the path globs

	names    map[string][]int32   // literal name → patterns, last first
	exts     map[string][]sufRef  // "*suffix" by the suffix's extension
	suffixes []sufRef             // "*suffix" without a '.', last first
	prefixes []int32              // "prefix*", last first
	paths    map[string][]pathRef // literal paths by their last component
	nameLit  []int32              // name globs with a literal they need, last first
	nameRe   *regexp.Regexp       // one of nameRest may match only if this does
	nameAll  []int32              // name globs the regexp cannot stand for
	nameRest []int32              // name globs behind nameRe, last first
	globs    []int32              // path globs, last first
}

// patInfo is one pattern as go-git parses it.
type patInfo struct {
	glob      string // the name glob, the "*"-less suffix or prefix
	lit       string // a literal every name the glob matches holds
	inclusion bool
	dirOnly   bool
	// depth is how many components below the layer's directory a path
	// glob without "**" matches (an entry at another depth it matches, if
	// at all, through an ancestor: the walk's anc), one each of comps;
	// -1 for any depth (go-git matches it).
	depth int
	comps []string
}

// pathRef is a literal path pattern: its line and its components from the
// rules' root.
type pathRef struct {
	line  int32
	comps []string
}

// compileLayer compiles the patterns of one ignore file; nil when it has
// none.
func compileLayer(content []byte, domain []string, layer int) *ignoreLayer {
	if len(content) == 0 {
		return nil
	}
	l := &ignoreLayer{layer: layer, domain: slices.Clone(domain)}
	var reParts []string
	parseIgnore(content, func(line string) {
		i := int32(len(l.pats))
		l.ref = append(l.ref, gitignore.ParsePattern(line, domain))
		p, comps := parsePattern(line)
		l.pats = append(l.pats, p)
		if len(comps) > 1 {
			l.addPath(i, comps)
			return
		}
		if re, ok := l.addName(i, comps[0]); !ok {
			switch lit := globLiteral(comps[0]); {
			case len(lit) >= 2 || lit != "" && !validRegexp(re):
				// A literal of one byte ("\\#*#") only where no regexp can
				// stand for the glob: a name without it is ruled out at once.
				l.pats[i].lit = lit
				l.nameLit = append(l.nameLit, i)
			case !validRegexp(re):
				l.nameAll = append(l.nameAll, i)
			default:
				l.nameRest = append(l.nameRest, i)
				reParts = append(reParts, re)
			}
		}
	})
	if len(l.pats) == 0 {
		return nil
	}
	if len(reParts) > 0 {
		l.nameRe = regexp.MustCompile(`^(?s:(?:` + strings.Join(reParts, ")|(?:") + `))$`)
	}
	for _, s := range [][]int32{l.prefixes, l.nameLit, l.nameAll, l.nameRest, l.globs} {
		slices.Reverse(s)
	}
	for _, s := range l.names {
		slices.Reverse(s)
	}
	slices.Reverse(l.suffixes)
	for _, s := range l.exts {
		slices.Reverse(s)
	}
	return l
}

func validRegexp(re string) bool {
	_, err := regexp.Compile(re)
	return re != "" && err == nil
}

// parsePattern parses a line as go-git's ParsePattern does: its flags,
// and its glob split at '/'.
func parsePattern(p string) (patInfo, []string) {
	var info patInfo
	if rest, ok := strings.CutPrefix(p, "!"); ok {
		info.inclusion, p = true, rest
	}
	if !strings.HasSuffix(p, `\ `) {
		p = strings.TrimRight(p, " ")
	}
	if rest, ok := strings.CutSuffix(p, "/"); ok {
		info.dirOnly, p = true, rest
	}
	return info, strings.Split(p, "/")
}

const nameSpecial = `*?[\`

// addPath files a pattern with a '/': a literal path in the map, else a
// glob for go-git.
func (l *ignoreLayer) addPath(i int32, comps []string) {
	var parts []string
	for _, c := range comps {
		switch {
		case c == "":
		case strings.ContainsAny(c, nameSpecial):
			l.globs = append(l.globs, i)
			l.pats[i].depth, l.pats[i].comps = globComps(comps)
			return
		default:
			parts = append(parts, c)
		}
	}
	if len(parts) == 0 {
		return // matches nothing
	}
	if l.paths == nil {
		l.paths = map[string][]pathRef{}
	}
	last := parts[len(parts)-1]
	l.paths[last] = append(l.paths[last], pathRef{line: i, comps: append(slices.Clone(l.domain), parts...)})
}

// globComps returns the components of a path glob that go-git's
// globMatch matches one each against the components of a path below the
// layer's directory (the non-empty ones), and how many; -1 when one holds
// "**" and the count varies.
func globComps(comps []string) (int, []string) {
	var out []string
	for _, c := range comps {
		switch {
		case strings.Contains(c, "**"):
			return -1, nil
		case c != "":
			out = append(out, c)
		}
	}
	return len(out), out
}

// matchComps reports whether the path glob p, whose depth is the entry's,
// matches the entry: its directory's components below the layer's (dir)
// and its name, each against one of p's, as go-git's globMatch does.
func (p *patInfo) matchComps(dir []string, e *entryPath) bool {
	for j, c := range dir {
		if !matchComp(p.comps[j], c) {
			return false
		}
	}
	return matchComp(p.comps[len(dir)], e.name) && (!p.dirOnly || e.isDir)
}

func matchComp(glob, name string) bool {
	if !strings.ContainsAny(glob, nameSpecial) {
		return glob == name
	}
	ok, err := filepath.Match(glob, name)
	return err == nil && ok
}

// addName files a name glob in a set and reports true, or returns the
// regexp that stands for it (or "" when none does) and false.
func (l *ignoreLayer) addName(i int32, g string) (string, bool) {
	if g2, alts, ok := expandClass(g); ok {
		// "*.tab.[ch]": the suffixes .tab.c and .tab.h
		if s, ok := strings.CutPrefix(g2, "*"); ok && !strings.ContainsAny(s, nameSpecial) {
			for _, c := range alts {
				l.addSuffix(i, strings.Replace(s, "\x00", string(c), 1))
			}
			return "", true
		}
	}
	switch star := strings.IndexByte(g, '*'); {
	case !strings.ContainsAny(g, nameSpecial):
		if l.names == nil {
			l.names = map[string][]int32{}
		}
		l.names[g] = append(l.names[g], i)
	case star == 0 && len(g) > 1 && !strings.ContainsAny(g[1:], nameSpecial):
		l.addSuffix(i, g[1:])
	case star == len(g)-1 && star > 0 && !strings.ContainsAny(g[:star], nameSpecial):
		l.pats[i].glob = g[:star]
		l.prefixes = append(l.prefixes, i)
	default:
		l.pats[i].glob = g
		return globRegexp(g), false
	}
	return "", true
}

// sufRef is a "*suffix" pattern: its line, and the suffix (one line may
// give several: "*.tab.[ch]").
type sufRef struct {
	line   int32
	suffix string
}

func (l *ignoreLayer) addSuffix(i int32, s string) {
	r := sufRef{line: i, suffix: s}
	if dot := strings.LastIndexByte(s, '.'); dot >= 0 {
		// A name that ends with s has s's extension.
		if l.exts == nil {
			l.exts = map[string][]sufRef{}
		}
		l.exts[s[dot:]] = append(l.exts[s[dot:]], r)
		return
	}
	l.suffixes = append(l.suffixes, r)
}

// expandClass rewrites a glob with one small class of plain characters
// ("[ch]") into the glob with a NUL in its place and the characters.
func expandClass(g string) (string, string, bool) {
	open := strings.IndexByte(g, '[')
	if open < 0 {
		return "", "", false
	}
	end := strings.IndexByte(g[open:], ']')
	if end < 2 {
		return "", "", false
	}
	class := g[open+1 : open+end]
	if len(class) > 8 || strings.ContainsAny(class, `^-\[]*?!`) || !isASCII(class) {
		return "", "", false // filepath.Match reads a class's runes
	}
	rest := g[:open] + "\x00" + g[open+end+1:]
	if strings.ContainsAny(rest, `[]\`) {
		return "", "", false
	}
	return rest, class, true
}

// globLiteral returns the longest run of plain characters in a name glob,
// escaped ones included ("\\#*#" holds '#'), outside classes (whose
// escaped ']' does not end them): every name it matches holds it.
func globLiteral(g string) string {
	var best, run []byte
	end := func() {
		if len(run) > len(best) {
			best = append(best[:0], run...)
		}
		run = run[:0]
	}
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '*', '?':
			end()
		case '[':
			end()
			j := i + 1
			for ; j < len(g) && g[j] != ']'; j++ {
				if g[j] == '\\' {
					j++
				}
			}
			if j >= len(g) {
				return string(best) // unterminated: matches nothing
			}
			i = j
		case '\\':
			if i+1 == len(g) {
				end()
				return string(best) // a trailing escape: matches nothing
			}
			i++
			run = append(run, g[i])
		default:
			run = append(run, g[i])
		}
	}
	end()
	return string(best)
}

// globRegexp translates a filepath.Match name glob into a regexp that
// matches at least the names the glob does; "" when it cannot.
func globRegexp(g string) string {
	var b strings.Builder
	for i := 0; i < len(g); i++ {
		switch c := g[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			end := strings.IndexByte(g[i+1:], ']')
			if end < 0 {
				return ""
			}
			class := g[i+1 : i+1+end]
			if class == "" || class == "^" || strings.ContainsAny(class, `\[`) {
				return ""
			}
			b.WriteString(`[` + class + `]`) // filepath.Match's classes are RE2's
			i += end + 1
		case '\\':
			return "" // escapes: kept out of the prefilter, matched alone
		default:
			if c >= utf8.RuneSelf {
				return "" // RE2 reads runes, filepath.Match bytes of invalid UTF-8
			}
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return b.String()
}

// match returns the best pattern of the layer that matches e itself.
func (l *ignoreLayer) match(e *entryPath) prio {
	best := int32(-1)
	take := func(line int32, info *patInfo) {
		if line > best && (!info.dirOnly || e.isDir) {
			best = line
		}
	}
	for _, i := range l.names[e.name] {
		if take(i, &l.pats[i]); best == i {
			break
		}
	}
	if l.exts != nil {
		if dot := strings.LastIndexByte(e.name, '.'); dot >= 0 {
			for _, r := range l.exts[e.name[dot:]] {
				if r.line > best && strings.HasSuffix(e.name, r.suffix) {
					take(r.line, &l.pats[r.line])
				}
			}
		}
	}
	for _, r := range l.suffixes {
		if r.line > best && strings.HasSuffix(e.name, r.suffix) {
			take(r.line, &l.pats[r.line])
		}
	}
	for _, i := range l.prefixes {
		if i > best && strings.HasPrefix(e.name, l.pats[i].glob) {
			take(i, &l.pats[i])
		}
	}
	l.matchGlobs(e, &best, take)
	if best < 0 {
		return 0
	}
	return makePrio(l.layer, int(best), l.pats[best].inclusion)
}

// matchGlobs matches what the sets cannot: name globs and path patterns.
func (l *ignoreLayer) matchGlobs(e *entryPath, best *int32, take func(int32, *patInfo)) {
	nameGlob := func(i int32) {
		if i > *best {
			if ok, err := filepath.Match(l.pats[i].glob, e.name); err == nil && ok {
				take(i, &l.pats[i])
			}
		}
	}
	for _, i := range l.nameAll {
		nameGlob(i)
	}
	for _, i := range l.nameLit {
		if i > *best && strings.Contains(e.name, l.pats[i].lit) {
			nameGlob(i)
		}
	}
	if l.nameRe != nil && l.nameRe.MatchString(e.name) {
		for _, i := range l.nameRest {
			nameGlob(i)
		}
	}
	for _, r := range l.paths[e.name] {
		if len(r.comps) == len(e.dir)+1 && slices.Equal(r.comps[:len(e.dir)], e.dir) {
			take(r.line, &l.pats[r.line])
		}
	}
	if len(l.globs) == 0 || len(e.dir) < len(l.domain) {
		return
	}
	below := e.dir[len(l.domain):]
	for _, i := range l.globs {
		switch p := &l.pats[i]; {
		case i <= *best:
		case p.depth >= 0:
			// "/*.spec" in the top directory, "/arch/*/include/generated/" four down.
			if p.depth == len(below)+1 && p.matchComps(below, e) {
				*best = i
			}
		case l.ref[i].Match(e.path(), e.isDir) != gitignore.NoMatch:
			*best = i // go-git has judged dirOnly
		}
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
