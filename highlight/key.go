package highlight

import "bytes"

// maxKey bounds a key's length.
const maxKey = 160

// Key normalizes a hit's line so that lines that differ only in numbers,
// hexadecimal, paths or timestamps get the same key: a run of digits becomes
// '#', a run of 8 or more hex digits '#', a word with a '/' or '\' '/'.
func Key(line []byte) string {
	out := make([]byte, 0, min(len(line), maxKey))
	for _, w := range bytes.Fields(line) {
		if len(out) >= maxKey {
			break
		}
		if len(out) > 0 {
			out = append(out, ' ')
		}
		switch {
		case isPath(w):
			out = append(out, '/')
		default:
			for i := 0; i < len(w); {
				n := hexRun(w[i:])
				if n < 8 && isDigit(w[i]) {
					n = 1
				}
				if n >= 8 || n == 1 && isDigit(w[i]) {
					if len(out) == 0 || out[len(out)-1] != '#' {
						out = append(out, '#')
					}
					i += n
					continue
				}
				out = append(out, w[i])
				i++
			}
		}
	}
	return string(out[:min(len(out), maxKey)])
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
	i := bytes.LastIndexAny(w, `/\`)
	if i < 0 {
		return false
	}
	switch w[0] {
	case '/', '\\', '.', '~':
		return true
	}
	return bytes.IndexByte(w[i:], '.') > 0
}
