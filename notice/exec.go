package notice

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/truncate"
)

// ExecFacts are what an exec notice is made from.
type ExecFacts struct {
	// Result is the wire result, streams mapped; its Notice is ignored.
	Result *protocol.ExecResult
	// Timeout is the timeout that applied, for saying after how long.
	Timeout time.Duration
	// StdoutSpoolError and StderrSpoolError say why a stream's spool could
	// not be written in full; "" when it was.
	StdoutSpoolError, StderrSpoolError string
	// StdoutErrors and StderrErrors are set when a shown highlight of the
	// stream is an error (else its highlights are warnings).
	StdoutErrors, StderrErrors bool
	// StdoutClip and StderrClip name the first line the stream shows
	// clipped; nil when none.
	StdoutClip, StderrClip *truncate.Clip
	// StdoutSkipped and StderrSkipped are set when output went past the
	// spool's cap, which the highlight detector does not search.
	StdoutSkipped, StderrSkipped bool
	// Sandbox is what the output shows the session's sandbox refused; nil
	// when nothing.
	Sandbox *SandboxDenial
	// NeedsTerminal is the line of output that says the command wanted a
	// terminal it was not given; "" when none does.
	NeedsTerminal string
	// TTY is set for a command on a terminal of its own.
	TTY bool
	// SpoolsGone is set when the streams' spools are gone by the time the
	// notice is read (toold call's session ends with the call): the notice
	// says so where it would name a spool.
	SpoolsGone bool
	// ToolNames names the methods as toold mcp's tools (Method).
	ToolNames bool
}

// Exec returns the one line that says how the command ended, when that is
// not plain, and what each stream left out and where to find it; "" when
// there is nothing to say.
func Exec(f ExecFacts) string {
	r := f.Result
	var parts []string
	switch {
	case r.TimedOut:
		parts = append(parts, fmt.Sprintf("Timed out after %s: the command's process group was killed", f.Timeout))
	case r.Cancelled:
		parts = append(parts, "Cancelled: the command's process group was killed")
	case r.Signal != nil:
		parts = append(parts, "Killed by "+*r.Signal)
	}
	parts = append(parts, streamParts(f)...)
	if s := Sandbox(f.Sandbox); s != "" {
		parts = append(parts, s)
	}
	if f.NeedsTerminal != "" {
		parts = append(parts, NeedsTerminal(f.NeedsTerminal, f.ToolNames))
	}
	if len(parts) == 0 {
		return ""
	}
	return "[" + strings.Join(parts, ". ") + "]"
}

// streamParts says what each stream left out, which lines of the middle
// it shows, and where the rest is kept.
func streamParts(f ExecFacts) []string {
	var parts []string
	if p := stream("stdout", &f.Result.Stdout, f.StdoutSpoolError, f.StdoutErrors, f.StdoutClip, f.SpoolsGone); p != "" {
		parts = append(parts, p+skipped(f.StdoutSkipped))
	}
	if p := stream("stderr", &f.Result.Stderr, f.StderrSpoolError, f.StderrErrors, f.StderrClip, f.SpoolsGone); p != "" {
		parts = append(parts, p+skipped(f.StderrSkipped))
	}
	return parts
}

// stream says what stream name left out, which lines of the middle it
// shows, and where the rest is kept (gone: SpoolNotKept instead of the
// spool).
func stream(name string, s *protocol.Stream, spoolErr string, errs bool, clip *truncate.Clip, gone bool) string {
	var p string
	switch {
	case s.Binary && s.Spool != nil && spoolErr == "" && gone:
		return fmt.Sprintf("%s is binary (%s): not shown%s", name, Size(s.TotalBytes), SpoolNotKept)
	case s.Binary && s.Spool != nil && spoolErr == "":
		return fmt.Sprintf("%s is binary (%s): not shown; the raw bytes are in %s", name, Size(s.TotalBytes), s.Spool.Path)
	case s.Binary:
		p = fmt.Sprintf("%s is binary (%s): not shown", name, Size(s.TotalBytes))
	case s.Omitted != nil:
		p = fmt.Sprintf("%s: %d lines, %s; lines %d-%d (%s) omitted", name, s.TotalLines, Size(s.TotalBytes),
			s.Omitted.FromLine, s.Omitted.ToLine, Size(s.Omitted.Bytes))
		p += highlights(s, errs)
	case s.ClippedLines > 0:
		p = fmt.Sprintf("%s: %d %s clipped", name, s.ClippedLines, plural(s.ClippedLines, "line", "lines"))
	}
	if clip != nil && s.Spool != nil && spoolErr == "" && gone {
		return p + SpoolNotKept
	}
	if clip != nil && s.Spool != nil && spoolErr == "" {
		p += fmt.Sprintf("; page spool=%s startByte=%d reads clipped line %d on", s.Spool.ID, clip.StartByte, clip.Line)
		if s.Omitted == nil {
			return p
		}
	}
	switch {
	case spoolErr != "":
		if p == "" {
			p = name
		}
		p += "; the full output could not be kept: " + spoolErr
	case s.Spool != nil && p != "" && gone:
		p += SpoolNotKept
	case s.Spool != nil && p != "":
		if s.Omitted != nil {
			p += fmt.Sprintf("; read them with page spool=%s offset=%d", s.Spool.ID, s.Omitted.FromLine)
		} else {
			p += fmt.Sprintf("; all of it is in page spool=%s", s.Spool.ID)
		}
		if s.Spool.Capped {
			p += fmt.Sprintf(" (the spool stops at %s)", Size(s.Spool.Bytes))
		}
	}
	return p
}

