//go:build linux && !amd64 && !arm64

package proc

import "golang.org/x/sys/unix"

// calls are the system calls a blocked task's /proc/PID/syscall names
// that the input check reads, by kind. On the Linux targets toold is not
// released for, a poll's or select's fd set is not read (pointer sizes
// and byte orders vary): a command waiting that way is not found.
var calls = map[int]callKind{
	unix.SYS_READ: callRead, unix.SYS_READV: callRead,
	unix.SYS_EPOLL_PWAIT: callEpoll, unix.SYS_WAITID: callWait,
}
