package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	osexec "os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Instance is a session's sandbox as the daemon holds it: the session's
// launcher, restricted to the policy and waiting on a socket for the
// commands to start, and, with user namespaces, the init of the session's
// PID namespace, which ends every process left in it when the session
// ends (Close) or the daemon dies.
type Instance struct {
	cmd    *osexec.Cmd
	conn   *net.UnixConn
	live   *os.File // held open while the session lives; init reads it
	initFD int      // init's pidfd, -1 without a PID namespace
	// InitPid is the PID namespace's init, 0 without one: the orphans of
	// the session's commands come to it, not to the daemon.
	InitPid int
	waited  func(int)

	mu     sync.Mutex // one request at a time
	broken error      // the launcher is gone: start another
}

// readyTimeout bounds the launcher's start: generous, since on a loaded
// machine making namespaces waits for the kernel's teardown of others.
// spawnTimeout bounds its answer to a command: one that does not come (a
// command of the session stopped its launcher, which it may signal where
// there is no PID namespace) makes the launcher taken for dead, and the
// session's next one starts.
const (
	readyTimeout = time.Minute
	spawnTimeout = 10 * time.Second
)

// Start starts a sandbox for p (Plan set, and confining): its launcher,
// which applies the policy to itself before it says it is ready.
func Start(p *Policy, o StartOptions) (*Instance, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	mine, theirs := os.NewFile(uintptr(pair[0]), "sandbox-control"), os.NewFile(uintptr(pair[1]), "sandbox-control")
	defer theirs.Close() // once started, the launcher's alone: its end tells us when it is gone
	c, err := net.FileConn(mine)
	mine.Close()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	in := &Instance{conn: c.(*net.UnixConn), initFD: -1, waited: o.Waited}
	liveR, liveW, err := os.Pipe()
	if err != nil {
		in.conn.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	defer liveR.Close()
	in.live = liveW
	in.cmd = &osexec.Cmd{Path: "/proc/self/exe", Args: []string{LauncherName, serveFlag}, Env: launcherEnv(), Dir: "/",
		Stderr: os.Stderr, ExtraFiles: []*os.File{theirs, liveR},
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}}
	if o.Cgroup != nil {
		// The launcher starts in the session's cgroup, and so does every
		// process it starts.
		in.cmd.SysProcAttr.UseCgroupFD, in.cmd.SysProcAttr.CgroupFD = true, int(o.Cgroup.Fd())
	}
	if p.Plan.UserNS {
		namespaces(in.cmd.SysProcAttr, !p.Network)
	}
	start := o.Start
	if start == nil {
		start = (*osexec.Cmd).Start
	}
	err = start(in.cmd)
	theirs.Close()
	liveR.Close()
	if err != nil {
		in.conn.Close()
		liveW.Close()
		return nil, fmt.Errorf("sandbox: starting the launcher: %w", err)
	}
	if err := in.handshake(p); err != nil {
		in.Close()
		return nil, err
	}
	return in, nil
}

