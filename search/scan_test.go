package search

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/truncate"
)

// reference greps data for lit the obvious way: split into lines, test
// each, take context around each kept match as the scanner's rules say.
func reference(data []byte, lit string, opt GrepOptions) (ms []Match, count int, hit LimitKind) {
	lines := bytes.SplitAfter(data, []byte{'\n'})
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	body := func(i int) []byte { return bytes.TrimSuffix(lines[i], []byte{'\n'}) }
	isMatch := func(i int) bool { return bytes.Contains(body(i), []byte(lit)) }
	render := func(i int) string {
		b := bytes.TrimSuffix(body(i), []byte{'\r'})
		b, _ = truncate.ClipLine(b, opt.MaxLineChars)
		return truncate.Valid(b)
	}
	lastShown := 0 // line numbers from 1
	for i := range lines {
		if !isMatch(i) {
			continue
		}
		count++
		if hit != LimitNone {
			continue
		}
		if opt.Limit > 0 && len(ms) == opt.Limit {
			hit = LimitMatches
			continue
		}
		m := Match{Line: i + 1, Text: render(i)}
		for j := max(i-opt.Context, lastShown); j < i; j++ {
			m.Before = append(m.Before, render(j))
		}
		lastShown = i + 1
		for j := i + 1; j < len(lines) && j <= i+opt.Context && !isMatch(j); j++ {
			m.After = append(m.After, render(j))
			lastShown = j + 1
		}
		ms = append(ms, m)
	}
	return ms, count, hit
}

// scanChunked runs the scanner over data read chunk bytes at a time.
func scanChunked(t testing.TB, data []byte, lit string, opt GrepOptions, chunk int) (*scanner, error) {
	m, err := Compile(Query{Pattern: lit, Literal: true})
	if err != nil {
		t.Fatal(err)
	}
	s := newScanner(m, &opt)
	s.chunk = chunk
	var buf []byte
	return s, s.scanReaderAt(context.Background(), bytes.NewReader(data), int64(len(data)), &buf, 0)
}

func plain(ms []Match) []Match {
	out := make([]Match, len(ms))
	for i, m := range ms {
		out[i] = Match{Line: m.Line, Text: m.Text, Before: m.Before, After: m.After}
	}
	return out
}

func checkScan(t testing.TB, data []byte, lit string, opt GrepOptions, chunk int) {
	if truncate.IsBinary(data) || lit == "" || strings.Contains(lit, "\n") || !utf8.ValidString(lit) {
		return
	}
	want, count, hit := reference(data, lit, opt)
	s, err := scanChunked(t, data, lit, opt, chunk)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	if got := plain(s.res.Matches); !reflect.DeepEqual(got, plain(want)) {
		t.Fatalf("chunk %d, opt %+v, lit %q in %q:\n got %+v\nwant %+v", chunk, opt, lit, data, got, want)
	}
	if s.res.Count != count || s.hit != hit {
		t.Fatalf("chunk %d: count %d hit %v, want %d %v", chunk, s.res.Count, s.hit, count, hit)
	}
	for _, m := range s.res.Matches {
		for _, l := range append(append([]string{m.Text}, m.Before...), m.After...) {
			if !utf8.ValidString(l) || opt.MaxLineChars > 0 && utf8.RuneCountInString(l) > opt.MaxLineChars {
				t.Fatalf("line %q: invalid or longer than %d characters", l, opt.MaxLineChars)
			}
		}
	}
}

func TestScanChunks(t *testing.T) {
	data := []byte("a needle\nb\nc\nd needle\r\ne\nneedle f\ng\n\nh\nneedle ééééé\nlast needle")
	for _, opt := range []GrepOptions{
		{}, {Context: 1}, {Context: 3}, {Limit: 2, Context: 2}, {MaxLineChars: 3, Context: 1}, {Limit: 1},
	} {
		for _, chunk := range []int{1, 2, 3, 7, 16, 1 << 20} {
			checkScan(t, data, "needle", opt, chunk)
		}
	}
}

