package exec

import (
	"cmp"
	"errors"
	"fmt"
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/proc"
)

// A command with Spec.TTY runs on a pseudo-terminal of its own: the
// terminal is its controlling terminal (a new session, as a login shell's
// is) and its stdin, stdout and stderr, so that what it prints to either
// comes as stdout, and a prompt that opens /dev/tty finds a terminal.
// The daemon holds the master: it reads the output from it, writes input
// to it (Observer.Started's stdin is a copy of it) and sets its size.
//
// The terminal's output processing turns each "\n" into "\r\n" (ONLCR);
// it is turned off, so that the output's lines end as a program wrote
// them and the preview's one clean-up (escape sequences, a line redrawn
// with \r) serves the terminal's output as it serves a pipe's.

// Terminal is the size of a command's pseudo-terminal.
type Terminal struct {
	Cols, Rows int
}

// MaxTerminals bounds the terminals open at once in one Runner (the
// daemon): a pty is a system-wide resource (/proc/sys/kernel/pty/max, 4096
// by default) that the user's own terminals need too. A Run past it fails
// with ErrStart.
const MaxTerminals = 256

// ErrTerminals is wrapped by Run's error when MaxTerminals are open.
var ErrTerminals = errors.New("too many terminals open in this daemon")

// ttyDevice is what the command's terminal is to the input check.
type ttyDevice struct {
	master *os.File // nil without a terminal
	rdev   uint64   // the slave's device number
}

// newTerminal opens a pseudo-terminal of t's size: its master is the
// output's read end (and, when spec asks for input, a copy of it the write
// end), its slave the command's stdin, stdout and stderr.
func newTerminal(spec Spec) (*pipes, ttyDevice, error) {
	m, slave, err := pty.Open()
	if err != nil {
		return nil, ttyDevice{}, fmt.Errorf("opening a terminal: %w", err)
	}
	// pty.Open asked the master's number with Fd(), which put it in
	// blocking mode: a Read could then not be interrupted by Close. A
	// non-blocking copy is a file of the runtime's poller.
	master, err := pollable(m)
	m.Close()
	if err != nil {
		slave.Close()
		return nil, ttyDevice{}, fmt.Errorf("opening a terminal: %w", err)
	}
	pp := &pipes{outR: master, outW: slave}
	fail := func(err error) (*pipes, ttyDevice, error) {
		pp.closeAll()
		return nil, ttyDevice{}, fmt.Errorf("setting up the terminal: %w", err)
	}
	if err := setSize(master, spec.TTY.Cols, spec.TTY.Rows); err != nil {
		return fail(err)
	}
	if err := control(slave, func(fd int) error {
		t, err := unix.IoctlGetTermios(fd, getTermios)
		if err != nil {
			return err
		}
		t.Oflag &^= unix.ONLCR
		return unix.IoctlSetTermios(fd, setTermios, t)
	}); err != nil {
		return fail(err)
	}
	var st unix.Stat_t
	if err := control(slave, func(fd int) error { return unix.Fstat(fd, &st) }); err != nil {
		return fail(err)
	}
	if spec.Stdin != nil || spec.KeepStdin {
		if pp.inW, err = pollable(master); err != nil {
			return fail(err)
		}
	}
	return pp, ttyDevice{master: master, rdev: uint64(st.Rdev)}, nil
}

// pollable returns a non-blocking copy of f (close-on-exec), which the
// runtime's poller serves: deadlines apply and Close interrupts a Read.
func pollable(f *os.File) (*os.File, error) {
	var nfd int
	err := control(f, func(fd int) error {
		var err error
		if nfd, err = unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0); err != nil {
			return err
		}
		return unix.SetNonblock(nfd, true)
	})
	if err != nil {
		if nfd > 0 {
			unix.Close(nfd)
		}
		return nil, err
	}
	return os.NewFile(uintptr(nfd), f.Name()), nil
}

