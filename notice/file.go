package notice

import "fmt"

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