// launcherEnv is the launcher's environment: none of the daemon's (nor
// the command's, which it gets at its exec), but what a -race or coverage
// build of toold reads as it starts.
func launcherEnv() []string {
	var env []string
	for _, k := range []string{"GORACE", "GOCOVERDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// handshake sends p and waits for the launcher to be ready.
func (in *Instance) handshake(p *Policy) error {
	in.conn.SetDeadline(time.Now().Add(readyTimeout))
	defer in.conn.SetDeadline(time.Time{})
	if err := sendMsg(in.conn, p, nil); err != nil {
		return fmt.Errorf("sandbox: the launcher: %w", err)
	}
	var ready readyMsg
	fds, err := recvMsg(in.conn, &ready)
	if err != nil {
		return fmt.Errorf("sandbox: the launcher ended before it was ready: %w", err)
	}
	if ready.Err != "" {
		closeAll(fds)
		return fmt.Errorf("sandbox: %s", ready.Err)
	}
	if p.Plan.UserNS {
		if len(fds) != 1 {
			closeAll(fds)
			return errors.New("sandbox: the launcher sent no init")
		}
		in.initFD = fds[0]
		if in.InitPid, err = pidfdPid(in.initFD); err != nil {
			return fmt.Errorf("sandbox: the PID namespace's init: %w", err)
		}
	} else {
		closeAll(fds)
	}
	return nil
}

// Spawn starts req in the sandbox with stdio as its stdin, stdout and
// stderr. The command is the daemon's child: its pid is returned, for the
// daemon to wait on (hold off reaping it until then: it is checked to be
// this process's child, so a pid is never taken for another's). An error
// wrapping ErrBroken means the launcher is gone: start another Instance.
func (in *Instance) Spawn(req Request, stdio [3]*os.File) (int, error) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.broken != nil {
		return 0, in.broken
	}
	fds := []int{int(stdio[0].Fd()), int(stdio[1].Fd()), int(stdio[2].Fd())}
	in.conn.SetDeadline(time.Now().Add(spawnTimeout))
	defer in.conn.SetDeadline(time.Time{})
	err := sendMsg(in.conn, req, fds)
	runtime.KeepAlive(stdio) // their fds were taken above
	var rep reply
	var got []int
	if err == nil {
		got, err = recvMsg(in.conn, &rep)
		closeAll(got) // none is sent
	}
	if err != nil {
		in.broken = fmt.Errorf("%w: %w", ErrBroken, err)
		return 0, in.broken
	}
	if rep.Err != "" {
		if rep.Errno != 0 {
			return 0, &os.PathError{Op: "fork/exec", Path: req.Path, Err: syscall.Errno(rep.Errno)}
		}
		return 0, fmt.Errorf("sandbox: %s", rep.Err)
	}
	pid := rep.Pid
	if ppid, err := parentOf(pid); err != nil || ppid != os.Getpid() {
		// Only a child of ours is waited on, its group signalled.
		return 0, fmt.Errorf("sandbox: pid %d is not the daemon's child", pid)
	}
	return pid, nil
}

// Close ends the launcher and, with the PID namespace's init, every
// process left in the namespace; it waits for both, up to a few seconds.
func (in *Instance) Close() {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.conn.Close()
	if in.live != nil {
		in.live.Close()
		in.live = nil
	}
	if in.initFD >= 0 {
		if !waitPidfd(in.initFD, 2*time.Second) {
			unix.PidfdSendSignal(in.initFD, unix.SIGKILL, nil, 0)
			waitPidfd(in.initFD, 2*time.Second)
		}
		unix.Close(in.initFD)
		in.initFD = -1
	}
	if in.cmd.Process != nil && in.cmd.ProcessState == nil {
		done := make(chan struct{})
		go func() {
			in.cmd.Wait()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			in.cmd.Process.Kill()
			<-done
		}
		if in.waited != nil {
			in.waited(in.cmd.Process.Pid)
		}
	}
	if in.broken == nil {
		in.broken = fmt.Errorf("%w: closed", ErrBroken)
	}
}

// waitPidfd waits up to d for the process of pidfd to exit.
func waitPidfd(fd int, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if err == unix.EINTR {
			continue
		}
		return err == nil && n > 0
	}
}

// pidfdPid is the pid, in this process's namespace, of the process pidfd
// refers to.
func pidfdPid(fd int) (int, error) {
	f, err := os.Open("/proc/self/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Pid:"); ok {
			pid, err := strconv.Atoi(strings.TrimSpace(v))
			if err == nil && pid > 0 {
				return pid, nil
			}
			return 0, fmt.Errorf("pidfd %d: pid %q", fd, strings.TrimSpace(v))
		}
	}
	return 0, fmt.Errorf("pidfd %d: no pid", fd)
}

// parentOf is pid's parent.
func parentOf(pid int) (int, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0, errors.New("bad stat")
	}
	fields := strings.Fields(string(b[i+1:]))
	if len(fields) < 2 {
		return 0, errors.New("bad stat")
	}
	return strconv.Atoi(fields[1])
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// namespaces starts the process in new user and mount namespaces, and a
// new network namespace when netOff, with our ids mapped to themselves.
// The launcher keeps CAP_SYS_ADMIN and CAP_NET_ADMIN of those namespaces
// across its exec (our uid is not root there) to mount, make the PID
// namespace and bring loopback up; it drops them before any command.
func namespaces(a *syscall.SysProcAttr, netOff bool) {
	a.Cloneflags |= unix.CLONE_NEWUSER | unix.CLONE_NEWNS
	if netOff {
		a.Cloneflags |= unix.CLONE_NEWNET
	}
	a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN}
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
}
