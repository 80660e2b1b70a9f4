package lifecycle

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Stdin returns the process's stdin as a reader whose Close ends a Read
// in progress, as a stop needs (a signal, the daemon's exit): rpc's server
// and the forwarder wait for their reader, and a read(0) that never
// returns kept `toold` and `toold --remote=auto` in a terminal from
// ending at Ctrl-C or SIGTERM until Enter or Ctrl-D was pressed.
//
// A pipe or socket is handed to Go's poller (pollable). Anything else, a
// terminal above all, is read by a pollReader: its mode is not touched,
// since a terminal's O_NONBLOCK is shared with the shell that started us.
func Stdin() io.ReadCloser {
	if f := pollable(0, os.Stdin); f != os.Stdin {
		return f
	}
	r, err := newPollReader(0, os.Stdin)
	if err != nil {
		return os.Stdin // no pipe to wake it: a read blocks, as before
	}
	return r
}

// pollReader reads a descriptor that Go's poller does not own: each Read
// waits in poll(2) for input or for Close, which closes the write end of a
// pipe the poll watches too.
type pollReader struct {
	fd     int
	std    *os.File // fd's file, kept so that it is not closed by a finalizer
	wake   *os.File // the pipe's read end: readable (at EOF) once closed
	stop   *os.File // the pipe's write end, closed by Close
	closed atomic.Bool
	once   sync.Once
}

func newPollReader(fd int, std *os.File) (*pollReader, error) {
	wake, stop, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	return &pollReader{fd: fd, std: std, wake: wake, stop: stop}, nil
}

// errStdinClosed is Read's error once Close was called.
var errStdinClosed = &fs.PathError{Op: "read", Path: "/dev/stdin", Err: os.ErrClosed}

// Read reads from the descriptor once poll says it will not block (input,
// a hangup, an error: the read tells which), or returns errStdinClosed
// once Close was called. Where poll cannot watch the descriptor (a device
// macOS's poll refuses) it reads as a blocking read would.
func (r *pollReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	fds := []unix.PollFd{{Fd: int32(r.fd), Events: unix.POLLIN}, {Fd: int32(r.wake.Fd()), Events: unix.POLLIN}}
	for {
		if r.closed.Load() {
			return 0, errStdinClosed
		}
		fds[0].Revents, fds[1].Revents = 0, 0
		_, err := unix.Poll(fds, -1)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil || fds[0].Revents&unix.POLLNVAL != 0:
			return r.std.Read(p)
		case fds[1].Revents != 0 || fds[0].Revents == 0:
			continue // Close was called (the loop says so), or nothing yet
		}
		n, err := unix.Read(r.fd, p)
		switch {
		case errors.Is(err, unix.EINTR) || errors.Is(err, unix.EAGAIN):
			continue // another reader took the input first
		case err != nil:
			return 0, &fs.PathError{Op: "read", Path: r.std.Name(), Err: err}
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Close ends a Read in progress and every later one. The descriptor itself
// stays open: closing fd 0 under a poll would let the next open reuse it.
func (r *pollReader) Close() error {
	r.once.Do(func() {
		r.closed.Store(true)
		r.stop.Close()
	})
	return nil
}
