package highlight

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/truncate"
)

// want is a group expected of a sample.
type want struct {
	from, to int64
	rule     string
	sev      Severity
}

// samples are the real outputs in testdata/highlight (gen.sh made them; see
// its README for the few kept from documentation), one or more per rule
// family, with the groups each must give.
var samples = []struct {
	file  string
	wants []want
}{
	// C and C++, make, the linker.
	{"gcc-error", []want{{1, 5, "gcc-error", Error}}},
	{"gcc-warning", []want{{1, 4, "gcc-warning", Warning}}},
	{"ld-error", []want{{1, 3, "tool-error", Error}}},
	{"make-no-rule", []want{{1, 2, "make", Error}}},
	{"msvc", []want{{3, 5, "msvc-error", Error}}},
	// Go.
	{"go-build", []want{{1, 4, "go-build", Error}}},
	{"go-test-fail", []want{{1, 5, "go-test-fail", Error}}},
	{"go-panic", []want{{1, 6, "go-panic", Error}}},
	{"go-fatal", []want{{1, 6, "go-fatal", Error}}},
	{"go-race", []want{{2, 16, "go-race", Error}}},
	// Rust.
	{"rust-error", []want{{2, 8, "rust-error", Error}, {11, 11, "rust-error", Error}}},
	{"rust-panic", []want{{2, 4, "rust-panic", Error}}},
	{"rust-warning", []want{{2, 8, "rust-warning", Warning}, {10, 11, "rust-warning", Warning}}},
	{"rust-test", []want{{3, 13, "rust-test-case", Error}, {16, 19, "rust-test-result", Error}, {21, 21, "rust-error", Error}}},
	// TypeScript, ESLint.
	{"tsc", []want{{1, 1, "tsc-error", Error}}},
	{"eslint", []want{{3, 4, "eslint-error", Error}, {6, 6, "test-cross", Error}}},
	// Python.
	{"py-traceback", []want{{1, 16, "py-traceback", Error}}},
	{"py-syntax", []want{{1, 4, "exception", Error}}},
	{"pytest", []want{{2, 3, "pytest-section", Error}, {5, 10, "pytest-e", Error}, {14, 15, "pytest-summary", Error}}},
	{"unittest", []want{{3, 9, "unittest", Error}, {12, 17, "unittest", Error}, {22, 22, "unittest-summary", Error}}},
	{"py-logging", []want{{2, 4, "log-error", Error}}},
	// JavaScript test runners, npm and friends.
	{"jest", []want{{1, 2, "fail-line", Error}, {5, 20, "jest-failure", Error}}},
	{"vitest", []want{{5, 5, "test-cross", Error}, {10, 11, "fail-line", Error}, {29, 30, "test-summary", Error}}},
	{"node-test-spec", []want{{1, 19, "test-cross", Error}, {25, 25, "test-summary", Error}, {31, 31, "test-cross", Error}, {34, 52, "test-cross", Error}}},
	{"node-test-tap", []want{{3, 27, "tap-not-ok", Error}, {37, 37, "test-summary", Error}}},
	{"node-exception", []want{{1, 12, "exception", Error}}},
	{"npm-error", []want{{2, 6, "npm-error", Error}}},
	{"yarn", []want{{3, 3, "yarn-error", Error}}},
	{"pnpm", []want{{5, 6, "pnpm-error", Error}}},
	// Java, Gradle, Maven.
	{"javac-error", []want{{1, 9, "javac-error", Error}}},
	{"java-exception", []want{{1, 2, "java-thread", Error}}},
	{"java-caused-by", []want{{1, 6, "exception", Error}}},
	{"javac-warning", []want{{1, 5, "javac-warning", Warning}, {7, 11, "javac-warning", Warning}}},
	{"gradle", []want{{1, 7, "gradle-task", Error}, {9, 15, "gradle-failure", Error}, {18, 18, "gradle-task", Error}}},
	{"maven", []want{{3, 3, "maven-warning", Warning}, {5, 5, "maven-error", Error}, {7, 7, "maven-error", Error}, {12, 12, "maven-failure", Error}}},
	// The process died.
	{"segfault", []want{{1, 1, "segfault", Error}}},
	{"killed", []want{{1, 1, "killed", Error}}},
	{"aborted", []want{{1, 1, "aborted", Error}}},
	{"oom", []want{{1, 1, "oom", Error}}},
	{"git-fatal", []want{{1, 1, "fatal", Error}}},
	// Sanitizers and valgrind (the words of failure of any tool: vocab).
	{"sanitizers", []want{{2, 9, "sanitizer", Error}, {11, 12, "ubsan", Error}, {14, 17, "valgrind", Error}, {19, 19, "valgrind-summary", Error}, {23, 27, "sanitizer", Error}}},
	{"vocab", []want{{2, 5, "vocab", Error}, {7, 10, "core-dumped", Error}}},
	{"vocab-clean", nil},
	// Logs.
	{"klog", []want{{2, 3, "klog-error", Error}}},
	{"slog", []want{{2, 3, "json-error", Error}, {5, 6, "logfmt-error", Error}}},
	{"pino", []want{{2, 3, "json-error", Error}}},
}

