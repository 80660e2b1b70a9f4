package truncate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// streamLines runs a LineStream over out, written in pieces of size n (the
// last piece shorter), and returns the lines handed over, one per line.
func streamLines(t *testing.T, s *LineStream, out []byte, n int) [][]byte {
	t.Helper()
	var got [][]byte
	next := int64(1)
	block := func(first int64, lines []byte) {
		if first != next {
			t.Fatalf("run starts at line %d, want %d", first, next)
		}
		if len(lines) == 0 { // a last line that clean-up empties
			got = append(got, []byte{})
			next++
		}
		for _, l := range bytes.SplitAfter(lines, []byte("\n")) {
			if len(l) > 0 {
				got = append(got, append([]byte{}, l...))
				next++
			}
		}
	}
	for len(out) > 0 {
		k := min(max(n, 1), len(out))
		s.Write(out[:k], block)
		out = out[k:]
	}
	s.Close(block)
	return got
}

// wantLines is what LineStream must hand over: each line cleaned (or not).
func wantLines(out []byte, clean bool) [][]byte {
	var want [][]byte
	for _, l := range bytes.SplitAfter(out, []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		if clean {
			l = CleanLine(l)
		}
		want = append(want, l)
	}
	return want
}

func TestLineStream(t *testing.T) {
	bar := "fetching\n"
	for i := 1; i <= 1000; i++ {
		bar += fmt.Sprintf("\r[%-40s] %4d/1000", strings.Repeat("#", i/25), i)
	}
	bar += "\ndone\n"
	for _, tc := range []struct {
		name string
		out  string
	}{
		{"plain", "a\nbb\nccc\n"},
		{"no final newline", "a\nbb"},
		{"crlf", "a\r\nb\r\n"},
		{"crlf split", "abc\r\ndef\r\n"},
		{"redraws", "10%\r20%\r30%\n"},
		{"trailing cr", "abc\r\r\n"},
		{"ansi", "\x1b[31merror\x1b[0m: x\n"},
		{"progress bar", bar},
	} {
		for _, clean := range []bool{true, false} {
			for _, n := range []int{1, 2, 3, 7, 64, 1 << 20} {
				s := &LineStream{Clean: clean, MaxLine: 1 << 20}
				got := streamLines(t, s, []byte(tc.out), n)
				if want := wantLines([]byte(tc.out), clean); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
					t.Fatalf("%s clean=%v n=%d:\n got %q\nwant %q", tc.name, clean, n, got, want)
				}
			}
		}
	}
}

// TestLineStreamBounded: a redrawn line holds its current state only, and
// a line without end holds MaxLine bytes; long lines are remembered with
// their raw extent and final state.
func TestLineStreamBounded(t *testing.T) {
	var raw bytes.Buffer
	raw.WriteString("start\n")
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&raw, "\r[%-40s] %5d/20000", strings.Repeat("#", i/500), i)
	}
	raw.WriteString("\n")
	barEnd := int64(raw.Len())
	raw.WriteString(strings.Repeat("x", 300000) + "\nend\n")
	s := &LineStream{Clean: true, MaxLine: 4096, LongLine: 16 << 10, PrefixLen: 64 << 10}
	maxCarry := 0
	var got [][]byte
	block := func(first int64, lines []byte) {
		for _, l := range bytes.SplitAfter(lines, []byte("\n")) {
			if len(l) > 0 {
				got = append(got, append([]byte{}, l...))
			}
		}
	}
	for b := raw.Bytes(); len(b) > 0; {
		k := min(4000, len(b))
		s.Write(b[:k], block)
		maxCarry = max(maxCarry, cap(s.carry))
		b = b[k:]
	}
	s.Close(block)
	if maxCarry > 3*4096 {
		t.Errorf("carry grew to %d bytes", maxCarry)
	}
	final := fmt.Sprintf("[%-40s] 20000/20000\n", strings.Repeat("#", 40))
	if len(got) != 4 || string(got[1]) != final || len(got[2]) != 4097 || string(got[3]) != "end\n" {
		t.Fatalf("lines %d: %q ...", len(got), got[1])
	}
	if s.First == nil || s.First.Line != 2 || s.First.Start != 6 || s.First.End != barEnd || string(s.First.Text) != final || s.First.Cut {
		t.Errorf("First = %+v", s.First)
	}
	if s.Last == nil || s.Last.Line != 3 || s.Last.End-s.Last.Start != 300001 || !s.Last.Cut || len(s.Last.Text) != 4097 {
		t.Errorf("Last = line %d %d-%d cut %v", s.Last.Line, s.Last.Start, s.Last.End, s.Last.Cut)
	}
}

