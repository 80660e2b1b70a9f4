package highlight

import (
	"bytes"
	"strings"
	"testing"
)

// TestPytestEvidence: a pytest verdict in the short summary brings the
// body of its test from the FAILURES section, on real pytest outputs: the
// evidence of the group holding the verdict is the span of lines that
// holds the body's "E" line.
func TestPytestEvidence(t *testing.T) {
	t.Parallel()
	cs := testCorpus(t)
	outs := map[string][]byte{}
	for _, c := range cs {
		outs[c.Name] = c.Output
	}
	tests := []struct {
		output, verdict, body string
	}{
		{"pytest-failures", "FAILED test_parse.py::test_parse_port[313]", "E       AssertionError: assert 314 == 313"},
		{"pytest-failures", "FAILED test_parse.py::test_parse_port[640]", "E           ValueError: port 640 is reserved"},
		{"pytest-logged-errors", "FAILED test_client.py::test_refund[233]", "E       AssertionError: refund total 233.5 != 233.0"},
		{"pytest-logged-errors", "FAILED test_client.py::TestSession::test_token_refresh", "E       AssertionError: refreshed token is already expired"},
	}
	for _, tt := range tests {
		lines := bytes.SplitAfter(outs[tt.output], []byte("\n"))
		var found bool
		for _, g := range corpusScan(t, tt.output).Groups {
			for i, l := range g.Lines {
				if !strings.HasPrefix(l, tt.verdict+" ") {
					continue
				}
				found = true
				if !evidenceHolds(g, lines, tt.body) {
					t.Errorf("%s: the verdict at line %d brings %+v, without %q", tt.output, g.FromLine+int64(i), g.Evidence, tt.body)
				}
			}
		}
		if !found {
			t.Errorf("%s: no group holds %q", tt.output, tt.verdict)
		}
	}
}

// evidenceHolds reports whether one of g's evidence spans holds a line
// with want among lines (the output's, from line 1).
func evidenceHolds(g Group, lines [][]byte, want string) bool {
	for _, ev := range g.Evidence {
		if ev.ToLine-ev.FromLine >= 40 {
			return false // longer than a group may be
		}
		for n := ev.FromLine; n <= ev.ToLine && n <= int64(len(lines)); n++ {
			if strings.Contains(string(lines[n-1]), want) {
				return true
			}
		}
	}
	return false
}

// TestPytestHeaders: the key of a body's header is what its verdict names.
func TestPytestHeaders(t *testing.T) {
	for _, tt := range []struct{ header, verdict string }{
		{"_____________________________ test_parse_port[313] _____________________________", "FAILED test_parse.py::test_parse_port[313] - AssertionError"},
		{"___________________ TestSession.test_token_refresh ___________________", "FAILED test_client.py::TestSession::test_token_refresh - x"},
		{"_________________ ERROR at setup of test_db _________________", "ERROR test_db.py::test_db - fixture 'pg' not found"},
		{"_________________ ERROR collecting tests/test_x.py _________________", "ERROR tests/test_x.py - ImportError"},
	} {
		py := pyTests{spans: map[string]Span{}}
		py.line(1, []byte("=================== FAILURES ==================="))
		py.line(2, []byte(tt.header))
		py.line(9, []byte("=========== short test summary info ==========="))
		if sp, ok := py.evidence([]byte(tt.verdict)); !ok || sp != (Span{2, 8}) {
			t.Errorf("%q then %q: %+v %v", tt.header, tt.verdict, sp, ok)
		}
	}
	// Headers outside a FAILURES or ERRORS section are not bodies.
	py := pyTests{spans: map[string]Span{}}
	py.line(1, []byte("___ test_x ___"))
	py.line(5, []byte("=== 1 passed ==="))
	if _, ok := py.evidence([]byte("FAILED t.py::test_x")); ok {
		t.Error("a header outside FAILURES became a body")
	}
}
