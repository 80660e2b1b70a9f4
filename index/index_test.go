package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/search"
)

var words = []string{"sched", "Schedule", "EXPORT_SYMBOL", "probe", "mutex_lock", "kelvin", "Straße", "résumé",
	"\u212Aelvin", "ſtate", "error", "ERROR", "timeout", "func", "return", "nil", "x", "ab", "abc"}

// genTree writes a tree of n text files (and a few binary ones, an
// ignored one, CRLF lines) in a git work tree.
func genTree(t testing.TB, n int, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/HEAD", "ref: x\n")
	write(".gitignore", "*.log\n")
	write("ignored.log", "sched error timeout\n")
	for i := range n {
		var b strings.Builder
		long := 3000 // words of a long line: 21 KB, past a block of 16 KiB
		for l := range 1 + r.IntN(30) {
			for w := range 1 + r.IntN(6) {
				if w > 0 {
					b.WriteByte(" _("[r.IntN(3)])
				}
				b.WriteString(words[r.IntN(len(words))])
				if r.IntN(4) == 0 {
					fmt.Fprint(&b, r.IntN(100))
				}
			}
			if i%50 == 7 && l%5 == 2 { // a long line: parts read past it
				b.WriteString(strings.Repeat(" "+words[r.IntN(len(words))], long))
				// In the quick run a file's later long lines are of 300 words
				// (2 KB, still past many blocks of the tests' small size):
				// they were 80% of a tree's bytes, and of its greps' time.
				long = testenv.Size(300, 3000)
			}
			if l%7 == 3 {
				b.WriteByte('\r')
			}
			b.WriteByte('\n')
		}
		body := b.String()
		if i%37 == 5 {
			body = "bin\x00" + body
		}
		if i%41 == 9 { // binary by its control characters, yet indexed
			body = strings.Repeat("\x01\x02", 300) + body
		}
		write(fmt.Sprintf("d%d/e%d/f%03d.c", i%5, i%3, i), body)
	}
	// Symlinked files: one within the tree (searched through the root),
	// one out of it (refused).
	for link, target := range map[string]string{"d0/link.c": "e0/f000.c", "d1/out.c": "/etc/passwd"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// newManager returns a Manager on a temporary cache directory.
func newManager(t testing.TB, opt Options) *Manager {
	t.Helper()
	if opt.Dir == "" {
		opt.Dir = filepath.Join(t.TempDir(), "index")
	}
	m, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// waitState waits for dir's tree to reach state.
func waitState(t testing.TB, m *Manager, dir, state string) Stats {
	t.Helper()
	var found Stats
	reached := func() bool {
		for _, s := range m.Stats() {
			if s.Root == dir && s.State == state {
				found = s
				return true
			}
		}
		return false
	}
	if !testenv.Until(30*time.Second, reached) {
		t.Fatalf("%s never %s: %+v", dir, state, m.Stats())
	}
	return found
}

// listingGreps counts the greps that went through the listing;
// partsGreps those of them that searched parts of files (atomic: the
// tests that grep run in parallel; TestIndexMatchesScan, which reads
// them, does not).
var listingGreps, partsGreps atomic.Int64

// grepBoth greps dir by scan and through the index and fails on any
// difference; it reports whether the index answered.
func grepBoth(t testing.TB, m *Manager, dir string, q search.Query, opt search.GrepOptions) bool {
	t.Helper()
	g := scanGrep(t, dir, q, opt)
	return g.ok && indexMatchesScan(t, m, dir, g)
}

// scanGrepped is a grep of a tree by scan: its query, options and answer; ok
// false when the pattern does not compile.
type scanGrepped struct {
	q    search.Query
	opt  search.GrepOptions
	mt   *search.Matcher
	scan *search.GrepResult
	ok   bool
}

// scanGrep greps dir by scan.
func scanGrep(t testing.TB, dir string, q search.Query, opt search.GrepOptions) scanGrepped {
	t.Helper()
	mt, err := search.Compile(q)
	if err != nil {
		return scanGrepped{q: q, opt: opt}
	}
	scan, err := search.Grep(context.Background(), mt, dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	return scanGrepped{q: q, opt: opt, mt: mt, scan: scan, ok: true}
}

// indexMatchesScan greps dir through the index, by its candidates and
// through its listing, and fails on any difference with g's scan; it
// reports whether the index answered.
func indexMatchesScan(t testing.TB, m *Manager, dir string, g scanGrepped) bool {
	t.Helper()
	q, opt, mt, scan := g.q, g.opt, g.mt, g.scan
	query := QueryFor(q.Pattern, q.Literal, q.IgnoreCase)
	opt.Candidate = m.Candidates(dir, query, "")
	indexed, err := search.Grep(context.Background(), mt, dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(scan, indexed) {
		t.Fatalf("%+v (query %v): index and scan differ:\nscan  %+v\nindex %+v", q, query, scan, indexed)
	}
	// Without a walk, through the listing, when the tree's names held.
	answered := opt.Candidate != nil
	opt.Candidate = nil
	if p := m.Plan(dir, query, "", false); p.Listing != nil {
		listingGreps.Add(1)
		if len(p.Parts) > 0 {
			partsGreps.Add(1)
		}
		opt.Text = p.Text
		listed, err := search.GrepListing(context.Background(), mt, dir, p.Listing, p.Pick, p.Parts, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(scan, listed) {
			t.Fatalf("%+v (query %v): listing and scan differ:\nscan    %+v\nlisting %+v", q, query, scan, listed)
		}
	}
	return answered
}

func genPatterns(r *rand.Rand, n int) []search.Query {
	frags := []string{`\d+`, `.`, `\w+`, `[Ss]ched`, `(probe|mutex)`, `_`, `(?i)`, `^`, `$`, `x?`, `[a-c]{2}`, `\(`, ` `, `k`, `s`, `é`, `[^a]`, `|`}
	var out []search.Query
	for range n {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			if r.IntN(2) == 0 {
				w := words[r.IntN(len(words))]
				if r.IntN(3) == 0 && len(w) > 3 {
					w = w[:2+r.IntN(len(w)-2)]
				}
				b.WriteString(w)
			} else {
				b.WriteString(frags[r.IntN(len(frags))])
			}
		}
		out = append(out, search.Query{Pattern: b.String(), IgnoreCase: r.IntN(3) == 0, Literal: r.IntN(5) == 0})
	}
	return out
}

// TestIndexMatchesScan: over generated patterns on a generated tree, a
// grep through the index answers what a scan answers, with and without
// limits, for each of two block sizes. The tree and the scans' answers
// (which the index's block size does not change) are made once. Not
// parallel: it sets blockSize, which the other tests' builds read (they
// are parallel, so they run after it).
func TestIndexMatchesScan(t *testing.T) {
	// The quick run: 40 files by 16 generated patterns beside the 17 fixed
	// ones, each with and without options (40 by 40 took 4.7 CPU-seconds
	// under -race, 120 by 120 17 s, 200 by 200 35 s; 40 by 24 3.6 s).
	n, np := 40, 16
	if testenv.Long() {
		n, np = 800, 600 // 2000 by 2000 took 383 s under -race
	}
	dir := genTree(t, n, 1)
	r := rand.New(rand.NewPCG(3, 4))
	opts := []search.GrepOptions{{Limit: 7, Context: 1}, {MaxBytes: 300}, {Glob: "d1/**"}, {Limit: 1}, {Context: 3}, {Context: 12, Limit: 40}}
	var greps []scanGrepped
	for i, q := range append(fixedPatterns, genPatterns(r, np)...) {
		for _, opt := range []search.GrepOptions{{}, opts[i%len(opts)]} {
			greps = append(greps, scanGrep(t, dir, q, opt))
		}
	}
	// Each scan is compared with the index's answers at both block sizes
	// with TOOLD_LONG=1; in the quick run at one, in turn (each query
	// meets both, once with its options, once without): half the index's
	// greps, each kind of pattern and option still at each block size.
	for k, block := range []int{blockSize, 64} {
		t.Run(fmt.Sprintf("block%d", block), func(t *testing.T) {
			defer func(b int) { blockSize = b }(blockSize)
			blockSize = block // 64: most files in blocks, searched in parts
			var some []scanGrepped
			for j, g := range greps { // j/2: the query, j%2: with options
				if testenv.Long() || (j+j/2)%2 == k {
					some = append(some, g)
				}
			}
			testIndexMatchesScan(t, dir, np, some)
		})
	}
}

func testIndexMatchesScan(t *testing.T, dir string, np int, greps []scanGrepped) {
	listingGreps.Store(0)
	partsGreps.Store(0)
	m := newManager(t, Options{Logger: quiet()})
	m.Candidates(dir, nil, "")
	waitState(t, m, dir, StateReady)
	hits := 0
	for _, g := range greps {
		if g.ok && indexMatchesScan(t, m, dir, g) {
			hits++
		}
	}
	listed, parts := int(listingGreps.Load()), int(partsGreps.Load())
	if hits < np || listed < np {
		t.Errorf("the index answered only %d greps, %d through the listing", hits, listed)
	}
	if blockSize < 1000 && parts < np/4 {
		t.Errorf("only %d greps searched parts of files", parts)
	}
	t.Logf("%d greps through the index, %d through the listing, %d in parts", hits, listed, parts)
	// A subdirectory is answered by the tree's index.
	if !grepBoth(t, m, filepath.Join(dir, "d2"), search.Query{Pattern: "mutex_lock"}, search.GrepOptions{}) {
		t.Error("a subdirectory's grep scanned")
	}
}

var fixedPatterns = []search.Query{
	{Pattern: "sched"}, {Pattern: "SCHED", IgnoreCase: true}, {Pattern: "kelvin", IgnoreCase: true},
	{Pattern: "state", IgnoreCase: true}, {Pattern: "STRASSE", IgnoreCase: true}, {Pattern: "RÉSUMÉ", IgnoreCase: true},
	{Pattern: "EXPORT_SYMBOL(", Literal: true}, {Pattern: `probe\d+`}, {Pattern: `(sched|mutex)_?\w+`},
	{Pattern: `\w+`}, {Pattern: `.`}, {Pattern: `error$`}, {Pattern: `^func`}, {Pattern: "\uFFFD"},
	{Pattern: "timeout", Literal: true, IgnoreCase: true}, {Pattern: `[Ee]rror \d`}, {Pattern: `abc|xyz`},
}

// FuzzQueryFor: whatever the pattern, the index's candidates hold every
// file a scan finds a match in.
func FuzzQueryFor(f *testing.F) {
	for _, q := range fixedPatterns {
		f.Add(q.Pattern, q.IgnoreCase, q.Literal)
	}
	dir := genTree(f, 60, 2)
	defer func(b int) { blockSize = b }(blockSize)
	blockSize = 100 // most files in blocks: greps search parts of them
	m := newManager(f, Options{Logger: quiet()})
	m.Candidates(dir, nil, "")
	waitState(f, m, dir, StateReady)
	f.Fuzz(func(t *testing.T, pattern string, fold, literal bool) {
		grepBoth(t, m, dir, search.Query{Pattern: pattern, IgnoreCase: fold, Literal: literal}, search.GrepOptions{})
	})
}

func TestQueryFor(t *testing.T) {
	for _, tt := range []struct {
		pattern       string
		fold, literal bool
		want          string
	}{
		{"Sched", false, false, "and(che hed sch)"},
		{"a.b", false, false, "all"},
		{`\w+`, false, false, "all"},
		{"(abc|def)ghi", false, false, "or(and(abc bcg cgh ghi) and(def efg fgh ghi))"},
		{"kelvin", true, false, "or(and(elv kel lvi vin) and(elv lvi vin \x84\xaae \xaael \xe2\x84\xaa))"},
		{"a(", false, true, "all"},
		{"abc(", false, true, "and(abc bc()"},
		{`foo\d+bar`, false, false, "and(bar foo)"},
	} {
		if got := QueryFor(tt.pattern, tt.literal, tt.fold).String(); got != tt.want {
			t.Errorf("%q fold=%v literal=%v: %s, want %s", tt.pattern, tt.fold, tt.literal, got, tt.want)
		}
	}
}
