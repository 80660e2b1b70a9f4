package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/toold/toold/internal/corpus"
	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/protocol"
)

// TestExecHighlights runs exec of cat of real tool outputs (the corpus) in
// every mode, at the default limits and at maxBytes 5120: every line a
// model must see is in head, highlights or tail; a clean run has none;
// every highlight holds the whole lines page gives at its numbers; shown
// counts include them; the notice names them.
func TestExecHighlights(t *testing.T) {
	parallel(t) // before its files: they are made beside the other cases
	dir, keys := highlightFiles(t)
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		for _, name := range sample(t, highlightCases, highlightSample...) {
			c := keys[name]
			for _, maxBytes := range []int{51200, 5120} {
				var r execResult
				p.mustCall("exec", map[string]any{"argv": []string{"cat", filepath.Join(dir, name)}, "maxBytes": maxBytes}, &r)
				checkHighlights(t, p, fmt.Sprintf("%s at %d", name, maxBytes), c, r.Stdout, r.Notice, maxBytes)
			}
		}
	})
}

// highlightCases are the corpus cases the end-to-end tests of highlights
// run: each shape of output a detector must handle, and clean ones.
var highlightCases = []string{"make-k-warnings", "go-test-v-subtest", "python-log-traceback", "minified-json-3mb",
	"progress-bar", "pytest-failures", "pytest-logged-errors", "go-test-clean", "jsonl-60k",
	// Issue 28: failures in a tool's own words, a summary that points at
	// them, a mixed-case severity; a clean output of many shapes.
	"lua-nil-index", "unzip-bad-crc", "php-fatal-batches", "apt-show-clean"}

// highlightSample are the cases the quick run shows in the modes other
// than the one that runs them all (wholeTable): failures among passes, one
// giant line, a clean run.
var highlightSample = []string{"go-test-v-subtest", "minified-json-3mb", "go-test-clean"}

// highlightFiles writes highlightCases to files of a directory named as
// the cases, and returns it with the corpus by name.
func highlightFiles(t *testing.T) (string, map[string]corpus.Case) {
	cs, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	keys := map[string]corpus.Case{}
	for _, c := range cs {
		keys[c.Name] = c
		if slices.Contains(highlightCases, c.Name) {
			files[c.Name] = c.Output
		}
	}
	if len(files) != len(highlightCases) {
		t.Fatalf("the corpus has %d of the %d cases", len(files), len(highlightCases))
	}
	return ctFiles(t, files), keys
}

// loadCorpus loads the corpus once for the tests that share it: its
// generated cases cost a CPU-second under -race. The quick run has them at
// the size the detector's and exec's own tests use (a 256 KiB minified
// JSON line, 6,000 JSON-lines records: still a line over both budgets and
// an error record deep in the middle); TOOLD_LONG=1 at full size.
var loadCorpus = sync.OnceValues(func() ([]corpus.Case, error) {
	return corpus.LoadForTests("../../testdata/outputs")
})

