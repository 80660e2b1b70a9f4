package exec

import (
	"os"

	"golang.org/x/sys/unix"
)

const (
	// pipeSize is asked of the kernel (F_SETPIPE_SZ) for an output pipe
	// that a read finds full at its default size, smallPipe.
	pipeSize  = 1 << 20
	smallPipe = 64 << 10
)

// pipes are a command's stdio. The child's ends are plain files handed to
// os/exec, so that it starts no copying goroutines; ours stay non-blocking,
// so that Close interrupts a Read or Write in progress.
type pipes struct {
	outR, outW *os.File
	errR, errW *os.File // nil with MergeStderr
	inR, inW   *os.File // nil without Stdin
}

func newPipes(spec Spec) (*pipes, error) {
	p := &pipes{}
	var err error
	if p.outR, p.outW, err = os.Pipe(); err != nil {
		return nil, err
	}
	if !spec.MergeStderr {
		if p.errR, p.errW, err = os.Pipe(); err != nil {
			p.closeAll()
			return nil, err
		}
	}
	if spec.Stdin != nil || spec.KeepStdin {
		if p.inR, p.inW, err = os.Pipe(); err != nil {
			p.closeAll()
			return nil, err
		}
	}
	return p, nil
}

// growPipe asks for a larger pipe buffer: fewer wake-ups for a command that
// prints a lot. The kernel may refuse (pipe-max-size, per-user limits);
// only Linux is asked (setPipeSize).
func growPipe(f *os.File) {
	if sc, err := f.SyscallConn(); err == nil {
		sc.Control(func(fd uintptr) { setPipeSize(fd, pipeSize) })
	}
}

// unread reports whether a read end of the output holds bytes not read yet.
func (p *pipes) unread() bool {
	return unreadBytes(p.outR) || p.errR != nil && unreadBytes(p.errR)
}

// unreadBytes reports whether pipe f holds bytes (FIONREAD), false when
// that cannot be asked.
func unreadBytes(f *os.File) bool {
	sc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	n := 0
	sc.Control(func(fd uintptr) { n, _ = unix.IoctlGetInt(int(fd), fionread) })
	return n > 0
}

// closeChildEnds closes, after Start, the ends the child inherited.
func (p *pipes) closeChildEnds() {
	p.outW.Close()
	p.errW.Close()
	p.inR.Close()
}

func (p *pipes) closeReadEnds() {
	p.outR.Close()
	p.errR.Close()
}

func (p *pipes) closeAll() {
	p.closeChildEnds()
	p.closeReadEnds()
	p.inW.Close()
}
