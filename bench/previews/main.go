// Command previews prints, as a markdown table, what each preview rule shows
// of the corpus of real tool outputs in testdata/outputs: the bytes shown,
// and whether every line a model must see is among them. toold runs at its
// default limits and at maxBytes 5120 per stream, through the real exec path
// (methods.Service.Exec of `cat` of the output, spool and line index
// included; what a client gets as JSON: head, highlights and tail); beside
// it the positional rules of other agents, simulated from their documented
// limits:
//
//	pi          tail: the last 2000 lines or 50 KB, whichever is less
//	codex       10 KB: half from the head, half from the tail
//	opencode    30,000 characters: half from the head, half from the tail
//	gemini-cli  40,000 characters: 20% from the head, 80% from the tail
//
// toold's bytes count the kinds' texts too (what the model reads of them).
// A case marked held out (testdata/outputs/*/heldout) was kept out of the
// detector's tuning: its score is also given apart. The cases of an
// evaluation set (testdata/outputs/*/set names it) are scored in two halves,
// the held-out one and the one tuned on. -hide-heldout prints the scores
// without the rows of a set's held-out cases, for a run made while tuning.
// Clean cases count as clean when no error or warning group is shown and
// the rare groups shown (reason "rare") are at most 1 KB.
//
// Usage (from the repository root):
//
//	go run ./bench/previews [-corpus testdata/outputs] [-o bench/previews.md] [-hide-heldout]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toold/toold/internal/corpus"
	"github.com/toold/toold/truncate"
)

