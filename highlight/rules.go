package highlight

import (
	"bytes"
	"regexp"
	"sync"
)

// Severity ranks a group: errors before warnings. The zero value is no hit.
type Severity uint8

// The severities, in rising order.
const (
	Warning Severity = 1
	Error   Severity = 2
)

func (s Severity) String() string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "none"
}

// cont says which lines after a hit belong to it.
type cont uint8

const (
	contNone      cont = iota
	contAny            // the next After lines, whatever they are
	contBlank          // every line up to a blank one (rustc, cargo, unittest)
	contIndented       // lines indented deeper than the hit, and blank lines between them
	contCompiler       // gcc/clang source and caret lines (indented) and "note:" lines
	contTraceback      // Python: indented frames, then the exception line at column 0
	contStack          // Java/Node frames: "at ...", "... N more", "Caused by:"
	contPytestE        // pytest: more "E   " lines, then the "file.py:N: Error" line
	contGoTest         // go test: indented log lines under a verdict, not the subtests' verdicts
	contPID            // valgrind: the "==PID==" lines indented under the hit
	contRust           // rustc: " --> file", "  |", "2 |     code", "= note:" up to a blank line
	contReport         // as contIndented, and a few unindented lines on grace before an indented one (see continues)
)

// Rule is one row of the table: a line format of a tool that a model must
// see; or, with Severity 0, one that matches a line some later row would
// take for a hit and is none (valgrind's "ERROR SUMMARY: 0 errors").
type Rule struct {
	Name     string            // the tool and what it reports, as named in tests
	Severity Severity          // of a hit
	Need     kw                // the line holds at least one of these keywords (the prefilter's)
	Lits     []string          // the line holds one of these, if any are given: a cheap check before Re
	Re       *regexp.Regexp    // matched against the cleaned line, without its ending
	Match    func([]byte) bool // when set, what Re says, matched without it (or when Re is nil, instead of it)
	Before   int               // context lines before the hit (at most maxBefore)
	Cont     cont              // which following lines belong to the hit
	After    int               // at most this many of them
	Verdict  bool              // a go test or pytest verdict: bring the test's log lines or body as evidence

	first   *byteSet // the bytes a match of Re can start a line with (see firstBytes); nil: any
	litMask uint32   // the bits of its literals' pairs (see literals.go)
	litAny  bool     // a literal of it has no bit: always search
	index   int      // in Rules
}

// maxBefore is how many lines the detector keeps for "before" context.
const maxBefore = 4

// Rules returns the table, tried in order: the first rule that matches a
// line wins. Expressions follow the formats' documentation and, where one
// exists, the GitHub Actions problem matcher of the tool (actions/setup-go,
// setup-python, setup-node's tsc and eslint matchers, rust-lang's, gcc's and
// MSVC's from actions/toolkit's examples). The table is built on first use,
// not at init: compiling its expressions was a sixth of the CPU time of
// every toold process's start, toold --version's too.
func Rules() []Rule { return rules() }

var rules = sync.OnceValue(func() []Rule {
	rs := table()
	for i := range rs {
		if rs[i].Re != nil {
			rs[i].first = firstBytes(rs[i].Re.String())
		}
	}
	ruleLits(rs)
	for i := range rs {
		rs[i].index = i
	}
	return rs
})

