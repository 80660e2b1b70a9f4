package notice

import (
	"fmt"

	"github.com/toold/toold/protocol"
)

// WindowFacts are what a window notice is made from. Lines are 1-based,
// bytes 0-based with ends exclusive, as in the protocol.
type WindowFacts struct {
	// ByteMode is set for readBytes (and page with startByte): the notice
	// then speaks of startByte rather than offset.
	ByteMode bool
	// Method names the method that reads the file on ("read" or "page").
	Method                         string
	StartLine, EndLine, TotalLines int64
	StartByte, EndByte, TotalBytes int64
	// PastEnd is set when the requested offset lies beyond the last line.
	PastEnd bool
	// TruncatedBy is protocol.ByLines or protocol.ByBytes when a limit
	// ended the window, "" when the file did.
	TruncatedBy string
	Partial     bool
	// PartialLineBytes is the length of the line a partial window cuts,
	// and PartialLineEnd where that line ends in the file.
	PartialLineBytes, PartialLineEnd int64
	MaxBytes                         int
	// ByteCall is the call that reads the file on by bytes: "readBytes", or
	// "page spool=ID" for a spool.
	ByteCall string
	// Clipped counts lines cut at MaxLineChars; the first of them is line
	// ClippedLine, which spans ClippedStart..ClippedStart+ClippedLen.
	Clipped                               int
	MaxLineChars                          int
	ClippedLine, ClippedStart, ClippedLen int64
	// MaxReadBytes is the readBytes cap, for telling how to read a clipped
	// line whole.
	MaxReadBytes int
}

// Window returns the one line that tells a model what a window left
// out and how to go on, or "" when there is nothing to say.
func Window(f WindowFacts) string {
	var s string
	switch {
	case f.TotalBytes == 0:
		return "[The file is empty: 0 lines]"
	case f.PastEnd:
		return fmt.Sprintf("[Offset %d is past the end: the file has %d lines. Use offset=1 to %d]", f.StartLine, f.TotalLines, f.TotalLines)
	case f.Partial && f.EndByte < f.PartialLineEnd:
		s = fmt.Sprintf("[Line %d is %s, longer than the %d-byte window: showing bytes %d-%d of it. Use %s startByte=%d maxBytes=%d to continue the line",
			f.StartLine, Size(f.PartialLineBytes), f.MaxBytes, f.StartByte, f.EndByte, f.byteCall(), f.EndByte, f.MaxBytes)
		if !f.ByteMode && f.EndLine < f.TotalLines {
			s += fmt.Sprintf(", or offset=%d to skip it", f.EndLine+1)
		}
		s += "]"
	case f.Partial:
		s = fmt.Sprintf("[Showing bytes %d-%d, the end of line %d (%s)", f.StartByte, f.EndByte, f.StartLine, Size(f.PartialLineBytes))
		if f.EndByte < f.TotalBytes {
			s += fmt.Sprintf(". Use startByte=%d to continue", f.EndByte)
		}
		s += "]"
	case f.ByteMode && f.TruncatedBy != "":
		s = fmt.Sprintf("[Showing bytes %d-%d of %d (lines %d-%d of %d). Use startByte=%d to continue]",
			f.StartByte, f.EndByte, f.TotalBytes, f.StartLine, f.EndLine, f.TotalLines, f.EndByte)
	case f.TruncatedBy == protocol.ByBytes:
		s = fmt.Sprintf("[Showing lines %d-%d of %d (%d-byte limit). Use offset=%d to continue]",
			f.StartLine, f.EndLine, f.TotalLines, f.MaxBytes, f.EndLine+1)
	case f.TruncatedBy == protocol.ByLines:
		s = fmt.Sprintf("[Showing lines %d-%d of %d. Use offset=%d to continue]",
			f.StartLine, f.EndLine, f.TotalLines, f.EndLine+1)
	}
	if f.Clipped > 0 {
		c := fmt.Sprintf("%d %s clipped at %d characters; to read line %d whole use %s startByte=%d maxBytes=%d",
			f.Clipped, plural(f.Clipped, "line", "lines"), f.MaxLineChars, f.ClippedLine, f.byteCall(), f.ClippedStart, min(f.ClippedLen, int64(f.MaxReadBytes)))
		if f.ClippedLen > int64(f.MaxReadBytes) {
			c += " and follow next.startByte"
		}
		if s == "" {
			return "[" + c + "]"
		}
		return s[:len(s)-1] + ". " + c + "]"
	}
	if s == "" {
		return ""
	}
	return s
}

func (f *WindowFacts) byteCall() string {
	if f.ByteCall == "" {
		return "readBytes"
	}
	return f.ByteCall
}