// TestProcessHighlights: the output of a background process read through
// process/wait and process/read shows what exec of the same output shows,
// the highlights of the middle among it, numbered as the spool numbers
// lines (the process printed 500 lines before it), in every mode.
func TestProcessHighlights(t *testing.T) {
	parallel(t) // before its files: they are made beside the other cases
	dir, keys := highlightFiles(t)
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		for _, name := range sample(t, highlightCases, highlightSample...) {
			c := keys[name]
			var r protocol.ExecResult
			p.mustCall("exec", map[string]any{"command": "seq 1 500; read x; cat " + filepath.Join(dir, name), "background": true}, &r)
			// The 500 lines are out (1892 bytes) and the process waits for
			// its input: the cursor stands after them.
			var w protocol.ProcessOutput
			w.Cursor = fmt.Sprintf("%d:0", r.Stdout.TotalBytes)
			for got := r.Stdout.TotalBytes; got < 1892; got += w.Stdout.TotalBytes {
				p.mustCall("process/wait", map[string]any{"id": r.Process, "timeoutMs": 30000, "until": map[string]any{"idleMs": 200}}, &w)
				if w.Reason == protocol.ReasonTimeout || !w.Running {
					t.Fatalf("%s: waiting for the 500 lines: %+v", name, w)
				}
			}
			p.mustCall("process/write", map[string]any{"id": r.Process, "stdin": "go\n"}, nil)
			var out struct {
				Reason string  `json:"reason"`
				Since  string  `json:"since"`
				Stdout stream  `json:"stdout"`
				Notice *string `json:"notice"`
			}
			p.mustCall("process/wait", map[string]any{"id": r.Process, "timeoutMs": 60000, "maxBytes": 51200}, &out)
			if out.Reason != protocol.ReasonExit || out.Since != w.Cursor {
				t.Fatalf("%s: wait ended by %q, since %s (want %s)", name, out.Reason, out.Since, w.Cursor)
			}
			checkProcessStream(t, p, name+" wait at 51200", c, out.Stdout, out.Notice, 51200)
			p.mustCall("process/read", map[string]any{"id": r.Process, "since": out.Since, "maxBytes": 5120}, &out)
			checkProcessStream(t, p, name+" read at 5120", c, out.Stdout, out.Notice, 5120)
		}
	})
}

// checkProcessStream checks a process's stream as checkHighlights does,
// and that its lines are numbered on from the 500 lines before it.
func checkProcessStream(t *testing.T, p *peer, name string, c corpus.Case, s stream, n *string, maxBytes int) {
	t.Helper()
	checkHighlights(t, p, name, c, s, n, maxBytes)
	if s.Omitted != nil && s.Omitted.FromLine <= 501 {
		t.Errorf("%s: omitted %+v, numbered as if the output began at line 1", name, s.Omitted)
	}
}

// checkHighlights checks stream s of output c (shown at maxBytes, with
// notice n): every key line shown, none in a clean run, counts that hold
// the highlights, and each highlight the whole lines page gives at its
// numbers, within the omitted ones.
func checkHighlights(t *testing.T, p *peer, name string, c corpus.Case, s stream, n *string, maxBytes int) {
	t.Helper()
	if s.Highlights == nil {
		t.Fatalf("%s: highlights is null", name)
	}
	shown := s.Head + s.Tail
	lines, size := countShown(s.Head)+countShown(s.Tail), len(s.Head)+len(s.Tail)
	for _, h := range s.Highlights {
		shown += h.Text
		lines += countShown(h.Text)
		size += len(h.Text)
	}
	rare := 0
	for _, h := range s.Highlights {
		switch {
		case !slices.Contains(protocol.HighlightReasons, h.Reason):
			t.Errorf("%s: highlight %d-%d has reason %q", name, h.FromLine, h.ToLine, h.Reason)
		case h.Reason == protocol.HighlightRare:
			rare += len(h.Text)
		case c.Clean:
			t.Errorf("%s: a clean run has a highlight of reason %q: %+v", name, h.Reason, h)
		}
	}
	if rare > protocol.RareBytes {
		t.Errorf("%s: %d bytes of rare highlights, more than %d", name, rare, protocol.RareBytes)
	}
	for _, k := range c.Keys {
		if !strings.Contains(shown, k) {
			t.Errorf("%s: key line %q not shown", name, k)
		}
	}
	if s.ShownBytes != size || s.ShownLines != lines || size > maxBytes || s.ShownLines > 2000 {
		t.Errorf("%s: shown %d lines %d bytes; counted %d lines %d bytes (max %d)", name, s.ShownLines, s.ShownBytes, lines, size, maxBytes)
	}
	if len(s.Highlights) == 0 {
		return
	}
	if n == nil || !strings.Contains(*n, fmt.Sprintf("at lines %d", s.Highlights[0].FromLine)) {
		t.Errorf("%s: the notice does not name the highlights: %s", name, ctStr(n))
	}
	from, to := s.Highlights[0].FromLine, s.Highlights[0].ToLine
	for _, h := range s.Highlights {
		from, to = min(from, h.FromLine), max(to, h.ToLine)
	}
	spooled := spoolLines(t, p, s.Spool.ID, from, to)
	for _, h := range s.Highlights {
		if s.Omitted == nil || h.FromLine < s.Omitted.FromLine || h.ToLine > s.Omitted.ToLine {
			t.Errorf("%s: highlight %d-%d outside the omitted lines %+v", name, h.FromLine, h.ToLine, s.Omitted)
			continue
		}
		if want := strings.Join(spooled[h.FromLine-from:h.ToLine-from+1], ""); h.Text != want {
			t.Errorf("%s: highlight %d-%d is %q; page gives %q", name, h.FromLine, h.ToLine, h.Text, want)
		}
	}
}