// table is the rules as written.
func table() []Rule {
	return []Rule{
		// Go: go test verdicts, panics, build and vet errors.
		{Name: "go-test-fail", Severity: Error, Need: kFail, Re: re(`^\s*--- FAIL: \S`), Cont: contGoTest, After: 30, Verdict: true},
		{Name: "fail-line", Severity: Error, Need: kFail, Re: re(`^\s*FAIL(?:\s|$)`), Before: 1},
		{Name: "go-panic", Severity: Error, Need: kPanic, Re: re(`^panic: `), Cont: contAny, After: 14},
		{Name: "go-build", Severity: Error, Need: kGoFile, Lits: []string{".go:"}, Re: re(`^\S+\.go:\d+:\d+: `), Before: 1},
		{Name: "go-race", Severity: Error, Need: kWarn, Re: re(`^WARNING: DATA RACE$`), Cont: contAny, After: 20},
		{Name: "go-fatal", Severity: Error, Need: kFatal, Re: re(`^fatal error: `), Cont: contAny, After: 10},

		// rustc and cargo.
		{Name: "rust-error", Severity: Error, Need: kErr, Re: re(`^error(?:\[E\d+\])?: `), Cont: contRust, After: 30},
		{Name: "rust-warning", Severity: Warning, Need: kWarn, Re: re(`^warning(?:\[[\w:-]+\])?: `), Cont: contRust, After: 30},
		{Name: "rust-test-result", Severity: Error, Need: kFail, Re: re(`^test result: FAILED\b`)},
		{Name: "rust-test-case", Severity: Error, Need: kFail, Lits: []string{"FAILED"}, Re: re(`^(?:test \S+ \.\.\. FAILED|\S+ --- FAILED)$`)},
		{Name: "rust-panic", Severity: Error, Need: kPanic, Re: re(`^thread '[^']*'(?: \(\d+\))? panicked at `), Before: 2, Cont: contBlank, After: 12},

		// Java and Kotlin: javac, stack traces, Gradle, Maven.
		{Name: "javac-error", Severity: Error, Need: kErr, Lits: []string{".java:", ".kt:"}, Re: re(`^\S+\.(?:java|kt):\d+: error: `), Cont: contAny, After: 4},
		{Name: "javac-warning", Severity: Warning, Need: kWarn, Lits: []string{".java:", ".kt:"}, Re: re(`^\S+\.(?:java|kt):\d+: warning: `), Cont: contAny, After: 4},
		{Name: "java-thread", Severity: Error, Need: kExcept, Re: re(`^Exception in thread "`), Cont: contStack, After: 40},
		{Name: "java-caused-by", Severity: Error, Need: kStart, Re: re(`^Caused by: `), Cont: contStack, After: 20},
		{Name: "gradle-failure", Severity: Error, Need: kFail, Re: re(`^FAILURE: Build failed`), Cont: contAny, After: 6},
		{Name: "gradle-wrong", Severity: Error, Need: kStart, Re: re(`^\* What went wrong:`), Cont: contAny, After: 4},
		{Name: "gradle-task", Severity: Error, Need: kFail, Re: re(`^(?:> Task \S+ FAILED|BUILD FAILED\b)`)},
		{Name: "maven-error", Severity: Error, Need: kErr, Re: re(`^\[ERROR\] \S`)},
		{Name: "maven-warning", Severity: Warning, Need: kWarn, Re: re(`^\[WARNING\] \S`)},
		{Name: "maven-failure", Severity: Error, Need: kFail, Re: re(`^\[INFO\] BUILD FAILURE$`)},

		// TypeScript and ESLint.
		{Name: "tsc-error", Severity: Error, Need: kErr, Lits: []string{"error TS"}, Re: re(`^\S.*[(:]\d+[,:]\d+(?:\):\s+|\s+-\s+)error\s+TS\d+\s*:`), Cont: contIndented, After: 10},
		{Name: "eslint-error", Severity: Error, Need: kErr, Re: re(`^\s+\d+:\d+\s+error\s+\S`), Before: 1},
		{Name: "eslint-warning", Severity: Warning, Need: kWarn, Re: re(`^\s+\d+:\d+\s+warning\s+\S`)},

		// C and C++: gcc, clang, MSVC, the linker, make.
		{Name: "gcc-error", Severity: Error, Need: kErr, Lits: []string{"error: "}, Re: re(`^[^\s:][^:]*:\d+:(?:\d+:)? (?:fatal )?error: `), Before: 2, Cont: contCompiler, After: 12},
		{Name: "gcc-warning", Severity: Warning, Need: kWarn, Lits: []string{"warning: "}, Re: re(`^[^\s:][^:]*:\d+:(?:\d+:)? warning: `), Before: 1, Cont: contCompiler, After: 12},
		{Name: "msvc-error", Severity: Error, Need: kErr, Lits: []string{" error "}, Re: re(`^\s*(?:\d+>)?\S.*\(\d+(?:,\d+)?(?:,\d+,\d+)?\)\s*:\s+(?:fatal )?error\s+\w{1,2}\d+\s*:`)},
		{Name: "msvc-warning", Severity: Warning, Need: kWarn, Lits: []string{" warning "}, Re: re(`^\s*(?:\d+>)?\S.*\(\d+(?:,\d+)?(?:,\d+,\d+)?\)\s*:\s+warning\s+\w{1,2}\d+\s*:`)},
		{Name: "tool-error", Severity: Error, Need: kErr, Lits: []string{"error: "}, Re: re(`^[\w.+/-]+: (?:fatal )?error: `), Before: 3},
		{Name: "make", Severity: Error, Need: kStart, Re: re(`^g?make(?:\[\d+\])?: (?:\*\*\* |Target .* not remade)`), Before: 3},

		// Python: tracebacks, pytest, unittest.
		{Name: "py-traceback", Severity: Error, Need: kStart, Re: re(`^Traceback \(most recent call last\):`), Before: 3, Cont: contTraceback, After: 80},
		{Name: "pytest-e", Severity: Error, Need: kStart, Re: re(`^E {2,}\S`), Before: 3, Cont: contPytestE, After: 30},
		{Name: "pytest-section", Severity: Error, Need: kFail | kErr, Re: re(`^=+ (?:FAILURES|ERRORS) =+$`), Cont: contAny, After: 1},
		{Name: "pytest-summary", Severity: Error, Need: kFail | kErr, Re: re(`^(?:FAILED|ERROR) \S+\.py\b`), Verdict: true},
		{Name: "unittest", Severity: Error, Need: kFail | kErr, Re: re(`^(?:FAIL|ERROR): \w+ \(`), Cont: contBlank, After: 40},
		{Name: "unittest-summary", Severity: Error, Need: kFail, Re: re(`^FAILED \((?:failures|errors)=`)},

		// JavaScript test runners: jest, vitest, node --test (spec and TAP).
		{Name: "jest-failure", Severity: Error, Need: kStart, Re: re(`^\s*● \S`), Cont: contIndented, After: 40},
		{Name: "test-cross", Severity: Error, Need: kStart, Re: re(`^\s*[✖✗✕×] \S`), Cont: contIndented, After: 20},
		{Name: "tap-not-ok", Severity: Error, Need: kStart, Re: re(`^not ok \d+`), Cont: contIndented, After: 30},
		{Name: "test-summary", Severity: Error, Need: kFail, Re: re(`^\s*(?:Tests:?|Test Suites:|Test Files|[#ℹ] fail)\s+[1-9]\d*(?: failed|$)`)},

		// npm, yarn, pnpm.
		{Name: "npm-error", Severity: Error, Need: kErr, Re: re(`^npm (?:ERR!|error) `)},
		{Name: "yarn-error", Severity: Error, Need: kErr, Re: re(`^error \S`)},
		{Name: "pnpm-error", Severity: Error, Need: kErr | kFail, Lits: []string{"ERR_PNPM", "ELIFECYCLE"}, Re: re(`ERR_PNPM_\w+|\bELIFECYCLE\b`)},

		// Exceptions anywhere: Java, Node, Python outside a traceback.
		{Name: "exception", Severity: Error, Need: kErr | kExcept, Lits: []string{"Exception", "Error"}, Re: re(`^(?:[\w$]+\.)*(?:[A-Z][\w$]*)?(?:Exception|Error)(?: \[\w+\])?(?::|$)`), Before: 4, Cont: contStack, After: 30},

		// The process died.
		{Name: "oom", Severity: Error, Need: kKilled | kErr | kFail | kFatal, Lits: []string{"emory", "EMORY", "oom-kill"}, Re: re(`(?i)\bout of memory\b|\boom-kill`)},
		{Name: "segfault", Severity: Error, Need: kSegv, Lits: []string{"Segmentation fault"}, Re: re(`Segmentation fault`)},
		{Name: "killed", Severity: Error, Need: kKilled, Lits: []string{"Killed"}, Re: re(`(?:^|\s)Killed(?:\s|$)`)},
		{Name: "aborted", Severity: Error, Need: kAbort, Lits: []string{"Aborted"}, Re: re(`(?:^|\s)Aborted(?:\s|$)`)},
		{Name: "core-dumped", Severity: Error, Need: kVocab, Lits: []string{"(core dumped)"}, Re: re(`\(core dumped\)`)},
		{Name: "fatal", Severity: Error, Need: kFatal, Lits: []string{"fatal: "}, Re: re(`^(?:[\w.+/-]+: )?fatal: `)},

		// Sanitizers and valgrind: a report and its stack frames.
		{Name: "sanitizer", Severity: Error, Need: kStart | kErr | kWarn, Lits: []string{"Sanitizer"}, Re: re(`^(?:==\d+==)?(?:ERROR|WARNING): \w*Sanitizer`), Cont: contAny, After: 16},
		{Name: "sanitizer-summary", Severity: Error, Need: kStart | kErr | kVocab, Lits: []string{"Sanitizer"}, Re: re(`^SUMMARY: \w*Sanitizer: `)},
		{Name: "ubsan", Severity: Error, Need: kErr | kVocab, Lits: []string{"runtime error: "}, Re: re(`^\S+:\d+:\d+: runtime error: `), Before: 1},
		{Name: "valgrind-clean", Need: kStart, Re: re(`^==\d+== (?:ERROR SUMMARY: 0 errors|\S.* 0 bytes in 0 blocks|Memcheck, a memory error detector|For (?:lists|counts) of detected and suppressed errors)`)},
		// The same count of none with its prefix cut away (grep, a tool that
		// relays valgrind's lines): no "ERROR" level line.
		{Name: "valgrind-clean-bare", Need: kErr, Lits: []string{"ERROR SUMMARY: 0 "}, Re: re(`^ERROR SUMMARY: 0 errors`)},
		{Name: "valgrind-summary", Severity: Error, Need: kStart, Re: re(`^==\d+== ERROR SUMMARY: [1-9]`)},
		{Name: "valgrind", Severity: Error, Need: kStart, Re: re(`^==\d+== (?:Invalid (?:read|write|free)|Conditional jump|Use of uninitialised|Mismatched free|Syscall param|Source and destination overlap|Process terminating|\S.* (?:definitely|possibly) lost in )`), Cont: contPID, After: 20},

		// Logs: klog, JSON lines, text levels.
		{Name: "klog-error", Severity: Error, Need: kStart, Re: re(`^[EF]\d{4} \d\d:\d\d:\d\d`)},
		{Name: "klog-warning", Severity: Warning, Need: kStart, Re: re(`^W\d{4} \d\d:\d\d:\d\d`)},
		{Name: "json-error", Severity: Error, Need: kLevel | kErr | kFatal | kCrit | kPanic, Lits: []string{`"level"`, `"lvl"`, `"severity"`, `"levelname"`, `"log.level"`}, Re: re(`^\s*\{.*"(?:level|lvl|severity|levelname|log\.level)"\s*:\s*(?:"(?i:err|error|fatal|crit|critical|panic|emerg|alert)"|[56]0\b)`)},
		{Name: "json-warning", Severity: Warning, Need: kLevel | kWarn, Lits: []string{`"level"`, `"lvl"`, `"severity"`, `"levelname"`, `"log.level"`}, Re: re(`^\s*\{.*"(?:level|lvl|severity|levelname|log\.level)"\s*:\s*(?:"(?i:warn|warning)"|40\b)`)},
		{Name: "log-error", Severity: Error, Need: kErr | kFatal | kCrit | kPanic, Re: re(`^(?:\S+\s+){0,6}?[\[<(]?(?:ERROR|FATAL|CRITICAL|CRIT|PANIC|EMERG|ALERT)(?:[\]>):]|\s|$)`),
			Match: levelField("ERROR", "FATAL", "CRITICAL", "CRIT", "PANIC", "EMERG", "ALERT")},
		{Name: "logfmt-error", Severity: Error, Need: kErr | kFatal | kCrit | kPanic, Lits: []string{"level="}, Re: re(`(?i)\blevel=(?:err|error|fatal|crit|critical|panic)\b`)},
		{Name: "log-warning", Severity: Warning, Need: kWarn, Re: re(`^(?:\S+\s+){0,6}?[\[<(]?(?:WARN|WARNING)(?:[\]>):]|\s|$)`),
			Match: levelField("WARN", "WARNING")},
		{Name: "logfmt-warning", Severity: Warning, Need: kWarn, Lits: []string{"level="}, Re: re(`(?i)\blevel=warn(?:ing)?\b`)},

		// Any tool: a severity in mixed case after a product's name
		// ("PHP Fatal error:", "PHP Warning:", "Node Error:"; vocab.go).
		{Name: "severity-error", Severity: Error, Need: kErr | kFatal | kCrit, Match: severityWord(Error), Cont: contReport, After: 12},
		{Name: "severity-warning", Severity: Warning, Need: kWarn, Match: severityWord(Warning), Cont: contReport, After: 12},

		// Any tool: the vocabulary of failure (vocab.go).
		{Name: vocabRule, Severity: Error, Need: kVocab, Match: vocabHit, Before: 1, Cont: contIndented, After: 6},
		{Name: proseRule, Severity: Error, Need: kVocab, Match: proseHit, Before: 1, Cont: contIndented, After: 6},
	}
}

