package preview

import (
	"bytes"
	"fmt"
	"io"

	"github.com/toold/toold/highlight"
	"github.com/toold/toold/truncate"
)

// LineScan is the clean-up (truncate.LineStream) and the highlight detector
// of one stream, fed its bytes in order. exec's capture runs one on its
// scanner's goroutine; ScanRange runs one over output read back from a spool.
type LineScan struct {
	ls    truncate.LineStream
	det   *highlight.Parallel // its state machine on a goroutine of its own past the first MiB
	block func(first int64, lines []byte)
}

// NewLineScan returns the scan of a stream whose preview of opt is cut from
// keep bytes at each end (KeepBytes). Finish ends it, and the detector's
// goroutine with it.
func NewLineScan(opt truncate.PreviewOptions, keep int) *LineScan {
	maxLine := scanLine(opt, keep)
	s := &LineScan{
		ls:  truncate.LineStream{Clean: opt.Clean, MaxLine: maxLine, LongLine: int64(keep) / 4, PrefixLen: int64(keep)},
		det: highlight.NewParallel(highlight.Options{MaxLineBytes: maxLine}),
	}
	s.block = func(first int64, lines []byte) { s.det.Block(first, lines) }
	return s
}

// scanLine is how much of a line the scan keeps: enough for a line shown
// clipped at MaxLineChars characters (of up to 4 bytes), or keep when lines
// are not clipped.
func scanLine(opt truncate.PreviewOptions, keep int) int {
	if opt.MaxLineChars <= 0 {
		return keep
	}
	return min(max(4*opt.MaxLineChars, 4096), keep)
}

// Write scans p, the stream's next bytes.
func (s *LineScan) Write(p []byte) { s.ls.Write(p, s.block) }

// Skip passes n bytes holding newlines '\n' unread.
func (s *LineScan) Skip(n, newlines int64) {
	s.ls.Skip(n, newlines)
	s.det.Gap()
}

// Finish ends the stream and returns what the detector found and the long
// lines that passed.
func (s *LineScan) Finish() (highlight.Result, []truncate.KnownLine) {
	s.ls.Close(s.block)
	var known []truncate.KnownLine
	if k := s.ls.First; k != nil {
		known = append(known, *k)
	}
	if k := s.ls.Last; k != nil && k != s.ls.First {
		known = append(known, *k)
	}
	return s.det.Finish(), known
}

// Scan is what ScanRange found in a run of output.
type Scan struct {
	Found    highlight.Result     // the detector's groups, lines numbered from 1 at the run's start
	Known    []truncate.KnownLine // long lines, their bytes counted from the run's start
	Newlines int64                // '\n' bytes in the run
}

// ScanBlock is the size of a read of output back from a spool: ScanRange's,
// and exec's scanner's once it follows a spool file.
const ScanBlock = 256 << 10

// ScanRange runs a capture's clean-up and highlight detector over the bytes
// [from, to) of r, a block at a time in bounded memory, as exec's capture of
// a preview of opt runs them over a stream: what exec finds as output passes,
// for output read back from its spool (a background process's new output).
// Bytes past r's end count as none.
func ScanRange(r io.ReaderAt, from, to int64, opt truncate.PreviewOptions) (Scan, error) {
	s := NewLineScan(opt, KeepBytes(opt.MaxBytes))
	var sc Scan
	buf := make([]byte, min(ScanBlock, max(to-from, 0)))
	for off := from; off < to; {
		b := buf[:min(int64(len(buf)), to-off)]
		k, err := r.ReadAt(b, off)
		sc.Newlines += int64(bytes.Count(b[:k], []byte{'\n'}))
		s.Write(b[:k])
		if err == io.EOF || k == 0 {
			break
		}
		if err != nil {
			s.Finish() // ends the detector's goroutine
			return Scan{}, fmt.Errorf("preview: scanning the output: %w", err)
		}
		off += int64(k)
	}
	sc.Found, sc.Known = s.Finish()
	return sc, nil
}

// Result is an output's preview with the groups the detector found in it.
type Result struct {
	truncate.PreviewResult
	// Errors is set when a shown highlight holds an error group's hit
	// (else the highlights are warnings).
	Errors bool
	// Kinds are the shapes of the failure lines found, when groups of them
	// were left out (HighlightsOmitted > 0); nil when every one is shown.
	// Their texts (a line each) take their bytes from MaxBytes, at most a
	// quarter of it.
	Kinds []highlight.Kind
}

