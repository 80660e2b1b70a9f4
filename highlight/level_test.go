package highlight

import (
	"bytes"
	"flag"
	"sync"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// fastLines are lines on which the rules' shortcuts (a Match beside Re,
// the first byte of an anchored Re) are held to the regexps: every line of
// the corpus and of the generated logs, and edge cases of the level rules.
// TestFastIsRegexp and FuzzFastIsRegexp share them (makeFastLines, once).
func fastLines(t testing.TB) [][]byte { return fixture(t, makeFastLines) }

var makeFastLines = sync.OnceValues(func() ([][]byte, error) {
	cs, err := loadCorpus()
	if err != nil {
		return nil, err
	}
	// The quick run: the first 8 lines of each output (20 cost 1 CPU-s
	// more under -race, between TestFastIsRegexp and TestOneScan, and met
	// the same headers' shapes) and each line that
	// holds one of its keys (the lines the rules are for), each cut at 4
	// KiB (the rules' regexps over the 512 KiB line of minified JSON took
	// 40 s under -race; 60 lines cut at 16 KiB and logs of 32 KiB 5 s; 40
	// lines and logs of 16 KiB 1.5 s), and logs of 8 KiB; TOOLD_LONG=1 adds
	// every line, whole, and logs of 1 MiB.
	per, width, size := testenv.Size(8, 1<<30), testenv.Size(4<<10, 1<<30), testenv.Size(8<<10, 1<<20)
	var lines [][]byte
	for _, c := range cs {
		ls := bytes.Split(c.Output, []byte("\n"))
		for i, l := range ls {
			if i < per || holdsKey(l, c.Keys) {
				lines = append(lines, l[:min(len(l), width)])
			}
		}
	}
	lines = append(lines, bytes.Split(errorLog(size), []byte("\n"))...)
	lines = append(lines, bytes.Split(logText(size), []byte("\n"))...)
	for _, s := range []string{"", "ERROR", " ERROR x", "[ERROR] x", "(WARN) x", "<CRIT>", "CRITICAL:", "CRITICALLY x",
		"a b c d e f ERROR", "a b c d e f g ERROR", "a\tb\fc\rd\ve ERROR x", "a  b   [FATAL]x", "x [[ERROR] y", "x ERRORS y",
		"x\u00a0ERROR y", "\xffERROR x", "é WARNING: y", "WARNINGS x", "[WARN x", "a b WARN", "ld: error: x", "git: fatal: y", "fatal: z", "x: fatal error: y"} {
		lines = append(lines, []byte(s))
	}
	return lines, nil
})

// holdsKey reports whether line holds one of keys.
func holdsKey(line []byte, keys []string) bool {
	for _, k := range keys {
		if bytes.Contains(line, []byte(k)) {
			return true
		}
	}
	return false
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
	t.Parallel()
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

// FuzzFastIsRegexp: whatever the line, the shortcuts say what the
// regexps say. Its seeds are fastLines' first 300 when fuzzing (or with
// TOOLD_LONG=1), else the first 30: TestFastIsRegexp checks each of them
// already.
func FuzzFastIsRegexp(f *testing.F) {
	seeds := 30
	if fz := flag.Lookup("test.fuzz"); testenv.Long() || fz != nil && fz.Value.String() != "" {
		seeds = 300
	}
	for _, l := range fastLines(f)[:seeds] {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		checkFast(t, line)
	})
}

// FuzzKey: Key is the key of the plain definition (keyRef: the words of
// bytes.Fields, each normalized).
func FuzzKey(f *testing.F) {
	for _, s := range []string{"", "a b", "error at 0xdeadbeef12 in /usr/lib/x.so", "TestX/case_0517 failed", "deadbeefcafe", "é\u00a0x 12", "x\\y.z 7a7a7a7a"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if got, want := Key(line), keyRef(line); got != want {
			t.Errorf("Key(%q) = %q, want %q", line, got, want)
		}
	})
}

func keyRef(line []byte) string {
	out := make([]byte, 0, min(len(line), maxKey))
	for _, w := range bytes.Fields(line) {
		if len(out) >= maxKey {
			break
		}
		if len(out) > 0 {
			out = append(out, ' ')
		}
		switch {
		case isPathRef(w):
			out = append(out, '/')
		default:
			for i := 0; i < len(w); {
				n := hexRun(w[i:])
				if n < 8 && isDigit(w[i]) {
					n = 1
				}
				if n >= 8 || n == 1 && isDigit(w[i]) {
					if len(out) == 0 || out[len(out)-1] != '#' {
						out = append(out, '#')
					}
					i += n
					continue
				}
				out = append(out, w[i])
				i++
			}
		}
	}
	return string(out[:min(len(out), maxKey)])
}

func isPathRef(w []byte) bool {
	i := bytes.LastIndexAny(w, `/\`)
	if i < 0 {
		return false
	}
	switch w[0] {
	case '/', '\\', '.', '~':
		return true
	}
	return bytes.IndexByte(w[i:], '.') > 0
}
