package highlight

import (
	"bytes"
	"os"
	"testing"

	"github.com/toold/toold/internal/corpus"
)

// fastLines are lines on which the rules' shortcuts (a Match beside Re,
// the first byte of an anchored Re) are held to the regexps: every line of
// the corpus and of the generated logs, and edge cases of the level rules.
func fastLines(t testing.TB) [][]byte {
	cs, err := corpus.Load("../testdata/outputs")
	if err != nil {
		t.Fatal(err)
	}
	per, size := 60, 32<<10 // lines of each output, bytes of each log
	if os.Getenv("TOOLD_LONG") != "" {
		per, size = 1<<30, 1<<20
	}
	var lines [][]byte
	for _, c := range cs {
		ls := bytes.Split(c.Output, []byte("\n"))
		lines = append(lines, ls[:min(len(ls), per)]...)
	}
	lines = append(lines, bytes.Split(errorLog(size), []byte("\n"))...)
	lines = append(lines, bytes.Split(logText(size), []byte("\n"))...)
	for _, s := range []string{"", "ERROR", " ERROR x", "[ERROR] x", "(WARN) x", "<CRIT>", "CRITICAL:", "CRITICALLY x",
		"a b c d e f ERROR", "a b c d e f g ERROR", "a\tb\fc\rd\ve ERROR x", "a  b   [FATAL]x", "x [[ERROR] y", "x ERRORS y",
		"x\u00a0ERROR y", "\xffERROR x", "é WARNING: y", "WARNINGS x", "[WARN x", "a b WARN", "ld: error: x", "git: fatal: y", "fatal: z", "x: fatal error: y"} {
		lines = append(lines, []byte(s))
	}
	return lines
}

// checkFast fails when a shortcut of the rules (Match, the first byte, the
// literals) says otherwise than the regexp on line.
func checkFast(t testing.TB, line []byte) {
	for i := range Rules() {
		r := &Rules()[i]
		if r.Re == nil {
			continue
		}
		want := r.Re.Match(line)
		if r.Match != nil && r.Match(line) != want {
			t.Errorf("rule %s: Match(%q) = %v, the regexp says %v", r.Name, line, !want, want)
		}
		if want && !r.mayStart(line) {
			t.Errorf("rule %s: mayStart(%q) is false, but the regexp matches", r.Name, line)
		}
		if want && !hasAny(line, r.Lits) {
			t.Errorf("rule %s: %q holds none of %q, but the regexp matches", r.Name, line, r.Lits)
		}
	}
}

func TestFastIsRegexp(t *testing.T) {
	for _, l := range fastLines(t) {
		checkFast(t, l)
	}
}

// The shortcuts rule out most lines of a log by their first byte.
func TestFirstBytesRuleOut(t *testing.T) {
	line := []byte("2026-11-22T07:00:00.006Z ERROR [db] req=1 x failed: connection refused")
	var ran []string
	for _, r := range Rules() {
		if r.Re != nil && r.mayStart(line) {
			ran = append(ran, r.Name)
		}
	}
	if len(ran) > 25 {
		t.Errorf("%d rules may start a timestamped line: %v", len(ran), ran)
	}
	for _, name := range []string{"go-panic", "rust-error", "maven-error", "json-error", "klog-error", "pytest-e"} {
		for _, r := range Rules() {
			if r.Name == name && r.mayStart(line) {
				t.Errorf("rule %s may start %q", name, line)
			}
		}
	}
}

func FuzzFastIsRegexp(f *testing.F) {
	for _, l := range fastLines(f)[:300] {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFast(t, line)
	})
}
