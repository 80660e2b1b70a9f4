package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	serveFlag = "-serve" // a session's launcher: restricts itself, then starts its commands
	initFlag  = "-init"  // the init of a session's PID namespace
	probeFlag = "-probe" // tries the namespaces and says whether they work
	guardFlag = "-guard" // ends a daemon's session cgroups when it dies
)

// The descriptors a launcher is started with, beside stdio.
const (
	fdControl = 3 // the daemon's end of the control socket (serve)
	fdLive    = 4 // read end of a pipe the daemon holds open while the session lives
	fdProceed = 5 // init's: EOF once it may mount the namespace's /proc
)

// init makes this process a launcher when it was started as one (argv[0]
// is LauncherName) and never returns then. In an init, not in main: it runs
// before the packages that sort after this one are initialized, and every
// binary that can start a sandbox (it imports this package) can be its
// launcher.
func init() {
	if len(os.Args) < 2 || os.Args[0] != LauncherName {
		return
	}
	// Capabilities, Landlock and seccomp are per thread: this one does
	// the restricting and the forking.
	runtime.LockOSThread()
	var code int
	switch os.Args[1] {
	case serveFlag:
		code = serve()
	case initFlag:
		code = initMain()
	case probeFlag:
		code = probeMain()
	case guardFlag:
		if len(os.Args) == 3 {
			code = guardMain(os.Args[2])
		}
	default:
		fmt.Fprintf(os.Stderr, "toold: sandbox: unknown launcher mode %q\n", os.Args[1])
		code = 2
	}
	os.Exit(code)
}

// serve is a session's launcher: it takes its config on the control
// socket, restricts itself (and makes the PID namespace's init, in a user
// namespace), says it is ready, then starts each command the daemon sends
// as the daemon's child (CLONE_PARENT), in its own session and group, and
// answers with its pidfd. It ends when the daemon closes the socket.
func serve() int {
	// Nothing the daemon held (an fd it inherited, `toold 9>>file`)
	// reaches a command: every descriptor from 3 up closes at exec.
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err != nil {
		fmt.Fprintf(os.Stderr, "toold: sandbox: close_range: %v\n", err)
		return 126
	}
	unix.Chdir("/") // no handle on the daemon's cwd
	// A signal the daemon was started ignoring (nohup's SIGHUP, a
	// shell's SIGINT) stays ignored across exec unless it is handled
	// here: handled signals are reset to their defaults in a child.
	var ignored []os.Signal
	for _, s := range ignorable() {
		if signal.Ignored(s) {
			ignored = append(ignored, s)
		}
	}
	if len(ignored) > 0 {
		signal.Notify(make(chan os.Signal, 1), ignored...)
	}
	// Nor the daemon's session keyring (its keys: kerberos, ecryptfs):
	// a new, empty one, which the commands forked on this thread inherit.
	if _, _, e := unix.Syscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0); e != 0 && e != unix.ENOSYS {
		fmt.Fprintf(os.Stderr, "toold: sandbox: a session keyring of its own: %v\n", e)
		return 126
	}
	conn, err := controlConn()
	if err != nil {
		fmt.Fprintf(os.Stderr, "toold: sandbox: %v\n", err)
		return 126
	}
	defer conn.Close()
	var cfg Policy
	if _, err := recvMsg(conn, &cfg); err != nil {
		return 0 // the daemon gave up
	}
	l := &launcher{pol: &cfg}
	initFD, err := l.setup()
	var ready readyMsg
	var fds []int
	if err != nil {
		ready.Err = err.Error()
	} else if initFD >= 0 {
		fds = []int{initFD}
	}
	if err := sendMsg(conn, ready, fds); err != nil || ready.Err != "" {
		return 126
	}
	if initFD >= 0 {
		unix.Close(initFD)
	}
	for {
		var req Request
		fds, err := recvMsg(conn, &req)
		if err != nil {
			return 0
		}
		rep := l.spawn(&req, fds)
		for _, fd := range fds {
			unix.Close(fd)
		}
		if err := sendMsg(conn, rep, nil); err != nil {
			return 0
		}
	}
}

// controlConn is the control socket, fd 3.
func controlConn() (*net.UnixConn, error) {
	f := os.NewFile(fdControl, "control")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("control socket: %w", err)
	}
	uc, ok := c.(*net.UnixConn)
	if !ok {
		c.Close()
		return nil, errors.New("control socket: not a unix socket")
	}
	return uc, nil
}

