package highlight

import (
	"bytes"
	"sync"
)

// The vocabulary of failure: words that say something went wrong whatever
// tool printed them. A line that holds one as a word (not inside another
// word, a flag such as -Werror, a file name such as error.go or
// abort_handler.c) and not negated ("0 failed", "no errors", "errors: 0")
// is a hit of the vocab rule, the last row of the table: the formats a rule
// knows come first. Whether such a line matters is decided again at Finish
// by how often its shape repeats (see templates).

// vocabRule names the rule of the vocabulary; proseRule the rule of a word
// of failure in a line not shaped as a message ("connection refused",
// "request timed out after 37ms" among thousands of "ok step N"): it counts
// only when its shape is rare in an output of repeated shapes (see
// templates.noise), since prose (a man page, a license) holds such words
// all through and repeats no shape.
const (
	vocabRule = "vocab"
	proseRule = "vocab-rare"
)

// weak reports whether r is a rule of the vocabulary, whose hits give way
// to those of the rules that know a format.
func (r *Rule) weak() bool { return weakRule(r.Name) }

// weakRule reports whether the rule named name is one of the vocabulary.
func weakRule(name string) bool { return name == vocabRule || name == proseRule }

// proseHit reports whether line holds a word of the vocabulary as a word
// and not negated, whatever the shape of the line (vocabHit, whose row
// comes first, takes those shaped as a message).
func proseHit(line []byte) bool { return failureWord(line, 0) >= 0 }

// vocabRuleRow returns the vocabulary's row of the table.
var vocabRuleRow = sync.OnceValue(func() *Rule {
	rs := Rules()
	for i := range rs {
		if rs[i].Name == vocabRule {
			return &rs[i]
		}
	}
	panic("highlight: no vocab rule")
})

// vocabWord is a word or phrase of the vocabulary, lower case; suffixes
// are the endings it may take and stay the same word.
type vocabWord struct {
	word     string
	suffixes []string
}

var vocabulary = []vocabWord{
	{"cannot", nil}, {"can't", nil}, {"could not", nil}, {"couldn't", nil}, {"unable to", nil},
	{"denied", nil}, {"refused", nil}, {"no such", nil}, {"not found", nil}, {"not permitted", nil},
	{"undefined", nil}, {"undeclared", nil}, {"unresolved", nil}, {"unreachable", nil},
	{"fatal", nil}, {"abort", []string{"ed", "ing", "s"}}, {"overflow", []string{"ed", "s"}},
	{"violation", []string{"s"}}, {"panic", []string{"ked", "s"}}, {"exception", []string{"s"}},
	{"timed out", nil}, {"killed", nil}, {"core dumped", nil}, {"invalid", nil}, {"illegal", nil},
	{"corrupt", []string{"ed", "ion"}}, {"unexpected", nil}, {"conflict", []string{"s", "ing"}},
	{"failed", nil}, {"failure", []string{"s"}}, {"error", []string{"s"}}, {"segmentation fault", nil},
	{"fail", []string{"s"}},
}

// vocabHit reports whether line holds a word of the vocabulary, as a word
// and not negated, in a line shaped as a message (see message).
func vocabHit(line []byte) bool {
	for i := failureWord(line, 0); i >= 0; i = failureWord(line, i+1) {
		if message(line, i) {
			return true
		}
	}
	return false
}

// failureWord returns where the first word of the vocabulary that line
// holds from from on, as a word and not negated, starts; -1 for none.
func failureWord(line []byte, from int) int {
	for i := from; i < len(line); i++ {
		c := lower[line[i]]
		if c < 'a' || c > 'z' || i > 0 && wordByte(line[i-1]) {
			continue
		}
		for _, v := range vocabulary {
			if c != v.word[0] || !hasFold(line[i:], v.word) {
				continue
			}
			end := i + len(v.word)
			if !wordEnd(line, &end, v.suffixes) {
				continue
			}
			if !bounded(line, i, end) || negated(line, i, end) || alone(line, i, end) {
				continue
			}
			return i
		}
	}
	return -1
}

// message reports whether line, whose word of failure starts at i, is
// shaped as a tool's message rather than prose (a man page, a license, a
// package's description, Markdown):
//   - its first word ends in ':' ("cp: cannot stat", "tar: x: Cannot
//     stat", "x.sh: line 7: y: command not found"), the failure after it;
//   - or the word opens a part of the line after ": " ("near line 12: no
//     such table");
//   - or the word opens the line, capitalized, and is not a noun that prose
//     uses ("Cannot find module", "Can't locate"; not "Errors returned");
//   - or it is one of the line's first two words and ends in ':' ("fatal
//     error: x", "Error: y").
//
// Markdown is not a message: a table row, a heading, a list item, a line
// that quotes code in backticks.
func message(line []byte, i int) bool {
	body := bytes.TrimLeft(line, " \t")
	if len(body) == 0 || bytes.IndexByte([]byte("|#>*-"), body[0]) >= 0 || codeSpan(line) {
		return false
	}
	lead := line[:i]
	first := body
	if k := bytes.IndexAny(body, " \t"); k >= 0 {
		first = body[:k]
	}
	if len(first) > 1 && first[len(first)-1] == ':' && len(line)-len(body)+len(first) <= i {
		return true
	}
	if bytes.HasSuffix(lead, []byte(": ")) {
		return true
	}
	opens := len(bytes.TrimLeft(lead, " \t[(")) == 0
	if opens && 'A' <= line[i] && line[i] <= 'Z' && !noun(line[i:]) {
		return true
	}
	j := i
	for j < len(line) && (isLetter(line[j]) || line[j] == '\'') {
		j++
	}
	return j < len(line) && line[j] == ':' && len(bytes.Fields(lead)) <= 1
}

