package exec

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/internal/corpus"
	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/truncate"
)

// loadCorpus loads the corpus once for the tests that read it (its
// generated outputs are made, not read). In the quick run each output is
// cut to its last quickTail bytes, from a line's start (tailFrom): what
// TestScanner and TestScannerFollowsSpool prove is that a scanner fed
// chunks, or reading on from a spool file, finds what a scan of the same
// whole bytes finds, and a tail past the scanner's block of 64 KiB crosses
// a block's end as the whole output does. The corpus's 6.6 MB took 8 of
// the two tests' 11 CPU-seconds under -race, its tails of 80 KiB (3.4 MB)
// half that, of 68 KiB (a line's start past the block's 64 KiB) less
// again; TOOLD_LONG=1 scans every output whole.
var loadCorpus = sync.OnceValues(func() ([]corpus.Case, error) {
	cs, err := corpus.LoadForTests("../testdata/outputs")
	if !testenv.Long() {
		for i := range cs {
			cs[i].Output = tailFrom(cs[i].Output, quickTail)
		}
	}
	return cs, err
})

// quickTail is the bytes of each corpus output that the quick run scans:
// past a scan block (64 KiB), and the end of an output, where a failure
// most often is.
const quickTail = 68 << 10

// tailFrom returns out's last n bytes or so, from the start of a line:
// the line that holds out[len(out)-n] is left out. An output that has no
// line's start in that span (one long line) is returned whole.
func tailFrom(out []byte, n int) []byte {
	if len(out) <= n {
		return out
	}
	i := bytes.IndexByte(out[len(out)-n:], '\n')
	if i < 0 || len(out)-n+i+1 == len(out) {
		return out
	}
	return out[len(out)-n+i+1:]
}

// scanCorpus is what highlight.Scan finds over each whole output of the
// corpus (loadCorpus's order), at the MaxLineBytes of a preview's
// MaxLineChars of 1000: the reference of TestScanner and of
// TestScannerFollowsSpool's captures, made once.
var scanCorpus = sync.OnceValues(func() ([]highlight.Result, error) {
	cs, err := loadCorpus()
	var found []highlight.Result
	for _, c := range cs {
		found = append(found, highlight.Scan(c.Output, highlight.Options{MaxLineBytes: 4096}))
	}
	return found, err
})

// TestScanner: fed a stream in chunks of any size, the scanner finds what
// highlight.Scan finds over the whole output.
func TestScanner(t *testing.T) {
	t.Parallel() // its own runner and commands
	cs, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	wants, _ := scanCorpus()
	for i, c := range cs {
		want := wants[i]
		// Chunks of 1 KiB for every third output in the quick run (20 of
		// 62, a third of the scans: 0.4 CPU-seconds under -race), and for
		// every output, of 64 KiB and 256 KiB as well, with TOOLD_LONG=1.
		// In the quick run the scanners of TestScannerFollowsSpool's
		// captures handed each chunk take every output, checked against
		// the same whole-output scan: chunks of 3,000, 100 and 70,000
		// bytes in turn.
		sizes := []int{1 << 10, 64 << 10, 256 << 10}
		if !testenv.Long() {
			if i%3 != 0 {
				continue
			}
			sizes = sizes[:1]
		}
		for _, n := range sizes {
			s := newScanner(truncate.PreviewOptions{Clean: true, MaxLineChars: 1000}, 64<<10)
			for b := c.Output; len(b) > 0; {
				k := min(n, len(b))
				s.write(b[:k], int64(bytes.Count(b[:k], []byte("\n"))), false)
				b = b[k:]
			}
			got, _ := s.finish()
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, chunks of %d: %d groups, want %d", c.Name, n, len(got.Groups), len(want.Groups))
			}
		}
	}
}

// TestScannerSkips: past the spool's cap the scanner may skip chunks it
// cannot keep up with; whatever it skips, the groups it finds are the
// output's lines at the numbers they claim.
func TestScannerSkips(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	// 20,000 lines (1.2 MB, 4 errors) in the quick run, 200,000 with
	// TOOLD_LONG=1: more lines only skip more.
	for i := range testenv.Size(20000, 200000) {
		if i%5000 == 4999 {
			fmt.Fprintf(&out, "2026-11-22 02:00:00 ERROR job %d failed\n", i)
			continue
		}
		fmt.Fprintf(&out, "2026-11-22 02:00:00 INFO job %d done in %d ms\n", i, i%97)
	}
	lines := bytes.SplitAfter(out.Bytes(), []byte("\n"))
	s := newScanner(truncate.PreviewOptions{Clean: true, MaxLineChars: 1000}, 64<<10)
	for b := out.Bytes(); len(b) > 0; {
		k := min(4096, len(b))
		s.write(b[:k], int64(bytes.Count(b[:k], []byte("\n"))), true)
		b = b[k:]
	}
	res, _ := s.finish()
	if len(res.Groups) == 0 && !s.skipped {
		t.Fatal("no group found, nothing skipped")
	}
	for _, g := range res.Groups {
		for i, l := range g.Lines {
			if want := string(lines[g.FromLine-1+int64(i)]); l != want {
				t.Fatalf("line %d: %q, want %q (skipped %v)", g.FromLine+int64(i), l, want, s.skipped)
			}
		}
	}
	t.Logf("%d groups, skipped %v", len(res.Groups), s.skipped)
}