func main() {
	dir := flag.String("corpus", "testdata/outputs", "the corpus directory")
	out := flag.String("o", "", "also write the table to this file")
	flag.BoolVar(&hideHeldout, "hide-heldout", false, "do not print the held-out cases' rows (their scores still count)")
	flag.Parse()
	cs, err := corpus.Load(*dir)
	if err == nil {
		err = startToold()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer stopToold()
	var w io.Writer = os.Stdout
	var buf bytes.Buffer
	if *out != "" {
		w = io.MultiWriter(os.Stdout, &buf)
	}
	table(w, cs)
	if *out != "" {
		if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// rule is one way of choosing what a model sees of an output.
type rule struct {
	name string
	show func(out []byte) (shown []byte, extra int) // extra: false highlights
}

var rules = []rule{
	{"toold", func(b []byte) ([]byte, int) { return toold(b, 0) }},
	{"toold 5 KB", func(b []byte) ([]byte, int) { return toold(b, 5120) }},
	{"pi", func(b []byte) ([]byte, int) { return pi(b), 0 }},
	{"codex", func(b []byte) ([]byte, int) { return headTail(b, 10240/2, 10240/2, false), 0 }},
	{"opencode", func(b []byte) ([]byte, int) { return headTail(b, 15000, 15000, true), 0 }},
	{"gemini-cli", func(b []byte) ([]byte, int) { return headTail(b, 8000, 32000, true), 0 }},
}

// hideHeldout: the held-out cases' rows are not printed.
var hideHeldout bool

func table(w io.Writer, cs []corpus.Case) {
	fmt.Fprintf(w, "| case | lines | bytes |")
	for _, r := range rules {
		fmt.Fprintf(w, " %s |", r.name)
	}
	fmt.Fprintf(w, "\n|---|---:|---:|")
	for range rules {
		fmt.Fprintf(w, "---|")
	}
	fmt.Fprintln(w)
	var all, held score
	all.init(len(rules))
	held.init(len(rules))
	sets := map[string]*score{}
	var setNames []string
	for _, c := range cs {
		name := c.Name
		if c.Heldout {
			name += " (held out)"
		}
		var set *score
		if c.Set != "" {
			half := c.Set + ", tuned on"
			if c.Heldout {
				half = c.Set + ", held out"
			}
			if set = sets[half]; set == nil {
				set = &score{}
				set.init(len(rules))
				sets[half] = set
				setNames = append(setNames, half)
			}
		}
		row := io.Writer(w)
		if hideHeldout && c.Heldout && c.Set != "" {
			row = io.Discard
		}
		fmt.Fprintf(row, "| %s | %d | %s |", name, lines(c.Output), size(len(c.Output)))
		for i, r := range rules {
			shown, extra := r.show(c.Output)
			got := keysShown(shown, c.Keys)
			mark := fmt.Sprintf("%d/%d", got, len(c.Keys))
			switch {
			case c.Clean && extra == 0:
				mark = "clean"
			case c.Clean:
				mark = fmt.Sprintf("%d false", extra)
			case got == len(c.Keys):
				mark = "✓"
			}
			all.add(i, c, len(shown), got, extra)
			if c.Heldout {
				held.add(i, c, len(shown), got, extra)
			}
			if set != nil {
				set.add(i, c, len(shown), got, extra)
			}
			fmt.Fprintf(row, " %s %s |", size(len(shown)), mark)
		}
		fmt.Fprintln(row)
	}
	all.rows(w, "all cases")
	held.rows(w, "held out")
	slices.Sort(setNames)
	for _, n := range setNames {
		sets[n].rows(w, n)
	}
}

// score sums up a set of cases per rule: the cases whose every key line
// is shown, the clean cases shown without a highlight, the bytes shown.
type score struct {
	keyed, clean int   // cases with keys, clean cases
	all, noFalse []int // per rule: every key shown; clean with no highlight
	total        []int // bytes shown
	sizes        [][]int
}

func (s *score) init(n int) {
	s.all, s.noFalse, s.total, s.sizes = make([]int, n), make([]int, n), make([]int, n), make([][]int, n)
}

func (s *score) add(i int, c corpus.Case, shown, got, extra int) {
	if i == 0 {
		if c.Clean {
			s.clean++
		} else {
			s.keyed++
		}
	}
	s.total[i] += shown
	s.sizes[i] = append(s.sizes[i], shown)
	switch {
	case c.Clean && extra == 0:
		s.noFalse[i]++
	case !c.Clean && got == len(c.Keys):
		s.all[i]++
	}
}

// rows prints the summary rows of s.
func (s *score) rows(w io.Writer, name string) {
	fmt.Fprintf(w, "| **%s: every key line shown** | | |", name)
	for i := range rules {
		fmt.Fprintf(w, " **%d/%d** (%s) |", s.all[i], s.keyed, size(s.total[i]))
	}
	fmt.Fprintf(w, "\n| **%s: clean without a highlight** | | |", name)
	for i := range rules {
		fmt.Fprintf(w, " %d/%d |", s.noFalse[i], s.clean)
	}
	fmt.Fprintf(w, "\n| **%s: median bytes shown** | | |", name)
	for i := range rules {
		fmt.Fprintf(w, " %s |", size(median(s.sizes[i])))
	}
	fmt.Fprintln(w)
}

func median(xs []int) int {
	if len(xs) == 0 {
		return 0
	}
	xs = slices.Clone(xs)
	slices.Sort(xs)
	if len(xs)%2 == 1 {
		return xs[len(xs)/2]
	}
	return (xs[len(xs)/2-1] + xs[len(xs)/2]) / 2
}

// keysShown counts the keys found in shown, cleaned line by line as the
// model would read it (a peer's raw bytes hold ANSI escapes and \r redraws).
func keysShown(shown []byte, keys []string) int {
	var clean bytes.Buffer
	for _, l := range bytes.SplitAfter(shown, []byte("\n")) {
		clean.Write(truncate.CleanLine(l))
	}
	n := 0
	for _, k := range keys {
		if bytes.Contains(clean.Bytes(), []byte(k)) {
			n++
		}
	}
	return n
}

// pi keeps the last 2000 lines or 50 KB (the end of the last line when it
// alone is longer).
func pi(out []byte) []byte {
	const maxLines, maxBytes = 2000, 50 << 10
	start, n := len(out), 0
	for start > 0 && n < maxLines {
		i := bytes.LastIndexByte(out[:start-1], '\n') + 1
		if len(out)-i > maxBytes {
			break
		}
		start, n = i, n+1
	}
	if start == len(out) && len(out) > 0 {
		start = len(out) - min(len(out), maxBytes)
	}
	return out[start:]
}

// headTail keeps head and tail bytes (or characters) from each end.
func headTail(out []byte, head, tail int, chars bool) []byte {
	if chars {
		if utf8.RuneCount(out) <= head+tail {
			return out
		}
		h := byteOffset(out, head)
		t := len(out) - byteOffset(reverseRunes(out), tail)
		return append(append([]byte{}, out[:h]...), out[t:]...)
	}
	if len(out) <= head+tail {
		return out
	}
	return append(append([]byte{}, out[:head]...), out[len(out)-tail:]...)
}

// byteOffset is where the n-th character of b starts.
func byteOffset(b []byte, n int) int {
	i := 0
	for ; n > 0 && i < len(b); n-- {
		_, s := utf8.DecodeRune(b[i:])
		i += s
	}
	return i
}

// reverseRunes reverses b's characters' order, keeping each one's bytes,
// so that byteOffset counts characters from the end.
func reverseRunes(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := len(b); i > 0; {
		_, s := utf8.DecodeLastRune(b[:i])
		out = append(out, b[i-s:i]...)
		i -= s
	}
	return out
}

func lines(b []byte) int {
	n := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

func size(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return strings.TrimSpace(fmt.Sprintf("%d B", n))
}