// noun reports whether w starts with a word of the vocabulary that prose
// uses as a noun ("Errors returned from this package ...").
func noun(w []byte) bool {
	for _, n := range []string{"error", "exception", "failure", "conflict", "violation", "overflow", "panic", "fatal", "invalid", "abort"} {
		if hasFold(w, n) {
			return true
		}
	}
	return false
}

// codeSpan reports whether line quotes code in Markdown's backticks: a
// '`' closed by another on the line (ld's "`name'" is no code span).
func codeSpan(line []byte) bool {
	i := bytes.IndexByte(line, '`')
	return i >= 0 && bytes.IndexByte(line[i+1:], '`') >= 0
}

// wordEnd moves end past one of suffixes when the word goes on with it,
// and reports whether the word ends there.
func wordEnd(line []byte, end *int, suffixes []string) bool {
	if *end >= len(line) || !isLetter(line[*end]) {
		return true
	}
	for _, s := range suffixes {
		if hasFold(line[*end:], s) {
			if e := *end + len(s); e >= len(line) || !isLetter(line[e]) {
				*end = e
				return true
			}
		}
	}
	return false
}

// bounded reports whether line[i:end] stands as a word of prose: not a
// part of a flag (-Werror, --no-abort), a path (/usr/include/error.h), an
// identifier (errors_test, abort_handler, ErrorHandling) or a file name.
func bounded(line []byte, i, end int) bool {
	if i > 0 {
		switch line[i-1] {
		case '-', '_', '/', '.', '\\', '=', '$', '@', '#':
			return false
		}
	}
	if end < len(line) {
		switch c := line[end]; {
		case c == '_' || isDigit(c) || c == '(' && hasPrefix(line[end:], "()"):
			return false
		case c == '.' && end+1 < len(line) && wordByte(line[end+1]):
			return false // error.go, ABORT.7.gz
		case (c == '-' || c == '/') && end+1 < len(line) && isLetter(line[end+1]):
			return false // fail-over, error/handler
		}
	}
	return true
}

// negated reports whether the word at line[i:end] is counted as none:
// "0 errors", "no errors", "without error", "errors: 0", "failed=0",
// "ERROR SUMMARY: 0 errors" (valgrind's header of its count).
func negated(line []byte, i, end int) bool {
	before := bytes.TrimRight(line[:i], " \t(")
	j := len(before)
	for j > 0 && !isSpace(before[j-1]) && before[j-1] != '(' && before[j-1] != ',' {
		j--
	}
	switch w := string(bytes.ToLower(before[j:])); w {
	case "0", "no", "zero", "without", "non", "expected", "ignoring", "recovered":
		return true
	}
	after := line[end:]
	k := 0
	for k < len(after) && (after[k] == ' ' || after[k] == ':' || after[k] == '=') {
		k++
	}
	if k < len(after) && after[k] == '0' && (k+1 == len(after) || !isDigit(after[k+1]) && after[k+1] != '.') {
		return true
	}
	if hasFold(after[k:], "summary") {
		return true
	}
	return false
}

// alone reports whether the word is all the line holds: a name in a
// listing (ls of C++ headers lists "exception"), not a message.
func alone(line []byte, i, end int) bool {
	return len(bytes.TrimSpace(line[:i])) == 0 && len(bytes.TrimSpace(line[end:])) == 0
}

func wordByte(c byte) bool { return isLetter(c) || isDigit(c) || c == '_' }

func isLetter(c byte) bool { return 'a' <= lower[c] && lower[c] <= 'z' }

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// severityWord matches a line whose first words are a product's name (at
// most two words, none of them prose's: short, without a quote) and then
// a severity, capitalized or in capitals, ended by ':' and followed by a
// message: "PHP Fatal error:  Uncaught Error", "PHP Warning:  Undefined
// array key", "Error: Cannot find module", "Fatal Error: x". The log
// level rules take the levels of logs ("ERROR" among a line's fields);
// rustc's and the compilers' rules the lower case "error: " at a line's
// start. Error matches error, fatal and critical; Warning, warning.
func severityWord(sev Severity) func([]byte) bool {
	words := []string{"fatal error", "error", "fatal", "critical"}
	if sev == Warning {
		words = []string{"warning"}
	}
	return func(line []byte) bool {
		p := indentOf(line)
		for w := 0; w < 3 && p < len(line); w++ {
			if c := line[p]; 'A' <= c && c <= 'Z' {
				for _, s := range words {
					if e := p + len(s); hasFold(line[p:], s) && e+1 < len(line) && line[e] == ':' && line[e+1] == ' ' &&
						len(bytes.TrimSpace(line[e+1:])) > 0 {
						return true
					}
				}
			}
			// The next word; this one must be a name.
			q := p
			for q < len(line) && line[q] != ' ' && line[q] != '\t' {
				if c := line[q]; c == '"' || c == '\'' || c == '`' || c == '=' {
					return false
				}
				q++
			}
			if q-p > 24 || q == p {
				return false
			}
			for q < len(line) && (line[q] == ' ' || line[q] == '\t') {
				q++
			}
			p = q
		}
		return false
	}
}
