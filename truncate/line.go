package truncate

import (
	"bytes"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// SplitEnding splits line into its body and its line ending: "\r\n", "\n",
// or "" for a last line without one.
func SplitEnding(line []byte) (body, ending []byte) {
	n := len(line)
	switch {
	case n >= 2 && line[n-2] == '\r' && line[n-1] == '\n':
		return line[:n-2], line[n-2:]
	case n >= 1 && line[n-1] == '\n':
		return line[:n-1], line[n-1:]
	}
	return line, nil
}

// CutBack returns the largest k <= n such that b[:k] does not end inside a
// UTF-8 sequence. Invalid bytes count as characters of their own. When that
// would give 0 although n > 0, it returns the length of b's first character so
// that a caller walking b always moves forward.
func CutBack(b []byte, n int) int {
	if n >= len(b) {
		return len(b)
	}
	if n <= 0 {
		return 0
	}
	// Find the start of the character that holds b[n], looking back at most
	// utf8.UTFMax-1 bytes; b[:start] then ends on a boundary.
	k := n
	for i := n; i >= 0 && i > n-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			k = i
			break
		}
	}
	if k != n {
		// b[k] starts a sequence; it is split by n only if it is a valid
		// multi-byte character that reaches past n.
		if r, size := utf8.DecodeRune(b[k:]); r == utf8.RuneError && size <= 1 || k+size <= n {
			k = n
		}
	}
	if k == 0 {
		_, size := utf8.DecodeRune(b)
		return size
	}
	return k
}

// SkipForward returns the smallest k >= i at which a character of b starts: i
// itself unless i falls inside a valid multi-byte sequence.
func SkipForward(b []byte, i int) int {
	if i <= 0 {
		return 0
	}
	if i >= len(b) {
		return len(b)
	}
	for j := i - 1; j >= 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(b[j]) {
			r, size := utf8.DecodeRune(b[j:])
			if !(r == utf8.RuneError && size <= 1) && j+size > i {
				return j + size
			}
			break
		}
	}
	return i
}

// Valid returns b as a string with each invalid UTF-8 byte replaced by U+FFFD.
func Valid(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var sb bytes.Buffer
	sb.Grow(len(b) + 16)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			sb.WriteRune(utf8.RuneError)
		} else {
			sb.Write(b[:size])
		}
		b = b[size:]
	}
	return sb.String()
}

// ClipLine cuts line (with its ending, if any) after maxChars characters, on a
// character boundary, keeping the line ending. Invalid bytes count as one
// character each. maxChars <= 0 turns clipping off.
func ClipLine(line []byte, maxChars int) (out []byte, clipped bool) {
	if maxChars <= 0 || len(line) <= maxChars {
		return line, false
	}
	body, ending := SplitEnding(line)
	if len(body) <= maxChars {
		return line, false
	}
	i, n := 0, 0
	for i < len(body) && n < maxChars {
		if body[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRune(body[i:])
			i += size
		}
		n++
	}
	if i == len(body) {
		return line, false
	}
	out = make([]byte, 0, i+len(ending))
	out = append(out, body[:i]...)
	return append(out, ending...), true
}

// CleanLine returns line as a terminal would leave it: text redrawn after a
// carriage return replaces what came before it on the line, and ANSI escape
// sequences are removed. The line ending is kept as it was. Lines without
// either are returned unchanged, without copying.
func CleanLine(line []byte) []byte {
	body, ending := SplitEnding(line)
	if bytes.IndexByte(body, '\r') < 0 && bytes.IndexByte(body, 0x1b) < 0 {
		return line
	}
	// A trailing \r moves the cursor without drawing: it redraws nothing.
	body = bytes.TrimRight(body, "\r")
	if i := bytes.LastIndexByte(body, '\r'); i >= 0 {
		body = body[i+1:]
	}
	if bytes.IndexByte(body, 0x1b) >= 0 {
		body = []byte(ansi.Strip(string(body)))
	}
	out := make([]byte, 0, len(body)+len(ending))
	out = append(out, body...)
	return append(out, ending...)
}

// ShowLine renders one line for a model: cleaned when clean is set, clipped
// at maxChars characters, invalid UTF-8 replaced by U+FFFD.
func ShowLine(line []byte, clean bool, maxChars int) (shown string, clipped bool) {
	if clean {
		line = CleanLine(line)
	}
	line, clipped = ClipLine(line, maxChars)
	return Valid(line), clipped
}

// sniffLen is how much of a file or stream IsBinary looks at.
const sniffLen = 8192

// IsBinary reports whether sample, the first bytes of a file or stream, is not
// text, as git and file(1) decide: it holds a NUL byte (git's test), or
// control characters that file(1) never finds in text (C0 controls other
// than BEL, BS, TAB, LF, VT, FF, CR and ESC, and DEL) make up more than one
// byte in 16. file(1) calls a single one data; the margin keeps a stray SI
// (a terminal's sgr0) from hiding a command's output. Bytes above 0x7F never
// count: invalid UTF-8 alone (Latin-1, CP1252) is text, shown with U+FFFD.
// Only the first 8 KiB are looked at.
func IsBinary(sample []byte) bool {
	if len(sample) > sniffLen {
		sample = sample[:sniffLen]
	}
	if bytes.IndexByte(sample, 0) >= 0 {
		return true
	}
	bad := 0
	for _, c := range sample {
		if notText(c) {
			bad++
		}
	}
	return bad*16 > len(sample)
}

// notText reports whether file(1) takes c for a byte that never appears in
// text (its encoding.c table, the F entries).
func notText(c byte) bool {
	switch {
	case c == 0x7f:
		return true
	case c >= 0x20:
		return false
	}
	switch c {
	case '\a', '\b', '\t', '\n', '\v', '\f', '\r', 0x1b:
		return false
	}
	return true
}