// SpoolNotKept is what an exec notice says of a stream's spool when that
// spool is gone with its session (toold call ends its session as it
// exits), in place of the page call that would read it.
const SpoolNotKept = "; not kept: toold call's session, and its spool, ended with the call"

// UnknownParams says which params a method ignored, each with the known one
// nearest in spelling ("" when none), so that a misspelt offset never
// silently reads from line 1.
func UnknownParams(fields, nearest []string) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		parts[i] = paramName(f)
		if nearest[i] != "" {
			parts[i] += " (did you mean " + nearest[i] + "?)"
		}
	}
	noun := "param"
	if len(fields) > 1 {
		noun = "params"
	}
	return "[Unknown " + noun + " ignored: " + strings.Join(parts, ", ") + "]"
}

// paramName is a client's param name as a notice shows it: on one line
// (quoted, as Go quotes, when it holds a control character or invalid
// UTF-8) and at most 64 characters, since a notice is one line.
func paramName(f string) string {
	if !utf8.ValidString(f) || strings.IndexFunc(f, unicode.IsControl) >= 0 {
		f = strconv.Quote(f)
	}
	if r := []rune(f); len(r) > 64 {
		f = string(r[:64]) + "…"
	}
	return f
}

// maxRanges bounds the highlighted ranges a notice names.
const maxRanges = 8

// highlights names the lines of the middle a stream shows, by the reason
// each group is there, e.g. ", but errors at lines 1733-1736, 5120 and
// lines of a rare shape at lines 4410 are shown (2 more groups not)". A
// highlight without a reason counts as an error when errs is set, else as
// a warning.
func highlights(s *protocol.Stream, errs bool) string {
	if len(s.Highlights) == 0 {
		if s.HighlightsOmitted > 0 {
			return fmt.Sprintf(" (%d groups of errors or warnings among them not shown)", s.HighlightsOmitted) + kinds(s.Kinds)
		}
		return ""
	}
	ranges := map[string][]string{}
	named := 0
	for _, h := range s.Highlights {
		r := h.Reason
		if r == "" {
			r = protocol.HighlightWarning
			if errs {
				r = protocol.HighlightError
			}
		}
		switch {
		case named == maxRanges:
			ranges[r] = append(ranges[r], "...")
		case named > maxRanges:
		case h.FromLine == h.ToLine:
			ranges[r] = append(ranges[r], fmt.Sprint(h.FromLine))
		default:
			ranges[r] = append(ranges[r], fmt.Sprintf("%d-%d", h.FromLine, h.ToLine))
		}
		named++
	}
	var parts []string
	for _, r := range protocol.HighlightReasons {
		if rs := ranges[r]; len(rs) > 0 {
			parts = append(parts, reasonNames[r]+" at lines "+strings.Join(rs, ", "))
		}
	}
	p := ", but " + strings.Join(parts, " and ") + " are shown"
	if s.HighlightsOmitted > 0 {
		p += fmt.Sprintf(" (%d more groups not)", s.HighlightsOmitted)
	}
	return p + kinds(s.Kinds)
}

// reasonNames name the groups of each reason (protocol.Highlight.Reason)
// in a notice.
var reasonNames = map[string]string{
	protocol.HighlightError:   "errors",
	protocol.HighlightWarning: "warnings",
	protocol.HighlightExit:    "the lines before the failure",
	protocol.HighlightRare:    "lines of a rare shape",
}

// maxKindsNamed bounds the kinds a notice names.
const maxKindsNamed = 3

// kinds names the most frequent kinds of failure lines, e.g. `; most
// frequent: "ERROR [db] <*> failed" 41233 lines (first 17, last 477600)`.
func kinds(ks []protocol.Kind) string {
	if len(ks) == 0 {
		return ""
	}
	var ps []string
	for _, k := range ks[:min(len(ks), maxKindsNamed)] {
		ps = append(ps, fmt.Sprintf("%q %d lines (first %d, last %d)", k.Text, k.Count, k.FirstLine, k.LastLine))
	}
	return "; most frequent kinds: " + strings.Join(ps, ", ")
}

// skipped says that output past the spool's cap was not searched.
func skipped(yes bool) string {
	if !yes {
		return ""
	}
	return "; lines past the spool's cap were not searched for errors"
}