func TestScanLimits(t *testing.T) {
	data := []byte(strings.Repeat("needle 0123456789\n", 10))
	tests := []struct {
		opt   GrepOptions
		kept  int
		hit   LimitKind
		count int
	}{
		{GrepOptions{}, 10, LimitNone, 10},
		{GrepOptions{Limit: 10}, 10, LimitNone, 10},
		{GrepOptions{Limit: 3}, 3, LimitMatches, 10},
		{GrepOptions{MaxBytes: 18 * 4}, 4, LimitBytes, 10},
		{GrepOptions{MaxBytes: 18*4 - 1}, 3, LimitBytes, 10},
	}
	for _, tt := range tests {
		s, err := scanChunked(t, data, "needle", tt.opt, 5)
		must(t, err)
		if len(s.res.Matches) != tt.kept || s.hit != tt.hit || s.res.Count != tt.count {
			t.Errorf("%+v: kept %d hit %v count %d, want %d %v %d", tt.opt, len(s.res.Matches), s.hit, s.res.Count, tt.kept, tt.hit, tt.count)
		}
	}
}

// TestGrepReaderSpool searches a large reader (as an exec spool) whose
// lines cross many chunks, and checks line numbers against the lines.
func TestGrepReaderSpool(t *testing.T) {
	// 120,000 lines (2.3 MB, two of the scan's chunks and more) in the
	// quick run, 300,000 (5.7 MB) with TOOLD_LONG=1.
	n := testenv.Size(120000, 300000)
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		if i%1000 == 500 {
			b.WriteString("ERROR at line ")
		}
		b.WriteString(strings.Repeat("x", i%37))
		b.WriteByte('\n')
	}
	data := b.Bytes()
	m, err := Compile(Query{Pattern: `^ERROR at line x*$`})
	must(t, err)
	res, err := GrepReader(context.Background(), m, bytes.NewReader(data), int64(len(data)), "spool", GrepOptions{Limit: 1000, Context: 1})
	must(t, err)
	if res.TotalMatches != n/1000 || len(res.Files) != 1 || len(res.Files[0].Matches) != n/1000 {
		t.Fatalf("total %d files %d", res.TotalMatches, len(res.Files))
	}
	lines := strings.Split(string(data), "\n")
	for _, mt := range res.Files[0].Matches {
		if len(mt.Before) != 1 || len(mt.After) != 1 {
			t.Fatalf("match %+v: want one line of context each side", mt)
		}
		if lines[mt.Line-1] != mt.Text || mt.Line%1000 != 500 || mt.Before[0] != lines[mt.Line-2] || mt.After[0] != lines[mt.Line] {
			t.Fatalf("match %+v does not agree with line %d", mt, mt.Line)
		}
	}
}

func TestCompile(t *testing.T) {
	tests := []struct {
		q         Query
		lines     []string // lines that match
		miss      []string
		bad, pure bool
		lit       string
	}{
		{q: Query{Pattern: "a.c", Literal: true}, lines: []string{"xa.cx"}, miss: []string{"abc"}, pure: true, lit: "a.c"},
		{q: Query{Pattern: `func \w+Reader\(`}, lines: []string{"func NewReader(r)"}, miss: []string{"func Reader("}, lit: "Reader("},
		{q: Query{Pattern: "HeLLo", IgnoreCase: true}, lines: []string{"say hello", "HELLO"}, miss: []string{"help"}, pure: true, lit: "hello"},
		// k folds into the Kelvin sign: the byte search looks for the
		// longest piece of a required literal without such a fold.
		{q: Query{Pattern: "kelvin", IgnoreCase: true}, lines: []string{"\u212aelvin", "KELVIN"}, miss: []string{"kelvi"}, lit: "elvin"},
		{q: Query{Pattern: "mutex_(un)?lock_nested", IgnoreCase: true}, lines: []string{"MUTEX_LOC\u212a_NE\u017fTED"}, miss: []string{"mutex_lock"}, lit: "mutex_"},
		{q: Query{Pattern: `^end$`}, lines: []string{"end\r", "end"}, miss: []string{"the end"}, lit: "end"},
		{q: Query{Pattern: `a[^x]b`}, lines: []string{"acb"}, miss: []string{"a", "b"}, lit: "a"},
		{q: Query{Pattern: `(foo|bar)+baz`}, lines: []string{"foobaz"}, lit: "baz"},
		{q: Query{Pattern: `a(`}, bad: true},
		{q: Query{Pattern: `x{1001}`}, bad: true},
	}
	for _, tt := range tests {
		m, err := Compile(tt.q)
		if tt.bad {
			if err == nil {
				t.Errorf("%+v: no error", tt.q)
			}
			continue
		}
		must(t, err)
		if string(m.lit) != tt.lit || m.pure != tt.pure {
			t.Errorf("%+v: lit %q pure %v, want %q %v", tt.q, m.lit, m.pure, tt.lit, tt.pure)
		}
		for _, l := range tt.lines {
			if !m.matchLine([]byte(l)) {
				t.Errorf("%+v does not match %q", tt.q, l)
			}
		}
		for _, l := range tt.miss {
			if m.matchLine([]byte(l)) {
				t.Errorf("%+v matches %q", tt.q, l)
			}
		}
		// Over a buffer of all the lines, next finds exactly the matching ones.
		buf := strings.Join(append(append([]string{}, tt.miss...), tt.lines...), "\n")
		n := 0
		for pos := 0; ; n++ {
			_, end, ok := m.next([]byte(buf), pos)
			if !ok {
				break
			}
			pos = end + 1
		}
		if n != len(tt.lines) {
			t.Errorf("%+v: next found %d lines in %q, want %d", tt.q, n, buf, len(tt.lines))
		}
	}
}

