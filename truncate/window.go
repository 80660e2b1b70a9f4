package truncate

import "bytes"

// Limits that end a window.
const (
	ByLines = "lines"
	ByBytes = "bytes"
)

// LineOptions are the limits of a window of whole lines.
type LineOptions struct {
	// Limit is the most lines the window holds; 0 or less means no limit.
	Limit int
	// MaxBytes is the most bytes of the input the window spans. Lines cut
	// the window; only a first line that alone passes MaxBytes is split.
	MaxBytes int
	// MaxLineChars clips longer lines at that many characters (line ending
	// kept); 0 turns clipping off.
	MaxLineChars int
	// Clean applies CleanLine to each line shown.
	Clean bool
}

// LineWindow is the part of some input that Lines chose to show.
type LineWindow struct {
	// Content is the shown text: whole lines, clipped or cleaned as asked,
	// invalid UTF-8 replaced by U+FFFD.
	Content string
	// Lines is how many input lines Content holds (1 for a partial line).
	Lines int
	// Bytes is how many input bytes Content covers.
	Bytes int
	// Clipped counts the lines cut at MaxLineChars; FirstClipped is the
	// 0-based index within the window of the first of them, -1 if none.
	Clipped, FirstClipped int
	// FirstClippedAt and FirstClippedLen locate that line in the input.
	FirstClippedAt, FirstClippedLen int
	// StoppedBy is ByLines or ByBytes when a limit ended the window before
	// the input did, "" when the window reaches the end of the input.
	StoppedBy string
	// Partial is set when Content is the start of one line longer than
	// MaxBytes, cut on a character boundary.
	Partial bool
}

// Lines cuts a window of whole lines from buf, which starts at the beginning
// of a line. atEOF says whether buf reaches the end of the input: if it does
// not, a last line without '\n' is incomplete and is not shown. buf may run
// a few bytes past MaxBytes (utf8.UTFMax is enough) so that a partial line is
// cut on a character boundary.
func Lines(buf []byte, atEOF bool, o LineOptions) LineWindow {
	full := buf
	if o.MaxBytes > 0 && len(buf) > o.MaxBytes {
		buf, atEOF = buf[:o.MaxBytes], false
	}
	w := LineWindow{FirstClipped: -1}
	// Lines shown as they are are copied in spans; only a line that is
	// clipped or cleaned is copied on its own. The common window is then
	// one copy of buf.
	var out []byte
	span := 0 // start of the lines not yet copied to out
	pos := 0
	for pos < len(buf) {
		if o.Limit > 0 && w.Lines == o.Limit {
			break
		}
		end := len(buf)
		if i := bytes.IndexByte(buf[pos:], '\n'); i >= 0 {
			end = pos + i + 1
		} else if !atEOF {
			break // the line goes on past buf
		}
		line := buf[pos:end]
		shown := line
		if o.Clean {
			shown = CleanLine(shown)
		}
		shown, clipped := ClipLine(shown, o.MaxLineChars)
		if clipped {
			if w.Clipped == 0 {
				w.FirstClipped, w.FirstClippedAt, w.FirstClippedLen = w.Lines, pos, end-pos
			}
			w.Clipped++
		}
		if len(shown) != len(line) || clipped {
			out = append(append(out, buf[span:pos]...), shown...)
			span = end
		}
		w.Lines++
		pos = end
	}
	w.Bytes = pos
	switch {
	case pos == len(buf) && atEOF:
		w.StoppedBy = ""
	case o.Limit > 0 && w.Lines == o.Limit:
		w.StoppedBy = ByLines
	default:
		w.StoppedBy = ByBytes
	}
	if w.Lines == 0 && w.StoppedBy == ByBytes && len(buf) > 0 {
		// One line longer than the whole window: show its start.
		n := CutBack(full, len(buf))
		part := full[:n]
		if o.Clean {
			part = CleanLine(part)
		}
		w.Content, w.Lines, w.Bytes, w.Partial = Valid(part), 1, n, true
		return w
	}
	if out == nil {
		w.Content = Valid(buf[:pos])
	} else {
		w.Content = Valid(append(out, buf[span:pos]...))
	}
	return w
}

// Slice cuts up to maxBytes from buf, a part of one line, on a character
// boundary, and returns how many bytes to take. buf either ends where the line
// does or runs a few bytes (utf8.UTFMax) past maxBytes, so that a character
// cut by maxBytes is seen whole. It takes at least one character whenever buf
// is not empty, so a walk always moves forward.
func Slice(buf []byte, maxBytes int) int {
	if len(buf) <= maxBytes {
		return len(buf)
	}
	return CutBack(buf, maxBytes)
}