func re(s string) *regexp.Regexp { return regexp.MustCompile(s) }

// Matches reports whether the rule matches line (cleaned, without its
// ending), keywords aside.
func (r *Rule) Matches(line []byte) bool {
	if r.Match != nil {
		return r.Match(line)
	}
	return r.Re.Match(line)
}

// matchCache remembers the keywords of lines of one shape (see shape) and
// which rule matched them, so that a flood of alike lines (a log of
// nothing but errors) runs the prefilter's checks and the regexps once per
// shape, not once per line: a line's keywords, like the rules, do not look
// at the value of a number of three digits or more. It is bounded: full,
// it starts over. Lines without a keyword are not kept.
type matchCache struct {
	m  map[uint64]shapeEntry
	in shapeSet // the shapes m holds, and some more
	// The cache pays only when shapes repeat: on a log of random words
	// nearly every lookup misses and every insert is lost. Each
	// cacheProbe lookups it counts the hits; under one in cacheMinHits
	// it is bypassed (neither looked up nor filled) for cacheSkip lines,
	// then tried again. What matches does not change, only its cost.
	tries, hits int
	skip        int
	// tried are the rules that ruleIndex tries, by a line's keywords and
	// first byte (see triedKey): those whose Need it holds and whose
	// expression may start it, in order. A log's lines have few sets of
	// keywords and one first byte, and each rule's two checks cost more
	// than the list's lookup.
	tried map[uint32][]int16
}