// control runs fn on f's descriptor without Fd(), which would make a
// pollable file blocking.
func control(f *os.File, fn func(fd int) error) error {
	sc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := sc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// setSize sets the terminal's size; the kernel sends SIGWINCH to its
// foreground process group when it changes.
func setSize(master *os.File, cols, rows int) error {
	ws := &unix.Winsize{Col: uint16(cols), Row: uint16(rows)}
	return control(master, func(fd int) error { return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws) })
}

// Input is what a running command reads from: its terminal, or the pipe
// on its stdin (Spec.KeepStdin). An InputObserver gets it.
type Input struct {
	pgid   int
	master *os.File // the terminal's master; nil without one
	probe  proc.Input
	// pending reports output the command wrote that its capture has not
	// taken yet (nil: none known): a command is not waiting at a prompt
	// that has not reached us, since the prompt is what the reply shows
	// and a pattern wait must see it first.
	pending func() bool
}

// InputObserver is an Observer that also wants the command's Input: it is
// told before Started.
type InputObserver interface {
	Input(in *Input)
}

// newInput is p's Input: its terminal, or the stdin pipe whose write end
// is inW (nil without one).
func newInput(pgid int, tty ttyDevice, inW *os.File) *Input {
	in := &Input{pgid: pgid, master: tty.master}
	if tty.master != nil {
		in.probe.TTY = tty.rdev
		in.probe.PasswordMode = in.passwordMode
		return in
	}
	if inW != nil {
		var st unix.Stat_t
		if control(inW, func(fd int) error { return unix.Fstat(fd, &st) }) == nil {
			// Both ends of a pipe are one inode.
			in.probe.PipeDev, in.probe.PipeIno = uint64(st.Dev), uint64(st.Ino)
		}
	}
	return in
}

// Terminal reports whether the command runs on a terminal.
func (in *Input) Terminal() bool { return in.master != nil }

// Waiting reports whether the command's process group waits for input
// now (proc.WaitingForInput): false once it has ended, and where the
// system cannot say.
func (in *Input) Waiting() bool {
	if in.pending != nil && in.pending() {
		return false
	}
	return proc.WaitingForInput(in.pgid, in.probe)
}

// Resize sets the terminal's size (0 keeps a dimension as it is); an
// error without a terminal, or once the command has ended.
func (in *Input) Resize(cols, rows int) error {
	if in.master == nil {
		return errors.New("the command has no terminal")
	}
	if cols == 0 || rows == 0 {
		var ws *unix.Winsize
		if err := control(in.master, func(fd int) error {
			var err error
			ws, err = unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
			return err
		}); err != nil {
			return err
		}
		cols, rows = cmp.Or(cols, int(ws.Col)), cmp.Or(rows, int(ws.Row))
	}
	return setSize(in.master, cols, rows)
}

// Echo reports whether the terminal echoes what is typed (false while a
// password prompt reads); true without a terminal or once it has ended:
// nothing is known to be kept from the output then.
func (in *Input) Echo() bool {
	t, ok := in.termios()
	return !ok || t.Lflag&unix.ECHO != 0
}

// passwordMode reports whether the terminal reads a line without echo.
func (in *Input) passwordMode() bool {
	t, ok := in.termios()
	return ok && t.Lflag&unix.ICANON != 0 && t.Lflag&unix.ECHO == 0
}

// termios reads the terminal's settings (through the master: Linux
// answers with the slave's).
func (in *Input) termios() (*unix.Termios, bool) {
	if in.master == nil {
		return nil, false
	}
	var t *unix.Termios
	err := control(in.master, func(fd int) error {
		var err error
		t, err = unix.IoctlGetTermios(fd, getTermios)
		return err
	})
	return t, err == nil
}

// newStdio opens the command's stdio: a terminal when spec asks for one
// (its slave then stands for stdin, stdout and stderr), else pipes.
func newStdio(spec Spec) (*pipes, ttyDevice, error) {
	if spec.TTY != nil {
		return newTerminal(spec)
	}
	pp, err := newPipes(spec)
	return pp, ttyDevice{}, err
}
