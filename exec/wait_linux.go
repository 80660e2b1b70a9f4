package exec

import (
	"os"

	"golang.org/x/sys/unix"
)

// waitExit returns once process pid has exited (not reaped), waiting in
// the runtime's poller on a pidfd: no thread is held in waitid meanwhile,
// so the exit and the end of the output wake one thread, and the
// runtime's monitor (sysmon), which polls every 20 µs while a thread is in
// a system call, sleeps while the daemon waits. Where pidfds are missing
// it returns at once, and os/exec's Wait blocks as before.
func waitExit(pid int) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if err != nil {
		return
	}
	f := os.NewFile(uintptr(fd), "pidfd")
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	rc.Read(func(fd uintptr) bool {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(pfd, 0)
		// Readable once it has exited; an error (none expected) ends the
		// wait here, and Wait's own ends it.
		return err != nil && err != unix.EINTR || n > 0
	})
}