const (
	cacheProbe   = 4096
	cacheMinHits = 8
	cacheSkip    = 64 << 10
)

func newMatchCache() *matchCache { return &matchCache{m: map[uint64]shapeEntry{}} }

type shapeEntry struct {
	rule int16 // index in Rules, -1 for none
	m    kw
}

const maxShapes = 8192

// match returns the keywords of line, the first rule that matches it (nil
// for none) and its shape (0 while the cache is bypassed).
func (c *matchCache) match(line []byte) (*Rule, kw, uint64) {
	rules := Rules() // fills litBits, before shapeScan reads it
	if c.skip > 0 {
		// Bypassed: no shape (0: none, see templates.add), so no hash.
		c.skip--
		m, lits := keywordScan(line)
		if m == 0 {
			return nil, 0, 0
		}
		if i := c.ruleIndex(line, m, lits); i >= 0 {
			return &rules[i], m, 0
		}
		return nil, m, 0
	}
	h, anchors, lits := shapeScan(line)
	var e shapeEntry
	ok := false
	if c.in.may(h) {
		e, ok = c.m[h]
	}
	if c.tries++; ok {
		c.hits++
	}
	if c.tries == cacheProbe {
		if c.hits*cacheMinHits < c.tries {
			c.skip = cacheSkip
		}
		c.tries, c.hits = 0, 0
	}
	if !ok {
		e = shapeEntry{rule: -1, m: scanAnchors(line, anchors)}
		if e.m == 0 {
			return nil, 0, h
		}
		if len(c.m) >= maxShapes {
			clear(c.m)
			c.in = shapeSet{}
		}
		e.rule = int16(c.ruleIndex(line, e.m, lits))
		c.m[h] = e
		c.in.add(h)
	}
	if e.rule < 0 {
		return nil, e.m, h
	}
	return &rules[e.rule], e.m, h
}