// readyMsg is the launcher's first answer; its descriptor, with a PID
// namespace, is the pidfd of the namespace's init.
type readyMsg struct {
	Err string `json:"err,omitempty"`
}

// reply is the launcher's answer to a Request: an error, or the command's
// pid. The launcher is in the daemon's PID namespace (only its children
// are in the session's), so the pid is the daemon's too.
type reply struct {
	Pid   int    `json:"pid,omitempty"`
	Err   string `json:"err,omitempty"`
	Errno int    `json:"errno,omitempty"`
}

// launcher is a session's launcher's state.
type launcher struct {
	pol *Policy
}

// spawn starts req with fds as its stdio, as the daemon's child in a
// session and group of its own (no controlling terminal but its stdin,
// a terminal, when req.Ctty), in the
// launcher's cgroup: its session's, when it has one. (Not by
// CLONE_INTO_CGROUP: clone3 refuses it with CLONE_PARENT, whose exit
// signal must be the parent's.)
func (l *launcher) spawn(req *Request, fds []int) reply {
	if len(fds) != 3 || len(req.Argv) == 0 {
		return reply{Err: "bad request"}
	}
	sys := &syscall.SysProcAttr{Setsid: true, Setctty: req.Ctty, Cloneflags: unix.CLONE_PARENT}
	attr := &syscall.ProcAttr{Dir: req.Dir, Env: req.Env, Files: []uintptr{uintptr(fds[0]), uintptr(fds[1]), uintptr(fds[2])}, Sys: sys}
	pid, err := syscall.ForkExec(req.Path, req.Argv, attr)
	if err != nil {
		var errno syscall.Errno
		errors.As(err, &errno)
		return reply{Err: err.Error(), Errno: int(errno)}
	}
	return reply{Pid: pid}
}

// initMain is the init of a session's PID namespace: when it exits, the
// kernel kills every process left in the namespace, so it lives as long as
// the session does (the daemon holds the pipe on fdLive open) and no
// longer (the daemon closed it, or died). It mounts the namespace's own
// /proc, reaps the orphans that come to it, and ignores every signal: no
// command can end it.
func initMain() int {
	signal.Ignore(ignorable()...) // SIGCHLD ignored: orphans are reaped by the kernel
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	var b [1]byte
	for { // the launcher is done with its /proc
		if _, err := unix.Read(fdProceed, b[:]); err != unix.EINTR {
			break
		}
	}
	unix.Close(fdProceed)
	// Its own /proc: a command sees its session's processes only. Best
	// effort: a /proc that cannot be mounted here (partly hidden, as in
	// some containers) leaves the host's, where pids name nothing the
	// command can signal.
	unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for {
		n, err := unix.Read(fdLive, b[:])
		if n == 0 || (err != nil && err != unix.EINTR) {
			return 0
		}
	}
}

// ignorable are the signals a process may ignore.
func ignorable() []os.Signal {
	var sigs []os.Signal
	for s := syscall.Signal(1); s <= 64; s++ {
		if s != syscall.SIGKILL && s != syscall.SIGSTOP {
			sigs = append(sigs, s)
		}
	}
	return sigs
}

// probeOK is what the probe prints once it has used its namespaces.
const probeOK = "toold-sandbox: probe ok\n"

// probeMain is started in new user, mount and network namespaces: it
// brings loopback up, mounts a tmpfs and makes a PID namespace, as a
// session's launcher does, and says so. Where user namespaces are
// restricted (Ubuntu's AppArmor rule), making one succeeds but these fail
// for want of capabilities.
func probeMain() int {
	err := loopbackUp()
	if err == nil {
		err = unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "")
	}
	if err == nil {
		err = unix.Mount("tmpfs", "/tmp", "tmpfs", 0, "size=4k")
	}
	if err == nil {
		err = unix.Unshare(unix.CLONE_NEWPID)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "toold: sandbox probe: %v\n", err)
		return 1
	}
	fmt.Print(probeOK)
	return 0
}

// loopbackUp brings the loopback interface of this network namespace up.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("SIOCGIFFLAGS: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("SIOCSIFFLAGS: %w", err)
	}
	return nil
}
