package highlight

import "bytes"

// maxKey bounds a key's length.
const maxKey = 160

// Key normalizes a hit's line so that lines that differ only in numbers,
// hexadecimal, paths or timestamps get the same key: a run of digits becomes
// '#', a run of 8 or more hex digits '#', a word with a '/' or '\' '/'.
func Key(line []byte) string {
	var buf [maxKey + 8]byte
	return string(appendKey(buf[:0], line))
}

// appendKey appends line's key (see Key) to dst, which it expects empty:
// one pass over the words, no allocation while dst has room for maxKey
// bytes. Words are split as bytes.Fields splits them.
func appendKey(out, line []byte) []byte {
	for i := 0; i < len(line) && len(out) < maxKey; {
		for i < len(line) && keyClass[line[i]]&cSpace != 0 {
			i++
		}
		j, seen, run, long := i, uint8(0), 0, false
		for ; j < len(line); j++ {
			c := keyClass[line[j]]
			if c&cSpace != 0 {
				break
			}
			if c&cHigh != 0 {
				return appendKeyFields(out[:0], line) // Fields splits at Unicode spaces too
			}
			seen |= c
			// The run of hex digits, without a branch: letters a-f
			// among others would be guessed wrong often.
			run = (run + 1) * int(c>>cHexShift&1)
			long = long || run >= 8
		}
		switch w := line[i:j]; {
		case j == i:
		case seen&(cDigit|cSlash) == 0 && !long:
			// Nothing to normalize: the word as it is.
			if len(out) > 0 {
				out = append(out, ' ')
			}
			out = append(out, w...)
		default:
			out = appendKeyWord(out, w, seen&cSlash != 0)
		}
		i = j
	}
	return out[:min(len(out), maxKey)]
}

// keyClass classes the bytes for appendKey.
var keyClass = func() (t [256]uint8) {
	for _, c := range []byte("\t\n\v\f\r ") {
		t[c] |= cSpace // bytes.Fields's ASCII spaces
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= cDigit | cHex
	}
	for _, c := range []byte("abcdefABCDEF") {
		t[c] |= cHex
	}
	t['/'] |= cSlash
	t['\\'] |= cSlash
	for c := 0x80; c < 0x100; c++ {
		t[c] |= cHigh
	}
	return t
}()

const (
	cSpace = 1 << iota
	cDigit
	cHex
	cSlash
	cHigh

	cHexShift = 2 // cHex is 1<<cHexShift
)

// appendKeyFields is appendKey for a line that is not all ASCII.
func appendKeyFields(out, line []byte) []byte {
	for _, w := range bytes.Fields(line) {
		if len(out) >= maxKey {
			break
		}
		out = appendKeyWord(out, w, bytes.ContainsAny(w, `/\`))
	}
	return out[:min(len(out), maxKey)]
}

// appendKeyWord appends the key of the word w, after a space unless out is
// empty; slash tells whether w holds a '/' or '\\'.
func appendKeyWord(out, w []byte, slash bool) []byte {
	if len(out) > 0 {
		out = append(out, ' ')
	}
	if slash && isPath(w) {
		return append(out, '/')
	}
	for i := 0; i < len(w); {
		n := hexRun(w[i:])
		if n >= 8 {
			out = appendHash(out)
			i += n
			continue
		}
		// A shorter run of hex digits: its digits are '#', its letters
		// stay (every suffix of it is shorter than 8 too).
		for _, c := range w[i : i+max(n, 1)] {
			if isDigit(c) {
				out = appendHash(out)
			} else {
				out = append(out, c)
			}
		}
		i += max(n, 1)
	}
	return out
}

// appendHash appends '#' unless out ends in one.
func appendHash(out []byte) []byte {
	if len(out) == 0 || out[len(out)-1] != '#' {
		out = append(out, '#')
	}
	return out
}

// hexRun returns the length of the run of hex digits that starts w.
func hexRun(w []byte) int {
	n := 0
	for n < len(w) && (isDigit(w[n]) || 'a' <= w[n] && w[n] <= 'f' || 'A' <= w[n] && w[n] <= 'F') {
		n++
	}
	return n
}

// isPath reports whether w names a file: it holds a '/' or '\' and starts
// with one, with '.' or '~', or ends in a file name with an extension. A
// go subtest name ("TestScale/case_0517") is not a path.
func isPath(w []byte) bool {
	i := len(w) - 1
	for i >= 0 && w[i] != '/' && w[i] != '\\' {
		i--
	}
	if i < 0 {
		return false
	}
	switch w[0] {
	case '/', '\\', '.', '~':
		return true
	}
	return bytes.IndexByte(w[i:], '.') > 0
}