// shape hashes line (FNV-1a) with each run of three or more digits folded
// to its length: lines that differ only in such numbers (times, ids,
// counts) match the same rules, since no rule looks at the value of a
// number of three digits or more, only at how many digits it has.
func shape(line []byte, m kw) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037) ^ uint64(m)
	for i := 0; i < len(line); {
		j := i
		for j < len(line) && isDigit(line[j]) {
			j++
		}
		if j-i >= 3 {
			h = (h ^ 0x100 ^ uint64(j-i)) * prime
			i = j
			continue
		}
		h = (h ^ uint64(line[i])) * prime
		i++
	}
	return h
}

// ruleIndex is the package's ruleIndex, trying only the rules that
// the line's keywords and first byte leave (tried).
func (c *matchCache) ruleIndex(line []byte, m kw, lits uint32) int {
	key := triedKey(line, m)
	list, ok := c.tried[key]
	if !ok {
		if c.tried == nil || len(c.tried) >= maxTried {
			c.tried = map[uint32][]int16{}
		}
		rules := Rules()
		list = []int16{}
		for i := range rules {
			if r := &rules[i]; r.Need&m != 0 && r.mayStart(line) {
				list = append(list, int16(i))
			}
		}
		c.tried[key] = list
	}
	rules := Rules()
	for _, i := range list {
		if r := &rules[i]; r.mayHold(line, lits) && r.Matches(line) {
			return int(i)
		}
	}
	return -1
}

// maxTried bounds matchCache.tried.
const maxTried = 1024

// triedKey is the key of matchCache.tried: the keywords m, whether line
// is empty and its first byte.
func triedKey(line []byte, m kw) uint32 {
	if len(line) == 0 {
		return uint32(m) << 9
	}
	return uint32(m)<<9 | 1<<8 | uint32(line[0])
}

// ruleIndex returns the index of the first rule that matches line, whose
// keywords are m and literal pairs lits (see shapeScan); -1 for none.
func ruleIndex(line []byte, m kw, lits uint32) int {
	rules := Rules()
	for i := range rules {
		r := &rules[i]
		if r.Need&m != 0 && r.mayStart(line) && r.mayHold(line, lits) && r.Matches(line) {
			return i
		}
	}
	return -1
}

// mayStart reports whether a match of r may start line: false only when
// r's expression is anchored and line's first byte cannot start it.
func (r *Rule) mayStart(line []byte) bool {
	return r.first == nil || len(line) > 0 && r.first.has(line[0])
}

// hasAny reports whether line holds one of lits, or lits is empty.
func hasAny(line []byte, lits []string) bool {
	for _, l := range lits {
		if bytes.Contains(line, []byte(l)) {
			return true
		}
	}
	return len(lits) == 0
}
