package lifecycle

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ServeStdio serves one client on the process's stdin and stdout and
// returns the exit code the process should end with.
func (d *Daemon) ServeStdio(ctx context.Context) int {
	growPipe(1)
	s := &stdio{in: Stdin(), out: pollable(1, os.Stdout)}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.watchHangup(ctx, 0)
	return d.ServeConn(ctx, s)
}

// hangupWriteTimeout bounds each reply's write once the client has closed
// its end of stdin: a client that still reads takes its replies within it,
// one that never reads is not waited for the minute of rpc's write timeout.
const hangupWriteTimeout = 2 * time.Second

// hangupPoll is how often watchHangup looks at stdin.
const hangupPoll = 100 * time.Millisecond

// watchHangup waits until the writer of fd (stdin) has closed it, as
// poll's POLLHUP says even while unread requests remain in the pipe, and
// then bounds every write by hangupWriteTimeout. A client that sent many
// requests and closed its input without reading the replies has the daemon
// paused at its in-flight cap, its reads stopped before the end of input:
// without this it would end only after rpc's write timeout.
func (s *stdio) watchHangup(ctx context.Context, fd int) {
	// POLLHUP for a pipe whose writers are gone, POLLRDHUP for a socket
	// whose peer shut down its writing (Linux only: elsewhere a socket's
	// half-close goes unseen here, and rpc's write timeout bounds it).
	fds := []unix.PollFd{{Fd: int32(fd), Events: pollRDHUP}}
	for ctx.Err() == nil {
		fds[0].Revents = 0
		n, err := unix.Poll(fds, int(hangupPoll/time.Millisecond))
		switch {
		case err == unix.EINTR:
			continue
		case err != nil || fds[0].Revents&unix.POLLNVAL != 0:
			return // not a descriptor poll can watch: rpc's bounds hold
		case n > 0 && fds[0].Revents&(unix.POLLHUP|pollRDHUP|unix.POLLERR) != 0:
			s.hangup()
			return
		}
	}
}

// growPipe raises the buffer of fd, when it is a pipe, to 1 MiB (or what
// /proc/sys/fs/pipe-max-size allows; Linux only), so that a window of a few hundred KB
// goes to the client in one write rather than in 64 KiB turns. Failure
// changes nothing but speed.
func growPipe(fd int) {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO {
		setPipeSize(fd, 1<<20)
	}
}

// pollable returns fd (stdin or stdout) as a file that Close and deadlines
// can interrupt: a pipe or socket is switched to non-blocking mode so that
// Go's poller owns it. Else, and for a terminal (whose mode is shared with
// the shell), it returns std. Stdin must be interruptible for the daemon to
// stop while a client is silent, stdout for it to end when a client whose
// input has ended never reads its replies.
func pollable(fd int, std *os.File) *os.File {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err == nil && (st.Mode&syscall.S_IFMT == syscall.S_IFIFO || st.Mode&syscall.S_IFMT == syscall.S_IFSOCK) {
		if syscall.SetNonblock(fd, true) == nil {
			return os.NewFile(uintptr(fd), std.Name())
		}
	}
	return std
}

// stdio joins stdin and stdout into one connection.
type stdio struct {
	in  io.ReadCloser // Stdin: Close ends a read in progress
	out *os.File

	mu   sync.Mutex
	want time.Time // the write deadline rpc asked for (zero: none)
	hup  bool      // the client closed stdin
}

// SetWriteDeadline sets stdout's write deadline, when it is pollable: t, or
// sooner once the client has closed stdin (see watchHangup).
func (s *stdio) SetWriteDeadline(t time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.want = t
	return s.out.SetWriteDeadline(s.deadline())
}

// hangup bounds the write in progress, and every later one, by
// hangupWriteTimeout.
func (s *stdio) hangup() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.hup = true
	s.out.SetWriteDeadline(s.deadline())
}

// deadline is the write deadline in force; s.mu is held.
func (s *stdio) deadline() time.Time {
	if !s.hup {
		return s.want
	}
	soon := time.Now().Add(hangupWriteTimeout)
	if s.want.IsZero() || s.want.After(soon) {
		return soon
	}
	return s.want
}

func (s *stdio) Read(p []byte) (int, error) { return s.in.Read(p) }

// Write writes p to stdout, within hangupWriteTimeout once the client has
// closed stdin, whatever deadline rpc set (or none).
func (s *stdio) Write(p []byte) (int, error) {
	s.mu.Lock()
	if s.hup {
		s.out.SetWriteDeadline(s.deadline())
	}
	s.mu.Unlock()
	return s.out.Write(p)
}
func (s *stdio) Close() error {
	err := s.in.Close()
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
