package highlight

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"strings"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// repeated writes lines from..to of a repeated shape ("check N: spawn at
// X,Y ok", as a test runner prints them).
func repeated(b *strings.Builder, from, to int) {
	for i := from; i <= to; i++ {
		fmt.Fprintf(b, "zone%02d check %02d: spawn at %d,%d ok\n", i%80, i%40, i%7+1, i%3)
	}
}

// TestUnusualLines: a model's view of outputs that say what went wrong
// in their own words, each among thousands of lines of a few repeated
// shapes: the lines a model must see are in a group, of the reason that
// says why, and a clean output of repeated shapes has no group at all.
func TestUnusualLines(t *testing.T) {
	tests := []struct {
		name   string
		middle string   // lines put at line 2001 of 4000 repeated ones
		tail   string   // lines after them
		want   []string // lines that must be in one group
		reason string   // of that group
	}{
		// No word of failure, no known format: a shape seen once.
		{"rare shape", "lua5.4: tests/t_47.lua:4: attempt to index a nil value (field 'spawn')\nstack traceback:\n\t[C]: in ?\n", "",
			[]string{"attempt to index a nil value", "stack traceback:", "[C]: in ?"}, ReasonRare},
		// The summary at the end reports a failure: what it refers to
		// is what the budget is for.
		{"summary refers to it", "    testing: docs/report_1822.txt     bad CRC 481aa768  (should be 77951796)\n",
			"At least one error was detected in backup.zip.\n", []string{"bad CRC"}, ReasonExit},
		// Severity in mixed case after a product's name, and the report
		// that goes on through unindented lines to the place.
		{"mixed-case severity", "PHP Fatal error:  Uncaught Error: Call to a member function setPrice() on null in /srv/import.php:10\nStack trace:\n#0 /srv/import.php(19): importRow()\n#1 {main}\n  thrown in /srv/import.php on line 10\n", "",
			[]string{"PHP Fatal error:  Uncaught Error", "#0 /srv/import.php(19): importRow()", "  thrown in /srv/import.php on line 10"}, ReasonError},
		{"mixed-case warning", "PHP Warning:  Undefined array key \"price\" in /srv/import.php on line 7\n", "",
			[]string{"PHP Warning:  Undefined array key"}, ReasonWarning},
		// A report's next line changes shape: it joins the hit's group.
		{"detail after an error", "psql:/srv/m.sql:1872: ERROR:  duplicate key value violates unique constraint \"items_pkey\"\nDETAIL:  Key (id)=(1017) already exists.\n", "",
			[]string{"ERROR:  duplicate key", "DETAIL:  Key (id)=(1017) already exists."}, ReasonError},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			repeated(&b, 1, 2000)
			b.WriteString(tt.middle)
			repeated(&b, 2001, 4000)
			b.WriteString(tt.tail)
			out := []byte(b.String())
			r := Scan(out, Options{})
			var g *Group
			for i := range r.Groups {
				checkLines(t, out, r.Groups[i])
				if strings.Contains(strings.Join(r.Groups[i].Lines, ""), tt.want[0]) {
					g = &r.Groups[i]
				}
			}
			if g == nil {
				t.Fatalf("no group holds %q: %+v", tt.want[0], r.Groups)
			}
			for _, w := range tt.want {
				if !strings.Contains(strings.Join(g.Lines, ""), w) {
					t.Errorf("group %d-%d %q lacks %q", g.FromLine, g.ToLine, g.Lines, w)
				}
			}
			if g.Reason != tt.reason {
				t.Errorf("group %d-%d of reason %q, want %q", g.FromLine, g.ToLine, g.Reason, tt.reason)
			}
		})
	}
	t.Run("clean", func(t *testing.T) {
		var b strings.Builder
		repeated(&b, 1, 4000)
		if r := Scan([]byte(b.String()), Options{}); len(r.Groups) != 0 {
			t.Errorf("groups %+v", r.Groups)
		}
	})
	t.Run("seq", func(t *testing.T) {
		// 40,000 lines in the quick run (more than the shape sketch's
		// sketchSize slots; 6 digits of seq's 300,000 lines add only a
		// digit to one shape), 300,000 with TOOLD_LONG=1.
		var b bytes.Buffer
		for i := 1; i <= testenv.Size(40000, 300000); i++ {
			fmt.Fprintf(&b, "%d\n", i)
		}
		if r := Scan(b.Bytes(), Options{}); len(r.Groups) != 0 {
			t.Errorf("seq: groups %+v", r.Groups)
		}
	})
}

// TestShapeChangeGroups: an error line right after a run of warnings of
// one shape is a group of its own (it went down with the run), and two
// hits a line apart merge into one group, neither dropped.
func TestShapeChangeGroups(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "step %d done\n", i)
	}
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "WARN retry %d of 20: backend busy\n", i) // lines 301-320
	}
	b.WriteString("ERROR giving up: backend unreachable\n") // line 321
	for i := 301; i <= 600; i++ {
		fmt.Fprintf(&b, "step %d done\n", i)
	}
	out := []byte(b.String())
	r := Scan(out, Options{})
	var errGroup *Group
	for i := range r.Groups {
		checkLines(t, out, r.Groups[i])
		if r.Groups[i].FromLine <= 321 && r.Groups[i].ToLine >= 321 {
			errGroup = &r.Groups[i]
		}
	}
	if errGroup == nil || errGroup.FromLine < 320 || errGroup.Hit != 321 || errGroup.Severity != Error {
		t.Fatalf("the error line is not a group of its own: %+v", r.Groups)
	}
	// Merged, not dropped: a group of a rare shape that touches another.
	gs := mergeGroup([]Group{{Span: Span{10, 12}, Lines: []string{"a\n", "b\n", "c\n"}, Reason: ReasonWarning, Hit: 11},
		{Span: Span{20, 20}, Lines: []string{"z\n"}, Reason: ReasonError, Hit: 20}},
		Group{Span: Span{12, 19}, Lines: strings.SplitAfter("c\nd\ne\nf\ng\nh\ni\nj\n", "\n")[:8], Reason: ReasonExit, Severity: Error})
	if len(gs) != 1 || gs[0].FromLine != 10 || gs[0].ToLine != 20 || len(gs[0].Lines) != 11 || gs[0].Reason != ReasonError {
		t.Errorf("merged: %+v", gs)
	}
}

