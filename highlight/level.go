package highlight

// levelField matches what the log-error and log-warning rules' expressions
// say, `^(?:\S+\s+){0,6}?[\[<(]?(?:WORD|...)(?:[\]>):]|\s|$)`, without the
// regexp: one of the first seven whitespace-separated fields of the line
// starts with one of words, after at most one of "[<(", and the word ends
// there (at one of "]>):", a space or the line's end). On an error-dense
// log these rules run on a line in three, and the regexp's backtracking
// cost more than the rest of the line's rules together. \s is the regexp's:
// [\t\n\f\r ]. TestLevelFieldIsRegexp and FuzzLevelField hold it to them.
func levelField(words ...string) func([]byte) bool {
	// A field can start a word only at one of words' first bytes, or at
	// one of "[<(": most fields are ruled out by their first byte.
	var starts [256]bool
	for _, w := range words {
		starts[w[0]] = true
	}
	starts['['], starts['<'], starts['('] = true, true, true
	return func(line []byte) bool {
		p := 0
		for range 7 {
			if p == len(line) || spaceTable[line[p]] {
				return false
			}
			if starts[line[p]] && levelAt(line, p, words) {
				return true
			}
			for p < len(line) && !spaceTable[line[p]] {
				p++
			}
			for p < len(line) && spaceTable[line[p]] {
				p++
			}
		}
		return false
	}
}

// spaceTable is reSpace as a table.
var spaceTable = func() (t [256]bool) {
	for c := range t {
		t[c] = reSpace(byte(c))
	}
	return t
}()

// levelAt reports whether one of words, after at most one of "[<(", starts
// line at p and ends there.
func levelAt(line []byte, p int, words []string) bool {
	if levelWordAt(line, p, words) {
		return true
	}
	switch line[p] {
	case '[', '<', '(':
		return levelWordAt(line, p+1, words)
	}
	return false
}

func levelWordAt(line []byte, p int, words []string) bool {
	for _, w := range words {
		if hasPrefix(line[p:], w) {
			e := p + len(w)
			if e == len(line) || reSpace(line[e]) {
				return true
			}
			switch line[e] {
			case ']', '>', ')', ':':
				return true
			}
		}
	}
	return false
}

// reSpace reports whether c is in the regexp's \s.
func reSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}
