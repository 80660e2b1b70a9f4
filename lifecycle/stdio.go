package lifecycle

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ServeStdio serves one client on the process's stdin and stdout and
// returns the exit code the process should end with.
func (d *Daemon) ServeStdio(ctx context.Context) int {
	growPipe(1)
	return d.ServeConn(ctx, stdio{in: pollable(0, os.Stdin), out: pollable(1, os.Stdout)})
}

// growPipe raises the buffer of fd, when it is a pipe, to 1 MiB (or what
// /proc/sys/fs/pipe-max-size allows), so that a window of a few hundred KB
// goes to the client in one write rather than in 64 KiB turns. Failure
// changes nothing but speed.
func growPipe(fd int) {
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO {
		unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, 1<<20)
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
	in  *os.File
	out *os.File
}

// SetWriteDeadline sets stdout's write deadline, when it is pollable.
func (s stdio) SetWriteDeadline(t time.Time) error { return s.out.SetWriteDeadline(t) }

func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stdio) Close() error {
	err := s.in.Close()
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
