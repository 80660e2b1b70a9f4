package notice

import (
	"fmt"
	"strings"

	"github.com/toold/toold/protocol"
)

// The rendering of a result for a model (an exec's or a process's streams,
// a window, grep's matches, find's and ls' entries) lives here,
// beside its lines, because two sides need it: toold mcp renders a result
// with it, and the daemon measures it to fit a result to a rendered size
// (protocol.RenderParams) once, where the preview is made.

// ExecText is how the command ended, then each stream that has output —
// head, the omitted lines and where to page them, tail — then the notice.
func ExecText(r *protocol.ExecResult) string {
	return StreamsText(Ended(r), &r.Stdout, &r.Stderr, r.Notice)
}

// ProcessText is the process's state (and why a wait ended), then each
// stream's new output as exec renders it, then the notice.
func ProcessText(r *protocol.ProcessOutput) string {
	return StreamsText(ProcessState(r), &r.Stdout, &r.Stderr, r.Notice)
}

// StreamsText is head, then stdout and stderr where they have output, then
// the notice, one to a line.
func StreamsText(head string, stdout, stderr *protocol.Stream, n *string) string {
	var b strings.Builder
	b.WriteString(head)
	b.WriteByte('\n')
	b.WriteString(StreamText("stdout", stdout))
	b.WriteString(StreamText("stderr", stderr))
	if n != nil {
		b.WriteString(*n)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// StreamText is a stream named name as StreamsText renders it, each line
// ended; "" for a stream without output.
func StreamText(name string, s *protocol.Stream) string {
	if s.TotalBytes <= 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(StreamHeader(name) + "\n")
	spool := ""
	if s.Spool != nil {
		spool = s.Spool.ID
	}
	if s.Binary {
		b.WriteString(BinaryOutput(s.TotalBytes, spool) + "\n")
		return b.String()
	}
	writeLines(&b, s.Head)
	if o := s.Omitted; o != nil {
		writeMiddle(&b, o, s.Highlights, spool)
	}
	writeLines(&b, s.Tail)
	// What a model of an error-dense output needs to decide what to page:
	// a line for each kind of failure found more of than shown.
	for _, k := range s.Kinds {
		b.WriteString(KindOfFailure(k) + "\n")
	}
	return b.String()
}

// writeMiddle writes the omitted middle: with no highlights one line that
// names it; else, in output order, a line for each gap and each group's
// lines numbered as cat -n numbers them, so that no group reads as if it
// followed the head, after a line that says why it is shown (its reason).
func writeMiddle(b *strings.Builder, o *protocol.Omitted, hs []protocol.Highlight, spool string) {
	if len(hs) == 0 {
		b.WriteString(OmittedLines(o, spool) + "\n")
		return
	}
	next := o.FromLine
	for _, h := range hs {
		if h.FromLine > next {
			b.WriteString(OmittedGap(next, h.FromLine-1, spool) + "\n")
		}
		if why := HighlightReason(h); why != "" {
			b.WriteString(why + "\n")
		}
		NumberedLines(b, h.FromLine, h.Text)
		next = h.ToLine + 1
	}
	if next <= o.ToLine {
		b.WriteString(OmittedGap(next, o.ToLine, spool) + "\n")
	}
}

// NumberedLines writes text's lines numbered from n as `cat -n` numbers
// them, each ended with "\n" (a line's "\r\n" ending as "\n").
func NumberedLines(b *strings.Builder, n int64, text string) {
	for rest := text; rest != ""; n++ {
		line, r, found := strings.Cut(rest, "\n")
		if found {
			line = strings.TrimSuffix(line, "\r")
		}
		rest = r
		fmt.Fprintf(b, "%6d\t%s\n", n, line)
	}
}

// writeLines writes text as it is, ending it with one newline (output whose
// last line has none gets one, so that the next line stands on its own).
func writeLines(b *strings.Builder, text string) {
	if text == "" {
		return
	}
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
}

// EntriesText is find's or ls' entries, one a line, then the notice.
func EntriesText(r *protocol.EntriesResult) string {
	var b strings.Builder
	for _, e := range r.Entries {
		b.WriteString(e + "\n")
	}
	if r.Notice != nil {
		b.WriteString(*r.Notice + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// GrepText is grep's matches as grep -n prints them with context: a match
// as path:line:text, a context line as path-line-text, "--" between groups
// of lines that do not touch; then the notice.
func GrepText(r *protocol.GrepResult) string {
	var b strings.Builder
	for _, f := range r.Files {
		last := -1
		for _, m := range f.Matches {
			first := m.Line - len(m.Before)
			if last >= 0 && first > last+1 {
				b.WriteString("--\n")
			}
			for i, l := range m.Before {
				fmt.Fprintf(&b, "%s-%d-%s\n", f.Path, first+i, l)
			}
			fmt.Fprintf(&b, "%s:%d:%s\n", f.Path, m.Line, m.Text)
			for i, l := range m.After {
				fmt.Fprintf(&b, "%s-%d-%s\n", f.Path, m.Line+1+i, l)
			}
			last = m.Line + len(m.After)
		}
	}
	if r.Notice != nil {
		b.WriteString(*r.Notice + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// WindowText is a window's outline entries, one a line, then its content
// numbered as `cat -n` numbers it, then its notice on a line of its own. A
// binary window is its notice alone; an image's text is its notice.
func WindowText(w *protocol.Window) string {
	var b strings.Builder
	if w.Outline != nil {
		for _, e := range w.Outline.Entries {
			b.WriteString(OutlineEntry(e) + "\n")
		}
	}
	if !w.Binary && w.Image == nil {
		NumberedLines(&b, w.StartLine, w.Content)
	}
	if w.Notice != nil {
		b.WriteString(*w.Notice)
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// WindowTextLen is len(WindowText(w)), counted without writing the text:
// the daemon measures a window's rendering at each step of fitting it.
func WindowTextLen(w *protocol.Window) int {
	n := 0
	if w.Outline != nil {
		for _, e := range w.Outline.Entries {
			n += len(OutlineEntry(e)) + 1
		}
	}
	if !w.Binary && w.Image == nil {
		n += numberedLen(w.StartLine, w.Content)
	}
	if w.Notice != nil {
		n += len(*w.Notice) + 1
	}
	if n > 0 {
		n-- // the last line's "\n", which WindowText trims
	}
	return n
}

// numberedLen is the bytes NumberedLines writes for text numbered from n.
func numberedLen(n int64, text string) int {
	size := 0
	for rest := text; rest != ""; n++ {
		line, r, found := strings.Cut(rest, "\n")
		if found {
			line = strings.TrimSuffix(line, "\r")
		}
		rest = r
		size += max(digits(n), 6) + 1 + len(line) + 1
	}
	return size
}

// digits is the length of n in decimal.
func digits(n int64) int {
	d := 1
	if n < 0 {
		d, n = 2, -n
	}
	for ; n >= 10; n /= 10 {
		d++
	}
	return d
}
