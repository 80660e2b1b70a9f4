package lifecycle

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// TestPollReaderClose: a read of a terminal with nothing typed ends when
// the reader is closed (it blocked in read(2) for good), a line typed
// before is read as typed, a hangup is the end of input, and the
// terminal's file status flags are left as they were (O_NONBLOCK is
// shared with the shell).
func TestPollReaderClose(t *testing.T) {
	for _, tc := range []struct {
		name  string
		act   func(r *pollReader, ptmx *os.File)
		want  string
		isErr func(error) bool
	}{
		{"closed while waiting", func(r *pollReader, _ *os.File) { r.Close() }, "", func(err error) bool { return errors.Is(err, os.ErrClosed) }},
		{"a line typed", func(_ *pollReader, ptmx *os.File) { ptmx.Write([]byte("hello\n")) }, "hello\n", func(err error) bool { return err == nil }},
		{"hung up", func(_ *pollReader, ptmx *os.File) { ptmx.Close() }, "", func(err error) bool { return err != nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skip("no pseudo-terminal:", err)
			}
			defer ptmx.Close()
			defer tty.Close()
			flags := fcntlFlags(t, tty)
			r, err := newPollReader(int(tty.Fd()), tty)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			type result struct {
				s   string
				err error
			}
			done := make(chan result, 1)
			go func() {
				b := make([]byte, 64)
				n, err := r.Read(b)
				done <- result{string(b[:n]), err}
			}()
			time.Sleep(50 * time.Millisecond) // in poll by now, most likely: either way it must end
			tc.act(r, ptmx)
			select {
			case got := <-done:
				if got.s != tc.want || !tc.isErr(got.err) {
					t.Errorf("Read: %q, %v; want %q", got.s, got.err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Read did not return within 5 s")
			}
			if f := fcntlFlags(t, tty); f != flags && tc.name != "hung up" {
				t.Errorf("the terminal's flags changed: %#x, were %#x", f, flags)
			}
			if tc.name != "closed while waiting" {
				return
			}
			if _, err := r.Read(make([]byte, 1)); !errors.Is(err, os.ErrClosed) {
				t.Errorf("a Read after Close: %v", err)
			}
		})
	}
}

// fcntlFlags returns f's file status flags (F_GETFL).
func fcntlFlags(t *testing.T, f *os.File) int {
	t.Helper()
	fl, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fl
}