// FuzzLineStream: whatever the bytes and however they are cut, the lines
// handed over are the output's lines, cleaned as CleanLine cleans them.
func FuzzLineStream(f *testing.F) {
	f.Add([]byte("a\r\nb\rc\x1b[1md\n\re\r"), 3, true)
	f.Fuzz(func(t *testing.T, out []byte, n int, clean bool) {
		s := &LineStream{Clean: clean, MaxLine: 1 << 20}
		got := streamLines(t, s, out, n%17)
		if want := wantLines(out, clean); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("n=%d:\n got %q\nwant %q", n%17, got, want)
		}
	})
}

// kept is what a capture keeps of out: keep bytes at each end, and the long
// lines a LineStream saw pass.
func kept(out []byte, keep int) Output {
	s := &LineStream{Clean: true, MaxLine: 8192, LongLine: int64(keep / 4), PrefixLen: int64(keep)}
	for b := out; len(b) > 0; {
		k := min(len(b), 32<<10)
		s.Write(b[:k], func(int64, []byte) {})
		b = b[k:]
	}
	s.Close(func(int64, []byte) {})
	o := Output{Prefix: out, Suffix: out, TotalBytes: int64(len(out)), TotalLines: countLines(out)}
	if len(out) > keep {
		o.Prefix, o.Suffix = out[:keep], out[len(out)-keep:]
	}
	for _, k := range []*KnownLine{s.First, s.Last} {
		if k != nil {
			o.Known = append(o.Known, *k)
		}
	}
	return o
}

func countLines(b []byte) int64 {
	n := int64(bytes.Count(b, []byte("\n")))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// TestPreviewLongLines: the two shapes the kept ends cut: a one-line output
// longer than both ends (cat of minified JSON) is shown clipped, never as
// nothing; a line redrawn with \r longer than both ends keeps its final
// state.
func TestPreviewLongLines(t *testing.T) {
	json := []byte(`{"items":[` + strings.Repeat(`{"id":1,"name":"item"},`, 150000) + `{}]}`)
	bar := []byte("start\n")
	for i := 1; i <= 5000; i++ {
		bar = fmt.Appendf(bar, "\r[%-40s] %4d/5000 chunks %s", strings.Repeat("#", i/125), i, strings.Repeat(".", 40))
	}
	bar = append(bar, "\ndone\n"...)
	final := fmt.Sprintf("[%-40s] 5000/5000 chunks %s\n", strings.Repeat("#", 40), strings.Repeat(".", 40))
	opt := PreviewOptions{MaxLines: 2000, MaxBytes: 5120, MaxLineChars: 2000, Clean: true}
	for _, mode := range []string{ModeHeadTail, ModeHead, ModeTail} {
		opt.Mode = mode
		r := kept(json, 64<<10).Preview(nil, opt)
		if got := r.Head + r.Tail; got != string(json[:2000])+"" || r.ClippedLines != 1 || r.ShownLines != 1 || r.Omitted != nil {
			t.Errorf("%s: json: %d bytes shown (%q...), clipped %d, omitted %+v", mode, len(got), got[:min(len(got), 40)], r.ClippedLines, r.Omitted)
		}
		r = kept(bar, 64<<10).Preview(nil, opt)
		want := map[string]string{ModeHeadTail: "start\n" + final + "done\n", ModeHead: "start\n" + final, ModeTail: final + "done\n"}[mode]
		omitted := map[string]string{ModeHeadTail: "<nil>", ModeHead: "&{3 3 5}", ModeTail: "&{1 1 6}"}[mode]
		if got := r.Head + r.Tail; got != want || fmt.Sprint(r.Omitted) != omitted {
			t.Errorf("%s: bar: %q, omitted %+v; want %q, %s", mode, got, r.Omitted, want, omitted)
		}
	}
}

// TestLineStreamSkip: skipped bytes are counted, not read; the lines a skip
// cuts at either end are counted but not handed over.
func TestLineStreamSkip(t *testing.T) {
	type line struct {
		n    int64
		text string
	}
	var got []line
	block := func(first int64, lines []byte) {
		for i, l := range bytes.SplitAfter(lines, []byte("\n")) {
			if len(l) > 0 {
				got = append(got, line{first + int64(i), string(l)})
			}
		}
	}
	s := &LineStream{Clean: true}
	s.Write([]byte("a\nb"), block)
	s.Skip(int64(len("\nc\nd")), 2)
	s.Write([]byte("d\ne\nf"), block)
	s.Close(block)
	if want := []line{{1, "a\n"}, {5, "e\n"}, {6, "f"}}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}
