package proc

import "golang.org/x/sys/unix"

// calls are the system calls a blocked task's /proc/PID/syscall names
// that the input check reads, by kind: amd64 keeps the old poll, select
// and epoll_wait beside the newer ones.
var calls = map[int]callKind{
	unix.SYS_READ: callRead, unix.SYS_READV: callRead, unix.SYS_PREAD64: callRead,
	unix.SYS_PREADV: callRead, unix.SYS_PREADV2: callRead,
	unix.SYS_POLL: callPoll, unix.SYS_PPOLL: callPoll,
	unix.SYS_SELECT: callSelect, unix.SYS_PSELECT6: callSelect,
	unix.SYS_EPOLL_WAIT: callEpoll, unix.SYS_EPOLL_PWAIT: callEpoll, unix.SYS_EPOLL_PWAIT2: callEpoll,
	unix.SYS_WAIT4: callWait, unix.SYS_WAITID: callWait,
}