func TestRules(t *testing.T) {
	for _, s := range samples {
		t.Run(s.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("../testdata/highlight", s.file+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			r := Scan(b, Options{})
			var got []want
			for _, g := range r.Groups {
				got = append(got, want{g.FromLine, g.ToLine, g.Rule, g.Severity})
				checkLines(t, b, g)
			}
			if !equalWants(got, s.wants) {
				t.Errorf("groups:\n got %v\nwant %v", got, s.wants)
			}
		})
	}
}

func equalWants(a, b []want) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkLines checks that g's lines are the output's cleaned lines at the
// numbers g claims.
func checkLines(t *testing.T, out []byte, g Group) {
	t.Helper()
	lines := bytes.SplitAfter(out, []byte("\n"))
	if int64(len(g.Lines)) != g.ToLine-g.FromLine+1 {
		t.Fatalf("group %d-%d holds %d lines", g.FromLine, g.ToLine, len(g.Lines))
	}
	for i, l := range g.Lines {
		if want := string(truncate.CleanLine(lines[g.FromLine-1+int64(i)])); l != want {
			t.Errorf("line %d: got %q, want %q", g.FromLine+int64(i), l, want)
		}
	}
}

// TestEveryRuleHasASample: each row of the table matches a line of a real
// sample or of the corpus, so that no rule is untested.
func TestEveryRuleHasASample(t *testing.T) {
	seen := map[string]bool{}
	see := func(b []byte) {
		for _, l := range bytes.SplitAfter(b, []byte("\n")) {
			body, _ := truncate.SplitEnding(truncate.CleanLine(l))
			if m := scan(body); m != 0 {
				for _, r := range Rules() {
					if r.Need&m != 0 && r.Matches(body) {
						seen[r.Name] = true
					}
				}
			}
		}
	}
	for _, b := range samplesRead(t) {
		see(b)
	}
	for _, r := range Rules() {
		if !seen[r.Name] {
			t.Errorf("rule %s matches no sample", r.Name)
		}
	}
}

// TestCorpus: the groups of the corpus show every key line, and the clean
// runs have none. The clean runs are scanned whole; the others' groups,
// in the quick run, as quickOutput cuts them (the lines around each key, the
// starts and ends: TestBlockIsLine's scans, made once), whole with
// TOOLD_LONG=1.
func TestCorpus(t *testing.T) {
	t.Parallel()
	cs := testCorpus(t)
	if len(cs) < 12 {
		t.Fatalf("%d cases, want at least 12", len(cs))
	}
	quick := fixture(t, quickCorpus)
	for i, c := range cs {
		t.Run(c.Name, func(t *testing.T) {
			if c.Clean {
				if gs := failureGroups(corpusScan(t, c.Name).Groups); len(gs) > 0 {
					t.Fatalf("clean run: %d groups, the first %d-%d %q", len(gs), gs[0].FromLine, gs[0].ToLine, gs[0].Lines)
				}
				return
			}
			out, r := c.Output, Result{}
			if testenv.Long() {
				r = corpusScan(t, c.Name)
			} else {
				out, r = quick[i], fixture(t, quickScans)[i]
			}
			for _, g := range r.Groups {
				checkLines(t, out, g)
			}
		})
	}
}

func TestKey(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"f001.c:2:7: warning: unused variable 'x'", "f399.c:12:17: warning: unused variable 'x'"},
		{"2026-11-22T02:00:00Z ERROR request 0xdeadbeef failed", "2026-11-23T13:14:15Z ERROR request 0x00c0001234 failed"},
		{"cannot open /var/db/a.db: denied", "cannot open ./x/b.db: denied"},
		{"id=3f2a9c01d4 done", "id=ab12ef7788 done"},
	} {
		if Key([]byte(tc.a)) != Key([]byte(tc.b)) {
			t.Errorf("Key(%q) = %q != Key(%q) = %q", tc.a, Key([]byte(tc.a)), tc.b, Key([]byte(tc.b)))
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"--- FAIL: TestScale/case_0517", "--- FAIL: TestParse/empty"},
		{"error: undefined: x", "error: undefined: y"},
	} {
		if Key([]byte(tc.a)) == Key([]byte(tc.b)) {
			t.Errorf("Key(%q) == Key(%q) = %q", tc.a, tc.b, Key([]byte(tc.a)))
		}
	}
	if k := Key([]byte(strings.Repeat("word ", 1000))); len(k) > maxKey {
		t.Errorf("key of %d bytes", len(k))
	}
}

