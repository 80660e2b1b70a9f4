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

// exitedChild reports whether a child of this process has exited and
// waits to be reaped (or whether that is unknown): one system call, where
// the listing of the children reads a file of /proc for each thread.
func exitedChild() bool {
	var info unix.Siginfo // zeroed: a child found sets its signal
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	if err == unix.ECHILD {
		return false // no child at all
	}
	return err != nil || info.Signo != 0
}