// FuzzRareIsOutput: lines of any shape among thousands of repeated ones
// (where the model of shapes is on) give groups, by Block and by Line
// alike, whose lines are the output's at the numbers they claim, in
// output order, none overlapping another.
func FuzzRareIsOutput(f *testing.F) {
	f.Add([]byte("attempt to index a nil value\nstack traceback:\n"), uint16(700), []byte("done\n"))
	f.Add([]byte("PHP Fatal error:  x\nStack trace:\n#0 f()\n  thrown\n"), uint16(100), []byte("Failed 1\n"))
	f.Add([]byte("\n\nIn x.sh line 8:\nif [\n^-- SC1049 (error): y\n"), uint16(1500), []byte(""))
	f.Fuzz(func(t *testing.T, mid []byte, at uint16, tail []byte) {
		var b strings.Builder
		repeated(&b, 1, int(at%2000)+64)
		b.Write(mid)
		b.WriteString("\n")
		repeated(&b, 1, 300)
		b.Write(tail)
		out := []byte(b.String())
		sameResult(t, 0, out)
		r := Scan(out, Options{})
		for i, g := range r.Groups {
			checkLines(t, out, g)
			if i > 0 && r.Groups[i-1].ToLine >= g.FromLine {
				t.Fatalf("groups %d-%d and %d-%d overlap", r.Groups[i-1].FromLine, r.Groups[i-1].ToLine, g.FromLine, g.ToLine)
			}
			if g.Reason == "" {
				t.Fatalf("group %d-%d has no reason", g.FromLine, g.ToLine)
			}
		}
	})
}

// keyOfWords is the bucket of line made as addNew made it before keyOf:
// from every word's hash (hashWords).
func keyOfWords(line []byte) bucketKey {
	ws := hashWords(nil, line)
	key := bucketKey{words: len(ws)}
	for _, w := range ws[:min(3, len(ws))] {
		if w != maskHash {
			key.first = w
			break
		}
	}
	return key
}

// FuzzKeyOf: keyOf, which hashes at most three words, finds the bucket
// that hashing every word finds.
func FuzzKeyOf(f *testing.F) {
	for _, s := range []string{"2026-11-22T07:00:00.001Z WARN [mailer] ap=0 nnrkslk", "'a b' 12 c", "x", "", "  \t ",
		strings.Repeat("w ", 50), `error: "quoted value" at /a/b.go:3`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if a, b := keyOf(line), keyOfWords(line); a != b {
			t.Fatalf("keyOf %+v, hashWords %+v", a, b)
		}
	})
}

// lineShapeByCopy is lineShape done the obvious way: the line without the
// bytes a shape leaves out, hashed.
func lineShapeByCopy(line []byte) uint64 {
	var kept []byte
	for _, c := range line {
		if !strings.ContainsRune("0123456789abcdefABCDEF \t", rune(c)) {
			kept = append(kept, c)
		}
	}
	return maphash.Bytes(shapeSeed, kept)
}

// TestLineShape holds lineShape, which moves eight bytes a step, to
// lineShapeByCopy, on lines of every length around the step and a buffer
// of any size; FuzzLineShape on any line.
func TestLineShape(t *testing.T) {
	var buf []byte
	for _, s := range []string{"", "x", "2026-11-22T07:00:00.001Z WARN [mailer] ap=0 nnrkslk", "deadbeef", "zzzzzzzz", "\t \t x y z 9",
		strings.Repeat("ab1 ZZ", 40), "thumb_1703.webp", "héllo wörld 42 ✗"} {
		for n := range len(s) + 1 {
			line := []byte(s[:n])
			if got, want := lineShape(line, &buf), lineShapeByCopy(line); got != want {
				t.Fatalf("%q: lineShape %x, by copy %x", line, got, want)
			}
			var fresh []byte
			if got, want := lineShape(line, &fresh), lineShapeByCopy(line); got != want {
				t.Fatalf("%q, new buffer: lineShape %x, by copy %x", line, got, want)
			}
		}
	}
}

func FuzzLineShape(f *testing.F) {
	f.Add([]byte("2026-11-22T07:00:00.001Z WARN [mailer] ap=0 nnrkslk"))
	var buf []byte
	f.Fuzz(func(t *testing.T, line []byte) {
		if got, want := lineShape(line, &buf), lineShapeByCopy(line); got != want {
			t.Fatalf("%q: lineShape %x, by copy %x", line, got, want)
		}
	})
}

// FuzzCountWords holds countWords, both of its ways, to cutting b with
// nextWord.
func FuzzCountWords(f *testing.F) {
	for _, s := range []string{"a b c", " a\tb ", "'a b' c", "x \"y z\" w", "", "        ", "abcdefgh ijklmnop q", "a`b c'd"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := 0
		for i, j := nextWord(b, 0); i < len(b); i, j = nextWord(b, j) {
			want++
		}
		if n, ok := countWords(b); ok && n != want {
			t.Fatalf("%q: countWords %d, nextWord %d", b, n, want)
		}
	})
}
