package notice

import (
	"fmt"
	"strings"

	"github.com/toold/toold/protocol"
)

// OutlineFacts are what an outline's notice is made from.
type OutlineFacts struct {
	Format         string
	Shown, Total   int
	TotalLines     int64
	TotalBytes     int64
	MaxBytes       int
	Truncated      bool   // entries were left out for MaxBytes
	MaxWindowBytes int    // the cap of maxBytes
	Call           string // the call that reads a range: "read" or "page spool=ID"
	ExampleLine    int64  // an entry to show the call with, 0 for none
	ExampleEndLine int64
	ExampleName    string
	Summary        string // the format's line about the whole file, "" for none
	CtagsMissing   bool   // code outlined by indent because ctags is not installed
	FromLine       int64  // the outline's entries start at this line (offset)
	Next           int64  // the line where the entries left out at the end start, 0 for none
	// ExampleBytes, when not 0, is the length of the example's first line,
	// too long for a read: the example names ByteCall (readBytes, or page
	// spool=ID) from ExampleStartByte instead, at most ReadBytesMax a call.
	ExampleBytes     int64
	ExampleStartByte int64
	ByteCall         string
	ReadBytesMax     int
}

// LongLine is a line holding entries of an outline that a page of the
// outline could not show, and that pages by line cannot split.
type LongLine struct {
	Line, StartByte, Bytes   int64
	ByteCall                 string // readBytes, or page spool=ID
	MaxBytes, MaxWindowBytes int    // the outline's maxBytes and its cap
}

// OutlineLongLine says where the entries left out of an outline's page are
// when they are all on one line (a minified JSON): on that line, shown by a
// larger maxBytes or read by bytes, the calls named.
func OutlineLongLine(l LongLine) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[The entries not shown on line %d are on a line of %s that pages of the outline cannot split:", l.Line, Size(l.Bytes))
	if l.MaxBytes < l.MaxWindowBytes {
		fmt.Fprintf(&b, " maxBytes=%d shows more of them;", l.MaxWindowBytes)
	}
	fmt.Fprintf(&b, " read the line by bytes with %s", byteRanges(l.ByteCall, l.StartByte, l.Bytes, l.MaxWindowBytes))
	return b.String() + "]"
}

// byteRanges names the calls that read bytes start..start+n by chunks of
// at most max: the first one, and how the walk goes on.
func byteRanges(call string, start, n int64, max int) string {
	if n <= int64(max) {
		return fmt.Sprintf("%s startByte=%d maxBytes=%d", call, start, n)
	}
	return fmt.Sprintf("%s startByte=%d maxBytes=%d, then startByte=%d and on (%d calls)", call, start, max, start+int64(max), (n+int64(max)-1)/int64(max))
}

// Outline is the notice of an outline: what it covers, how to read an entry
// (read offset=L limit=N), what was left out and why.
func Outline(f OutlineFacts) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[Outline (%s) of %d %s, %s: %d %s", f.Format, f.TotalLines, plural(int(f.TotalLines), "line", "lines"),
		Size(f.TotalBytes), f.Total, plural(f.Total, "entry", "entries"))
	sep := ", "
	if f.FromLine > 1 {
		fmt.Fprintf(&b, "; those from line %d on", f.FromLine)
		sep = ": "
	}
	if f.Truncated {
		fmt.Fprintf(&b, "%s%d shown (%d-byte limit; the deepest entries are left out first", sep, f.Shown, f.MaxBytes)
		if f.MaxBytes < f.MaxWindowBytes {
			fmt.Fprintf(&b, "; maxBytes=%d shows more", f.MaxWindowBytes)
		}
		b.WriteString(")")
	}
	call := f.Call
	if call == "" {
		call = "read"
	}
	b.WriteString(". To read an entry use " + call + " offset=LINE limit=ENDLINE-LINE+1")
	switch {
	case f.ExampleLine > 0 && f.ExampleBytes > 0:
		fmt.Fprintf(&b, ", e.g. for %s, on line %d of %s: %s", f.ExampleName, f.ExampleLine, Size(f.ExampleBytes),
			byteRanges(f.ByteCall, f.ExampleStartByte, f.ExampleBytes, f.ReadBytesMax))
	case f.ExampleLine > 0:
		fmt.Fprintf(&b, ", e.g. %s offset=%d limit=%d for %s", call, f.ExampleLine, f.ExampleEndLine-f.ExampleLine+1, f.ExampleName)
	}
	if f.Next > 0 {
		fmt.Fprintf(&b, ". For the entries from line %d on use %s outline=true offset=%d", f.Next, call, f.Next)
	}
	if f.Summary != "" {
		b.WriteString(". " + f.Summary)
	}
	if f.CtagsMissing {
		b.WriteString(". Install Universal Ctags (apt-get install universal-ctags, brew install universal-ctags) for a symbol outline")
	}
	b.WriteString("]")
	return b.String()
}

// OutlineEmpty is the notice of a file in which no outline was found.
func OutlineEmpty(format string, totalLines int64, call string) string {
	if call == "" {
		call = "read"
	}
	return fmt.Sprintf("[No outline entries found (%s) in %d lines. Use %s offset=LINE limit=N to read a range]", format, totalLines, call)
}

