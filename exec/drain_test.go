package exec

import (
	"os"
	"testing"
)

// TestUnreadBytes: drain tells a reader that is behind (bytes left in the
// pipe) from a silent holder of the pipe (none) by unreadBytes.
func TestUnreadBytes(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if unreadBytes(r) {
		t.Fatal("an empty pipe holds bytes")
	}
	w.Write([]byte("x\n"))
	if !unreadBytes(r) {
		t.Fatal("a pipe written to holds no bytes")
	}
	r.Read(make([]byte, 8))
	if unreadBytes(r) {
		t.Fatal("a pipe read to its end holds bytes")
	}
}
