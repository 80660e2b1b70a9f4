package proc

import "golang.org/x/sys/unix"

// calls are the system calls a blocked task's /proc/PID/syscall names
// that the input check reads, by kind (arm64 has only the p-variants of
// poll, select and epoll_wait).
var calls = map[int]callKind{
	unix.SYS_READ: callRead, unix.SYS_READV: callRead, unix.SYS_PREAD64: callRead,
	unix.SYS_PREADV: callRead, unix.SYS_PREADV2: callRead,
	unix.SYS_PPOLL: callPoll, unix.SYS_PSELECT6: callSelect,
	unix.SYS_EPOLL_PWAIT: callEpoll, unix.SYS_EPOLL_PWAIT2: callEpoll,
	unix.SYS_WAIT4: callWait, unix.SYS_WAITID: callWait,
}