// spoolLines returns lines from to to of spool id as page gives them, each
// with its '\n' as a preview shows lines (withEndings): in windows as large
// as page gives, not one a highlight, since a page cleans and clips each
// line alone (make-k-warnings has 188 highlights: 188 round trips a
// check, a third of the highlight cases' CPU).
func spoolLines(t *testing.T, p *peer, id string, from, to int64) []string {
	t.Helper()
	var lines []string
	for off := from; off <= to; {
		var w window
		p.mustCall("page", map[string]any{"spool": id, "offset": off, "limit": to - off + 1, "maxBytes": protocol.MaxWindowBytes}, &w)
		if w.PartialLine || w.StartLine != off || w.EndLine < off {
			t.Fatalf("page of spool %s at line %d: lines %d-%d, partial %v", id, off, w.StartLine, w.EndLine, w.PartialLine)
		}
		for _, l := range strings.SplitAfter(w.Content, "\n") {
			if l != "" {
				lines = append(lines, withEndings(l))
			}
		}
		off = w.EndLine + 1
	}
	if int64(len(lines)) != to-from+1 {
		t.Fatalf("page of spool %s: %d lines from %d to %d", id, len(lines), from, to)
	}
	return lines
}

// countShown counts a shown text's lines.
func countShown(s string) int { return int(ctLines([]byte(s))) }

// withEndings is a page's content as the preview shows lines: each with a
// '\n' (a last line without one gets it).
func withEndings(s string) string {
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s
}

// TestExecLongLines: the two shapes a capture's kept ends cut, through
// exec in every mode. A one-line output longer than the capture keeps is
// shown clipped at maxLineChars, and the notice names the page call by
// startByte that reads on; a progress bar redrawn with \r on one raw line
// far longer than the capture keeps shows its final state at maxBytes 5120.
func TestExecLongLines(t *testing.T) {
	parallel(t) // before its files: they are made beside the other cases
	json := []byte(`{"items":[` + strings.Repeat(`{"id":1,"name":"item"},`, 150000) + `{}]}`)
	var bar bytes.Buffer
	bar.WriteString("fetching\n")
	for i := 1; i <= 10000; i++ {
		fmt.Fprintf(&bar, "\r[%-40s] %5d/10000 chunks %s", strings.Repeat("#", i/250), i, strings.Repeat(".", 40))
	}
	bar.WriteString("\nERROR: checksum mismatch\n")
	final := fmt.Sprintf("[%-40s] 10000/10000 chunks %s\n", strings.Repeat("#", 40), strings.Repeat(".", 40))
	dir := ctFiles(t, map[string][]byte{"min.json": json, "bar.txt": bar.Bytes()})
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		var r execResult
		p.mustCall("exec", map[string]any{"argv": []string{"cat", filepath.Join(dir, "min.json")}}, &r)
		s := r.Stdout
		if s.Head != string(json[:2000]) || s.ClippedLines != 1 || s.Spool == nil || r.Notice == nil ||
			!strings.Contains(*r.Notice, fmt.Sprintf("page spool=%s startByte=2000", s.Spool.ID)) {
			t.Fatalf("one line of %d bytes: head %d bytes, clipped %d, notice %s", len(json), len(s.Head), s.ClippedLines, ctStr(r.Notice))
		}
		var w window
		p.mustCall("page", map[string]any{"spool": s.Spool.ID, "startByte": 2000, "maxBytes": 100}, &w)
		if w.Content != string(json[2000:2100]) {
			t.Errorf("page by startByte reads on with %q", w.Content)
		}
		r = execResult{}
		p.mustCall("exec", map[string]any{"argv": []string{"cat", filepath.Join(dir, "bar.txt")}, "maxBytes": 5120}, &r)
		if got := r.Stdout.Head + r.Stdout.Tail; got != "fetching\n"+final+"ERROR: checksum mismatch\n" {
			t.Fatalf("a %d-byte progress bar at maxBytes 5120 shows %q", bar.Len(), got)
		}
	})
}