// TestScannerFollowsSpool: a scanner that reads on from the spool file
// finds, in every real output of the corpus, what one handed each chunk
// finds; where the spool stops (its cap) it finds only lines the spool
// keeps, at the numbers they have in the output.
func TestScannerFollowsSpool(t *testing.T) {
	t.Parallel() // its own runner and commands
	cs, err := loadCorpus()
	if err != nil {
		t.Fatal(err)
	}
	wants, _ := scanCorpus()
	opt := truncate.PreviewOptions{MaxLines: 40, MaxBytes: 2000, MaxLineChars: 1000, Clean: true}
	shown := 0
	dir := t.TempDir()
	for i, c := range cs {
		t.Run(c.Name, func(t *testing.T) {
			chunks := []int{3000, 100, 70000}
			var found highlight.Result
			handed, _ := runCaptureInto(&found, "", false, 0, c.Output, opt, 4096, chunks)
			// The scanner handed these chunks finds what a scan of the whole
			// output finds (TestScanner's check, at other chunk sizes).
			if !reflect.DeepEqual(found, wants[i]) {
				t.Fatalf("handed chunks of %v: %d groups, want %d", chunks, len(found.Groups), len(wants[i].Groups))
			}
			shown += len(checkRead(t, dir, handed, c.Output, opt, 4096, chunks).Highlights)
		})
	}
	if shown == 0 {
		t.Fatal("no highlight shown: the comparison proves nothing")
	}

	// Past the spool's cap: 12,000 lines (0.6 MB, 12 errors, 6 of them in
	// what the spool keeps) in the quick run, 100,000 with TOOLD_LONG=1;
	// the spool keeps half. Past the cap the scanner skips from the first
	// capped chunk on, at any size.
	var out bytes.Buffer
	n := testenv.Size(12000, 100000)
	out.Grow(n * 64) // at once, as the handed capture's spool
	for i := 1; i <= n; i++ {
		if i%1000 == 0 {
			fmt.Fprintf(&out, "2026-11-22 02:00:00 ERROR job %d failed: connection refused\n", i)
			continue
		}
		fmt.Fprintf(&out, "2026-11-22 02:00:00 INFO job %d done in %d ms\n", i, i%97)
	}
	lines := bytes.SplitAfter(out.Bytes(), []byte("\n"))
	limit := int64(out.Len() / 2)
	st, sp := runCaptureIn(dir, true, limit, out.Bytes(), opt, 4096, []int{65536, 1000})
	if !st.ScanSkipped || st.TotalLines != int64(n) || !sp.capped {
		t.Fatalf("capped at %d: skipped %v, %d lines", limit, st.ScanSkipped, st.TotalLines)
	}
	kept := int64(bytes.Count(out.Bytes()[:limit], []byte("\n")))
	if len(st.Highlights) == 0 {
		t.Fatal("no highlight")
	}
	for _, h := range st.Highlights {
		if h.ToLine > kept+1 {
			t.Errorf("a group at lines %d-%d, past what the spool keeps (%d lines)", h.FromLine, h.ToLine, kept)
		}
		for i, l := range strings.SplitAfter(h.Text, "\n") {
			if l != "" && l != string(lines[h.FromLine-1+int64(i)]) {
				t.Fatalf("line %d: %q, want %q", h.FromLine+int64(i), l, lines[h.FromLine-1+int64(i)])
			}
		}
	}
}

// TestScannerStop: a following scanner told to stop (the command was
// cancelled) only counts the lines it has not reached; what it found
// before is at the right lines, and the totals hold.
func TestScannerStop(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	// Every line an error: 20,000 (1.4 MB, 6 chunks, stopped after the
	// third) in the quick run, 200,000 with TOOLD_LONG=1.
	lineCount := testenv.Size(20000, 200000)
	for i := 1; i <= lineCount; i++ {
		fmt.Fprintf(&out, "2026-11-22 02:00:00 ERROR [db] job %d failed: connection refused\n", i)
	}
	lines := bytes.SplitAfter(out.Bytes(), []byte("\n"))
	opt := truncate.PreviewOptions{MaxLines: 40, MaxBytes: 2000, MaxLineChars: 1000, Clean: true}
	f, err := os.CreateTemp(t.TempDir(), "spool")
	if err != nil {
		t.Fatal(err)
	}
	c := newCapture(opt, "stdout", func(string) (SpoolFile, error) { return &memSpool{f: f}, nil })
	for b := out.Bytes(); len(b) > 0; {
		k := min(256<<10, len(b))
		c.write(b[:k])
		c.flush()
		b = b[k:]
		if len(b) < out.Len()/2 {
			c.stopScan()
		}
	}
	if !c.scan.following {
		t.Fatal("the scanner did not follow the spool file")
	}
	s := c.finish()
	if s.TotalLines != int64(lineCount) || s.TotalBytes != int64(out.Len()) || s.ScanSkipped {
		t.Fatalf("%d lines, %d bytes, skipped %v", s.TotalLines, s.TotalBytes, s.ScanSkipped)
	}
	for _, h := range s.Highlights {
		for i, l := range strings.SplitAfter(h.Text, "\n") {
			if l != "" && l != string(lines[h.FromLine-1+int64(i)]) {
				t.Fatalf("line %d: %q, want %q", h.FromLine+int64(i), l, lines[h.FromLine-1+int64(i)])
			}
		}
	}
}