// FuzzScan checks the scanner, reading in chunks of any size, against the
// obvious line-by-line reference: line numbers, context, clipping, limits.
func FuzzScan(f *testing.F) {
	f.Add([]byte("a needle\nb\r\nneedle\n\nx"), "needle", uint8(1), uint8(0), uint8(0), uint8(3))
	f.Add([]byte("ééé\nééé\nab"), "é", uint8(2), uint8(1), uint8(2), uint8(1))
	f.Add([]byte("aaaa"), "aa", uint8(0), uint8(0), uint8(1), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, lit string, ctx, limit, maxChars, chunk uint8) {
		opt := GrepOptions{Context: int(ctx % 5), Limit: int(limit % 6), MaxLineChars: int(maxChars % 8)}
		checkScan(t, data, lit, opt, int(chunk%64)+1)
	})
}

// FuzzIsBinary: the word-at-a-time rule answers as truncate.IsBinary.
func FuzzIsBinary(f *testing.F) {
	for _, s := range []string{"plain text\n", "tab\tand\x1b[0m", "é\xff", "\x00", "\x7f", "abcdefgh\x01ijklmnop",
		"\a\b\t\n\v\f\r\x1b\x06\x0e\x1a\x1c\x1f\x20\x7e\x7f\x80\xff", strings.Repeat("\x01abcdefghijklm", 600)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := isBinary(b), truncate.IsBinary(b); got != want {
			t.Fatalf("%q: isBinary %v, truncate.IsBinary %v", b, got, want)
		}
	})
}

// TestIsBinaryBytes: each byte value, alone and at each place of a word,
// counts as truncate.IsBinary counts it.
func TestIsBinaryBytes(t *testing.T) {
	for c := range 256 {
		for at := range 8 {
			w := uint64(c) << (8 * at)
			want := uint64(0)
			if c == 0 || truncate.IsBinary([]byte{byte(c)}) {
				want = 0x80 << (8 * at)
			}
			if got := notTextBytes(w | 0x2020202020202020&^(0xff<<(8*at))); got != want {
				t.Errorf("byte %#x at %d: %#x, want %#x", c, at, got, want)
			}
		}
	}
}

func TestGrepReaderCancel(t *testing.T) {
	data := bytes.Repeat([]byte("needle\n"), 1<<20)
	m, err := Compile(Query{Pattern: "needle"})
	must(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GrepReader(ctx, m, bytes.NewReader(data), int64(len(data)), "big", GrepOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// FuzzPrefilter: the literal searched before the regexp never rules out a
// line the regexp matches (case folds into non-ASCII included).
func FuzzPrefilter(f *testing.F) {
	f.Add("kelvin", "\u212aELVIN", true)
	f.Add("mutex_(un)?lock_nested", "MUTEX_UNLOC\u212a_NE\u017fTED", true)
	f.Add(`func \w+Reader\(`, "func NewReader(", false)
	f.Fuzz(func(t *testing.T, pattern, line string, fold bool) {
		if strings.Contains(line, "\n") {
			return
		}
		m, err := Compile(Query{Pattern: pattern, IgnoreCase: fold})
		if err != nil {
			return
		}
		if m.re.MatchString(line) && !m.matchLine([]byte(line)) {
			t.Errorf("%q (fold %v) matches %q but its literal %q rules it out", pattern, fold, line, m.lit)
		}
	})
}