// Found renders o's preview with the groups found in it: in the order
// highlight.Rank gives, each verdict's evidence (the log lines of a failed
// go test, which have left the detector's memory) read by lines just before
// it, and the groups the detector found but did not keep counted as left
// out. lines returns the raw lines from..to (1-based, inclusive, as found
// numbers them), or nil when it cannot.
func Found(o truncate.Output, found highlight.Result, lines func(from, to int64) []byte, opt truncate.PreviewOptions) Result {
	var ranked []truncate.Highlight
	rare := RareBytes // what is left of the rare groups' share
	for _, i := range highlight.Rank(found.Groups) {
		g := found.Groups[i]
		w := highlight.ReasonWeight(g.Reason)
		if g.Reason == highlight.ReasonRare {
			if g = fitRare(g, &rare); len(g.Lines) == 0 {
				continue
			}
		}
		for _, ev := range g.Evidence {
			raw := lines(ev.FromLine, ev.ToLine)
			if raw != nil && int64(bytes.Count(raw, []byte{'\n'})) >= ev.ToLine-ev.FromLine {
				ranked = append(ranked, truncate.Highlight{FromLine: ev.FromLine, ToLine: ev.ToLine,
					Lines: splitLines(raw), Hit: ev.FromLine, Spare: g.Spare, Reason: g.Reason, Weight: w})
			}
		}
		ranked = append(ranked, truncate.Highlight{FromLine: g.FromLine, ToLine: g.ToLine, Lines: g.Lines, Hit: g.Hit,
			Spare: g.Spare, Reason: g.Reason, Weight: w})
	}
	preview := func(opt truncate.PreviewOptions) Result {
		pr := Result{PreviewResult: o.Preview(ranked, opt)}
		if pr.Omitted != nil {
			pr.HighlightsOmitted += max(found.Found-failureGroups(found.Groups), 0)
		}
		pr.Errors = shownErrors(pr.Highlights, found.Groups)
		return pr
	}
	pr := preview(opt)
	if pr.HighlightsOmitted > 0 && len(found.Kinds) > 0 {
		// The kinds take their bytes from the budget: at most a quarter.
		ks, size := fitKinds(found.Kinds, opt.MaxBytes/4)
		if len(ks) > 0 {
			less := opt
			less.MaxBytes -= size
			pr = preview(less)
			pr.Kinds = ks
		}
	}
	return pr
}

// RareBytes is the most bytes of a stream's preview that go to the
// highlights of reason "rare" (protocol.RareBytes: TestRareBytes holds
// them equal; preview does not import protocol).
const RareBytes = 1024

// minKeep is the least a capture keeps at each end, whatever MaxBytes is, so
// that binary detection and a small preview always have bytes to work on.
const minKeep = 64 << 10

// KeepBytes is how many bytes at each end of a stream a preview of at most
// maxBytes bytes is cut from: enough for head and tail after clean-up
// shrinks lines, and never less than minKeep.
func KeepBytes(maxBytes int) int { return max(4*maxBytes, minKeep) }

// failureGroups counts the groups of gs whose reason is not "rare": those
// the detector counts as found (Result.Found).
func failureGroups(gs []highlight.Group) int {
	n := 0
	for _, g := range gs {
		if g.Reason != highlight.ReasonRare {
			n++
		}
	}
	return n
}

// fitRare returns g, a group of reason "rare", cut to the bytes left of
// the rare groups' share (*left, which it lowers): its lines from its hit
// on, then those before it, while they fit; no lines when its hit does not.
func fitRare(g highlight.Group, left *int) highlight.Group {
	hit := int(min(max(g.Hit-g.FromLine, 0), int64(len(g.Lines)-1)))
	lo, hi := hit, hit
	for hi < len(g.Lines) && len(g.Lines[hi]) <= *left {
		*left -= len(g.Lines[hi])
		hi++
	}
	for hi > hit && lo > 0 && len(g.Lines[lo-1]) <= *left {
		*left -= len(g.Lines[lo-1])
		lo--
	}
	g.FromLine, g.ToLine = g.FromLine+int64(lo), g.FromLine+int64(hi)-1
	g.Lines = g.Lines[lo:hi]
	if len(g.Lines) > 0 {
		g.Hit = max(g.Hit, g.FromLine)
	}
	return g
}

// fitKinds returns the first of ks whose texts (a line each) fit in
// maxBytes, and their size.
func fitKinds(ks []highlight.Kind, maxBytes int) ([]highlight.Kind, int) {
	size := 0
	for i, k := range ks {
		if size+len(k.Text)+1 > maxBytes {
			return ks[:i], size
		}
		size += len(k.Text) + 1
	}
	return ks, size
}

// splitLines splits raw lines, each keeping its ending.
func splitLines(b []byte) []string {
	var out []string
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n') + 1
		if i == 0 {
			i = len(b)
		}
		out = append(out, string(b[:i]))
		b = b[i:]
	}
	return out
}

// shownErrors reports whether a shown highlight holds an error group's hit.
func shownErrors(shown []truncate.ShownHighlight, groups []highlight.Group) bool {
	for _, h := range shown {
		for _, g := range groups {
			if g.Severity == highlight.Error && g.Hit >= h.FromLine && g.Hit <= h.ToLine {
				return true
			}
		}
	}
	return false
}
