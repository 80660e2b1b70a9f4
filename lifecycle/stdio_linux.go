package lifecycle

import "golang.org/x/sys/unix"

// pollRDHUP is poll's event for a socket whose peer shut down its writing.
const pollRDHUP = unix.POLLRDHUP

// setPipeSize asks for a pipe buffer of n bytes (F_SETPIPE_SZ).
func setPipeSize(fd, n int) { unix.FcntlInt(uintptr(fd), unix.F_SETPIPE_SZ, n) }