// Unchanged is the notice of a re-read with ifChanged whose lines did not
// change since the session last read them.
func Unchanged(from, to int64) string {
	return fmt.Sprintf("[Lines %d-%d unchanged since your last read]", from, to)
}

// ChangedLines is the notice of a re-read with ifChanged whose window holds
// lines that changed since the session last read them.
func ChangedLines(ranges [][2]int64, lines int64, moved bool) string {
	s := fmt.Sprintf("[Changed since your last read: %s", linesCounted(ranges, lines))
	if moved {
		s += "; the other lines are as you read them, some at new line numbers"
	}
	return s + "]"
}

// Reread is the notice of a re-read with ifChanged that is not unchanged:
// the lines changed since the session read them (changed, counted), the
// lines it had never read (unseen: they come as a first read gives them),
// and whether the other lines moved. Nil changed and unseen is Moved's case.
func Reread(from, to int64, changed, unseen [][2]int64, moved bool) string {
	switch {
	case len(unseen) == 0 && len(changed) == 0:
		return Moved(from, to)
	case len(unseen) == 0:
		return ChangedLines(changed, countLines(changed), moved)
	case len(changed) > 0:
		return fmt.Sprintf("[Changed since your last read: %s; not read before: %s]",
			linesCounted(changed, countLines(changed)), linesCounted(unseen, countLines(unseen)))
	}
	s := fmt.Sprintf("[Not read before in this session: %s; the other lines are as you read them", linesCounted(unseen, countLines(unseen)))
	if moved {
		s += ", some at new line numbers"
	}
	return s + "]"
}

// linesCounted is line ranges with their count of lines: "lines 100,
// 500-501 (3 lines)", or "line 7 (1 line)" for one line.
func linesCounted(ranges [][2]int64, n int64) string {
	if n == 1 {
		return fmt.Sprintf("line %s (1 line)", rangesText(ranges))
	}
	return fmt.Sprintf("lines %s (%d lines)", rangesText(ranges), n)
}

// rangesText is line ranges as "100, 500-501", the first 8 of them.
func rangesText(ranges [][2]int64) string {
	var parts []string
	for i, r := range ranges {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("and %d more ranges", len(ranges)-i))
			break
		}
		if r[0] == r[1] {
			parts = append(parts, fmt.Sprint(r[0]))
		} else {
			parts = append(parts, fmt.Sprintf("%d-%d", r[0], r[1]))
		}
	}
	return strings.Join(parts, ", ")
}

func countLines(ranges [][2]int64) int64 {
	var n int64
	for _, r := range ranges {
		n += r[1] - r[0] + 1
	}
	return n
}

// Moved is the notice of a re-read with ifChanged whose lines are all as the
// session read them, but some at other line numbers (lines were inserted or
// removed before them).
func Moved(from, to int64) string {
	return fmt.Sprintf("[Lines %d-%d hold no line you have not read, but some at new line numbers: lines were inserted or removed before them]", from, to)
}

// OutlineEntry is one entry of an outline as toold mcp renders it: its
// lines, kind and name, indented by depth, and a chunk's counts.
func OutlineEntry(e protocol.OutlineEntry) string {
	var b strings.Builder
	b.WriteString(strings.Repeat("  ", max(e.Depth-1, 0)))
	fmt.Fprintf(&b, "%d-%d %s %s", e.Line, e.EndLine, e.Kind, e.Name)
	var facts []string
	if e.Lines > 0 {
		facts = append(facts, fmt.Sprintf("%d lines", e.Lines))
	}
	for _, lv := range []string{"FATAL", "ERROR", "WARN"} {
		if n := e.Levels[lv]; n > 0 {
			facts = append(facts, fmt.Sprintf("%s %d", lv, n))
		}
	}
	if len(e.Kinds) > 0 {
		ks := make([]string, len(e.Kinds))
		for i, k := range e.Kinds {
			ks[i] = fmt.Sprintf("%s ×%d, lines %d-%d", k.Text, k.Count, k.FirstLine, k.LastLine)
		}
		facts = append(facts, "e.g. "+strings.Join(ks, "; "))
	}
	if len(facts) > 0 {
		b.WriteString(" (" + strings.Join(facts, ", ") + ")")
	}
	return b.String()
}

// LargeFileLongLine is LargeFile's sentence when the file's first line
// alone is longer than a window (a minified file): no whole line is shown,
// and readBytes (call, for a spool "page spool=ID") reads it in slices.
func LargeFileLongLine(size, totalLines int64, maxBytes int, call string) string {
	return fmt.Sprintf("[The file is %s, %s: above is its outline. Line 1 alone is longer than a window: read it in slices with %s startByte=0 maxBytes=%d]",
		Size(size), plural(int(totalLines), "1 line", fmt.Sprintf("%d lines", totalLines)), orDefault(call, "readBytes"), maxBytes)
}

// LargeFile is toold mcp's notice after the outline and first lines it gives
// for a read of a large file with no range; call is the call that reads
// on (read, or for a spool "page spool=ID").
func LargeFile(size int64, firstLines, totalLines int64, call string) string {
	return fmt.Sprintf("[The file is %s, %d lines: above are its outline and lines 1-%d. Read the lines you need with %s offset=N limit=M, e.g. an entry's lines]",
		Size(size), totalLines, firstLines, orDefault(call, "read"))
}

// orDefault is s, or def when s is "".
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