// TestExecPriority: the two deviations a reviewer found, through exec in
// every mode. A 5000-byte line at maxBytes 1000 is shown clipped to the
// budget, on stdout and stderr, in each preview mode; errors from the
// middle come before head and tail: five among 6000 numbers at maxLines
// 100 are all shown, and an error then a Python traceback at maxLines 14
// show the traceback to its exception line; the notice names them.
func TestExecPriority(t *testing.T) {
	five := `seq 1000; for k in 1 2 3 4 5; do echo "error: problem $k"; seq 1000; done`
	tb := `seq 100; echo "error: config not found"; seq 100; printf 'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n    main()\n  File "app.py", line 2, in main\n    raise ValueError("bad value")\nValueError: bad value\n'; seq 100`
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		// The quick run has the default preview; truncate's own tests
		// hold the rule in each.
		for _, mode := range testenv.Size([]string{"headTail"}, []string{"headTail", "head", "tail"}) {
			for _, cmd := range []string{`printf "%05000d\n" 0`, `printf "%05000d\n" 0 >&2`} {
				var r execResult
				p.mustCall("exec", map[string]any{"command": cmd, "maxBytes": 1000, "preview": mode}, &r)
				s := r.Stdout
				if strings.HasSuffix(cmd, ">&2") {
					s = r.Stderr
				}
				if want := strings.Repeat("0", 999) + "\n"; s.Head != want || s.Tail != "" || s.ClippedLines != 1 || s.ShownLines != 1 ||
					s.ShownBytes != 1000 || s.Omitted != nil || r.Notice == nil || !strings.Contains(*r.Notice, "startByte=999") {
					t.Errorf("%s, %s: head %d bytes, tail %q, clipped %d, shown %d/%d, omitted %+v, notice %s",
						cmd, mode, len(s.Head), s.Tail, s.ClippedLines, s.ShownLines, s.ShownBytes, s.Omitted, ctStr(r.Notice))
				}
			}
			for _, c := range []struct {
				cmd      string
				maxLines int
				want     []string
			}{
				{five, 100, []string{"error: problem 1\n", "error: problem 2\n", "error: problem 3\n", "error: problem 4\n", "error: problem 5\n"}},
				{tb, 14, []string{"error: config not found\n", "Traceback (most recent call last):\n", "ValueError: bad value\n"}},
			} {
				var r execResult
				p.mustCall("exec", map[string]any{"command": c.cmd, "maxLines": c.maxLines, "preview": mode}, &r)
				s := r.Stdout
				shown, lines := s.Head+s.Tail, countShown(s.Head)+countShown(s.Tail)
				for _, h := range s.Highlights {
					shown, lines = shown+h.Text, lines+countShown(h.Text)
				}
				for _, w := range c.want {
					if !strings.Contains("\n"+shown, "\n"+w) {
						t.Errorf("%s at maxLines %d, %s: %q not shown; head %q highlights %+v tail %q", c.cmd, c.maxLines, mode, w, s.Head, s.Highlights, s.Tail)
					}
				}
				if s.HighlightsOmitted != 0 || lines != s.ShownLines || s.ShownLines > c.maxLines || len(s.Highlights) == 0 ||
					r.Notice == nil || !strings.Contains(*r.Notice, fmt.Sprintf("errors at lines %d", s.Highlights[0].FromLine)) {
					t.Errorf("%s, %s: %d groups omitted, %d lines shown (counted %d), notice %s", c.cmd, mode, s.HighlightsOmitted, s.ShownLines, lines, ctStr(r.Notice))
				}
				if mode != "tail" && !strings.HasPrefix(s.Head, "1\n") || mode != "head" && !strings.HasSuffix(s.Tail, "\n100\n") && !strings.HasSuffix(s.Tail, "\n1000\n") {
					t.Errorf("%s, %s: head %q tail %q", c.cmd, mode, s.Head, s.Tail)
				}
			}
		}
	})
}

