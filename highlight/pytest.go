package highlight

import (
	"bytes"
	"strings"
)

// pyTests follows pytest's report, which prints each failed test's body
// (its source, the "E" lines, the captured output) under a "____ name ____"
// header in the FAILURES (or ERRORS) section, and the verdicts later, in
// the short test summary ("FAILED file.py::name - message"). It remembers
// the span of each body, so that a verdict brings its body along as
// evidence when the body has left the detector's memory or its kept groups.
type pyTests struct {
	spans   map[string]Span
	section bool   // inside a FAILURES or ERRORS section
	name    string // the test whose body runs now; "" for none
	from    int64  // its header line
	firstE  int64  // its first "E" line, 0 before one
	lastE   int64  // its last "E" line
}

// line takes a line that starts with '_' or '=' (Block's anchors bring
// them; Line gives every line).
func (t *pyTests) line(n int64, body []byte) {
	if len(body) < 3 {
		return
	}
	switch {
	case body[0] == '_' && hasPrefix(body, "___"):
		if !t.section {
			return
		}
		t.end(n - 1)
		if name := pyHeader(body); name != "" {
			t.name, t.from, t.firstE, t.lastE = name, n, 0, 0
		}
	case body[0] == '=' && hasPrefix(body, "==="):
		t.end(n - 1)
		title := string(bytes.Trim(body, "= "))
		t.section = title == "FAILURES" || title == "ERRORS"
	}
}

// sawE notes a pytest "E" line (a hit of the pytest-e rule).
func (t *pyTests) sawE(n int64) {
	if t.name == "" {
		return
	}
	if t.firstE == 0 {
		t.firstE = n
	}
	t.lastE = n
}

// The part of a body a verdict brings: the lines before its first "E" line
// (the source that failed, marked ">"), the "E" lines, and after them the
// blank line and the "file.py:N: Error" line; not the captured output that
// may follow, which can be long.
const (
	pyEvidenceBefore = 8
	pyEvidenceAfter  = 2
)

// end closes the body in progress at line to.
func (t *pyTests) end(to int64) {
	if t.name == "" {
		return
	}
	if _, ok := t.spans[t.name]; !ok && to >= t.from && len(t.spans) < maxSpans {
		sp := Span{FromLine: t.from, ToLine: to}
		if t.firstE > 0 {
			// A long body is cut around its "E" lines, where it failed.
			sp.FromLine = max(sp.FromLine, t.firstE-pyEvidenceBefore)
			sp.ToLine = min(sp.ToLine, t.lastE+pyEvidenceAfter)
		}
		t.spans[t.name] = sp
	}
	t.name = ""
}

// reset forgets the body in progress (a gap in the lines).
func (t *pyTests) reset() { t.name, t.section = "", false }

// pyHeader returns the key of a body's header line, "____ name ____": the
// test's name as its verdict names it (see pyVerdict); "" when the line is
// not a header.
func pyHeader(body []byte) string {
	s := strings.TrimSpace(string(body))
	if !strings.HasSuffix(s, "___") {
		return ""
	}
	s = strings.TrimSpace(strings.Trim(s, "_"))
	for _, p := range []string{"ERROR at setup of ", "ERROR at teardown of ", "ERROR collecting "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

// evidence returns the body span of the test a summary line names:
// "FAILED file.py::Class::test_x[param] - message" names the body headed
// "Class.test_x[param]"; "ERROR file.py - …" a collection error of file.py.
func (t *pyTests) evidence(body []byte) (Span, bool) {
	f := bytes.Fields(body)
	if len(f) < 2 {
		return Span{}, false
	}
	id := string(f[1])
	if _, rest, ok := strings.Cut(id, "::"); ok {
		id = strings.ReplaceAll(rest, "::", ".")
	}
	sp, ok := t.spans[id]
	delete(t.spans, id)
	return sp, ok
}
