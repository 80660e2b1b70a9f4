package highlight

import "bytes"

// maxSpans bounds the go test spans remembered at once.
const maxSpans = 4096

// goTests follows go test -v output, which prints a test's log lines (its
// t.Errorf messages among its t.Logf ones) under its "=== RUN" line but its
// "--- FAIL" verdict later, with its parent's. It remembers, for each test
// not yet passed, the lines of its first run of output.
type goTests struct {
	spans map[string]Span
	open  string // the test whose output runs now; "" for none
	from  int64  // its "=== RUN" (or CONT, NAME) line
}

func (t *goTests) line(n int64, body []byte) {
	if len(body) < 4 {
		return
	}
	if body[0] == '=' && hasPrefix(body, "=== ") {
		t.end(n - 1)
		f := bytes.Fields(body[4:])
		if len(f) == 2 && (string(f[0]) == "RUN" || string(f[0]) == "CONT" || string(f[0]) == "NAME") {
			t.open, t.from = string(f[1]), n
		}
		return
	}
	b := body[indentOf(body):]
	switch {
	case hasPrefix(b, "--- "):
		t.end(n - 1)
		if f := bytes.Fields(b); len(f) >= 3 && (string(f[1]) == "PASS:" || string(f[1]) == "SKIP:") {
			delete(t.spans, string(f[2]))
		}
	case hasPrefix(body, "PASS") || hasPrefix(body, "FAIL") || hasPrefix(body, "ok "):
		t.end(n - 1)
	}
}

// end closes the open test's output at line to.
func (t *goTests) end(to int64) {
	if t.open == "" {
		return
	}
	if _, ok := t.spans[t.open]; !ok && to > t.from && len(t.spans) < maxSpans {
		t.spans[t.open] = Span{FromLine: t.from, ToLine: to}
	}
	t.open = ""
}

// evidence returns the output span of the test a "--- FAIL: name" line names.
func (t *goTests) evidence(body []byte) (Span, bool) {
	f := bytes.Fields(body)
	if len(f) < 3 {
		return Span{}, false
	}
	name := string(f[2])
	sp, ok := t.spans[name]
	delete(t.spans, name)
	return sp, ok
}
