package lifecycle

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// ServeStdio serves one client on the process's stdin and stdout and
// returns the exit code the process should end with.
func (d *Daemon) ServeStdio(ctx context.Context) int {
	growPipe(1)
	return d.ServeConn(ctx, stdio{in: pollableStdin(), out: os.Stdout})
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

// pollableStdin returns stdin as a file that Close can interrupt: a pipe or
// socket is switched to non-blocking mode so that Go's poller owns it. A
// terminal is left alone, since its mode is shared with the shell.
func pollableStdin() *os.File {
	var st syscall.Stat_t
	if err := syscall.Fstat(0, &st); err == nil && (st.Mode&syscall.S_IFMT == syscall.S_IFIFO || st.Mode&syscall.S_IFMT == syscall.S_IFSOCK) {
		if syscall.SetNonblock(0, true) == nil {
			return os.NewFile(0, "/dev/stdin")
		}
	}
	return os.Stdin
}

// stdio joins stdin and stdout into one connection.
type stdio struct {
	in  *os.File
	out io.Writer
}

func (s stdio) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s stdio) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s stdio) Close() error {
	err := s.in.Close()
	if errors.Is(err, os.ErrClosed) {
		return nil
	}
	return err
}
