package exec

import "golang.org/x/sys/unix"

// fionread is the ioctl that counts the bytes a pipe holds: Linux calls it
// TIOCINQ.
const fionread = unix.TIOCINQ

// setPipeSize asks for a pipe buffer of n bytes (F_SETPIPE_SZ).
func setPipeSize(fd uintptr, n int) { unix.FcntlInt(fd, unix.F_SETPIPE_SZ, n) }