// TestExecKinds: exec of cat of an error-dense log (one line in six an
// ERROR of one of three shapes, with random words and ids) gives the kinds
// of its ERROR lines with their exact counts, first and last lines, most
// frequent first, and the notice names them, in every mode; a clean output
// of as many lines has kinds []. The logs are 6,000 lines in the quick run
// (1,000 ERROR lines, still far more groups than a preview shows, which is
// when kinds are given), 30,000 with TOOLD_LONG=1.
func TestExecKinds(t *testing.T) {
	parallel(t) // before the logs: they are made beside the other cases
	r := rand.New(rand.NewPCG(14, 60))
	words := []string{"orders", "users", "carts", "stock", "prices"}
	var log, clean bytes.Buffer
	type kind struct{ count, first, last int64 }
	want := map[string]*kind{"[db]": {}, "[http]": {}, "[auth]": {}}
	for i := int64(1); i <= testenv.Size[int64](6000, 30000); i++ {
		fmt.Fprintf(&clean, "INFO request %08x served /api/%s\n", r.Uint32(), words[r.IntN(5)])
		if i%6 != 0 {
			fmt.Fprintf(&log, "INFO request %08x served /api/%s\n", r.Uint32(), words[r.IntN(5)])
			continue
		}
		var tag string
		switch k := r.IntN(10); {
		case k < 5:
			tag = "[db]"
			fmt.Fprintf(&log, "ERROR [db] query on %s failed: %s (id=%d)\n", words[r.IntN(5)], words[r.IntN(5)], r.IntN(1e6))
		case k < 8:
			tag = "[http]"
			fmt.Fprintf(&log, "ERROR [http] request %08x to /api/%s timed out after %d ms\n", r.Uint32(), words[r.IntN(5)], r.IntN(3e4))
		default:
			tag = "[auth]"
			fmt.Fprintf(&log, "ERROR [auth] token %016x for user %s rejected\n", r.Uint64(), words[r.IntN(5)])
		}
		k := want[tag]
		if k.count == 0 {
			k.first = i
		}
		k.count, k.last = k.count+1, i
	}
	dir := ctFiles(t, map[string][]byte{"dense.log": log.Bytes(), "clean.log": clean.Bytes()})
	forEachMode(t, func(t *testing.T, start func(testing.TB) *peer) {
		p := start(t)
		var res execResult
		p.mustCall("exec", map[string]any{"argv": []string{"cat", filepath.Join(dir, "dense.log")}}, &res)
		ks := res.Stdout.Kinds
		if len(ks) != 3 {
			t.Fatalf("%d kinds, want 3: %+v", len(ks), ks)
		}
		for i, tag := range []string{"[db]", "[http]", "[auth]"} {
			w := want[tag]
			if !strings.HasPrefix(ks[i].Text, "ERROR "+tag+" ") || ks[i].Count != w.count || ks[i].FirstLine != w.first || ks[i].LastLine != w.last {
				t.Errorf("kind %d: %+v, want %s %+v", i, ks[i], tag, *w)
			}
		}
		if res.Notice == nil || !strings.Contains(*res.Notice, fmt.Sprintf("%q %d lines (first %d, last %d)", ks[0].Text, ks[0].Count, ks[0].FirstLine, ks[0].LastLine)) {
			t.Errorf("the notice does not name the top kind: %s", ctStr(res.Notice))
		}
		p.mustCall("exec", map[string]any{"argv": []string{"cat", filepath.Join(dir, "clean.log")}}, &res)
		if res.Stdout.Kinds == nil || len(res.Stdout.Kinds) != 0 || len(res.Stdout.Highlights) != 0 {
			t.Errorf("clean log: kinds %+v, highlights %d", res.Stdout.Kinds, len(res.Stdout.Highlights))
		}
	})
}