// denseLog is an error-dense service log: lines lines, one in six an ERROR
// of one of three shapes with random words and ids; it returns the log and,
// per shape, the count and the first and last line of its lines.
func denseLog(lines int) ([]byte, [3]Kind) {
	r := rand.New(rand.NewPCG(14, 6))
	words := []string{"orders", "users", "carts", "stock", "prices", "invoices", "sessions"}
	causes := []string{"deadlock", "constraint", "serialization", "disk", "lock-timeout"}
	var b bytes.Buffer
	var ks [3]Kind
	for i := 1; i <= lines; i++ {
		ts := fmt.Sprintf("2026-11-22 02:%02d:%02d,%03d", i/3600%60, i/60%60, i%1000)
		if i%6 != 0 {
			fmt.Fprintf(&b, "%s INFO [http] request %08x served /api/%s in %d ms\n", ts, r.Uint32(), words[r.IntN(len(words))], r.IntN(300))
			continue
		}
		k := r.IntN(10) // shapes of 50%, 30%, 20%
		s := 0
		switch {
		case k < 5:
			fmt.Fprintf(&b, "%s ERROR [db] query on %s failed: %s (id=%d)\n", ts, words[r.IntN(len(words))], causes[r.IntN(len(causes))], r.IntN(1e6))
		case k < 8:
			s = 1
			fmt.Fprintf(&b, "%s ERROR [http] request %08x to /api/%s timed out after %d ms status=504\n", ts, r.Uint32(), words[r.IntN(len(words))], r.IntN(30000))
		default:
			s = 2
			fmt.Fprintf(&b, "%s ERROR [auth] token %016x for user %s rejected: %s\n", ts, r.Uint64(), words[r.IntN(len(words))], causes[r.IntN(len(causes))])
		}
		if ks[s].Count == 0 {
			ks[s].FirstLine = int64(i)
		}
		ks[s].Count++
		ks[s].LastLine = int64(i)
	}
	return b.Bytes(), ks
}

// TestKinds: the kinds of an error-dense log are its three shapes of
// ERROR lines, most frequent first, with exact counts and first and last
// lines, their words that vary masked and those every line of the kind
// holds kept (a date, status=504); a clean output has none.
func TestKinds(t *testing.T) {
	t.Parallel()
	// 12,000 lines (2,000 of them ERROR) in the quick run, 60,000 with
	// TOOLD_LONG=1: the kinds, their order and counts are the same checks.
	out, want := denseLog(testenv.Size(12000, 60000))
	res := Scan(out, Options{})
	if len(res.Kinds) != 3 {
		t.Fatalf("%d kinds, want 3: %+v", len(res.Kinds), res.Kinds)
	}
	// The date and the status every line of a kind shares stay (issue
	// 28: a kind masks only what varies within it, as Drain does).
	texts := []string{"2026-11-22 <*> ERROR [db] query on <*> failed: <*> (id=<*>)",
		"2026-11-22 <*> ERROR [http] request <*> to <*> timed out after <*> ms status=504",
		"2026-11-22 <*> ERROR [auth] token <*> for user <*> rejected: <*>"}
	for i, k := range res.Kinds {
		w := want[i]
		if k.Text != texts[i] || k.Count != w.Count || k.FirstLine != w.FirstLine || k.LastLine != w.LastLine {
			t.Errorf("kind %d: %q %d lines %d-%d; want %q %d lines %d-%d", i, k.Text, k.Count, k.FirstLine, k.LastLine,
				texts[i], w.Count, w.FirstLine, w.LastLine)
		}
	}
	if res.HitLines != want[0].Count+want[1].Count+want[2].Count {
		t.Errorf("%d hit lines, want %d", res.HitLines, want[0].Count+want[1].Count+want[2].Count)
	}
	if k := Scan([]byte(strings.Repeat("ok\n", 100)), Options{}).Kinds; len(k) != 0 {
		t.Errorf("kinds of a clean output: %+v", k)
	}
}

// TestRustContinuation: a bare "error: x" or "warning: x" (rustc's shape)
// takes rustc's snippet lines after it, not every line up to a blank one:
// a line of a long log after it is not part of it.
func TestRustContinuation(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 400; i++ {
		if i == 200 {
			b.WriteString("error: boom at step 200\n")
			continue
		}
		fmt.Fprintf(&b, "step %d %s\n", i, strings.Repeat("x", 500))
	}
	r := Scan([]byte(b.String()), Options{})
	if len(r.Groups) != 1 || r.Groups[0].FromLine < 199 || r.Groups[0].ToLine > 200 {
		t.Fatalf("groups %+v, want one of lines 199-200 at most", spans(r.Groups))
	}
	r = Scan([]byte("error[E0308]: mismatched types\n --> src/main.rs:2:18\n  |\n2 |     let x: i32 = \"a\";\n  |            ^^^ expected `i32`\n...\nstep 3 done\n"), Options{})
	if len(r.Groups) != 1 || r.Groups[0].FromLine != 1 || r.Groups[0].ToLine != 6 {
		t.Fatalf("groups %+v, want lines 1-6", spans(r.Groups))
	}
}

func spans(gs []Group) []Span {
	var ss []Span
	for _, g := range gs {
		ss = append(ss, g.Span)
	}
	return ss
}

// TestMaskWords: a kind's text keeps the brackets around a masked value.
func TestMaskWords(t *testing.T) {
	for in, want := range map[string]string{
		"panic: runtime error: index out of range [5] with length 3": "panic: runtime error: index out of range [<*>] with length <*>",
		"make: *** [Makefile:12: all] Error 2":                       "make: *** [<*>: all] Error <*>",
		"failed (id=42)":                                             "failed (id=<*>)",
	} {
		if got := strings.Join(maskWords([]byte(in)), " "); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
