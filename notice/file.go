package notice

import (
	"fmt"
	"strings"
)

// PastEndBytes is readBytes' notice for a startByte at or past the end of a
// file of totalBytes bytes (more than 0).
func PastEndBytes(startByte, totalBytes int64) string {
	return fmt.Sprintf("[startByte %d is past the end: the file has %d bytes. Use startByte=0 to %d]",
		startByte, totalBytes, totalBytes-1)
}

// ImageTooLarge is the notice of an image file of size bytes, bigger than
// the max returned.
func ImageTooLarge(mime string, size, max int64) string {
	return fmt.Sprintf("[Image file (%s, %s): too large to show; images up to %s are returned]", mime, Size(size), Size(max))
}

// ImageReturned is the notice of an image file returned in the window.
func ImageReturned(mime string, size int64) string {
	return fmt.Sprintf("[Image file (%s, %s): returned in image]", mime, Size(size))
}

// Binary is the notice of a file that is not text.
func Binary(mime string, size int64) string {
	return fmt.Sprintf("[Binary file (%s, %s): not shown. Inspect it with exec, e.g. file, xxd or strings]", mime, Size(size))
}

// ReadToCap is the notice of a window that reaches the end of what was read
// of a file without a size (procfs, sysfs), which went on past max bytes.
func ReadToCap(max int64) string {
	return fmt.Sprintf("[The file has no size on disk and was read up to %s: what follows is not shown]", Size(max))
}

// Join makes one notice of two, either of which may be "".
func Join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a[:len(a)-1] + ". " + b[1:]
}

// ByteModeIgnores is the notice of a page with startByte (byte mode, whose
// params are readBytes') that was also given params of line mode.
func ByteModeIgnores(names []string) string {
	return fmt.Sprintf("[Ignored in byte mode (startByte given): %s; page without startByte for lines, an outline or ifChanged]", strings.Join(names, ", "))
}
