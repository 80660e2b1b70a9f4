package sandbox

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// setup restricts this launcher (and so every command it starts) to its
// policy: in a user namespace, loopback up, the mount namespace's hidden
// dirs, the PID namespace and its init (whose pidfd it returns, else -1);
// then, everywhere, capabilities dropped, the peer marker, no new
// privileges, Landlock and seccomp.
func (l *launcher) setup() (int, error) {
	p := l.pol
	dirs, err := openPolicyDirs(p)
	if err != nil {
		return -1, err
	}
	defer dirs.close()
	initFD := -1
	if p.Plan.UserNS {
		if !p.Network {
			if err := loopbackUp(); err != nil {
				return -1, fmt.Errorf("loopback: %w", err)
			}
		}
		if err := hide(p, dirs); err != nil {
			return -1, err
		}
		var proceed func()
		if initFD, proceed, err = startInit(); err != nil {
			return -1, err
		}
		// init mounts the namespace's /proc once this thread no longer
		// needs its own (psx reads /proc/<pid>/task).
		defer proceed()
	}
	if err := dropPrivileges(); err != nil {
		unix.Close(initFD)
		return -1, err
	}
	if p.Plan.ABI >= abiFiles {
		if err := restrictLandlock(p, dirs); err != nil {
			unix.Close(initFD)
			return -1, fmt.Errorf("landlock: %w", err)
		}
	}
	if p.Plan.Seccomp {
		rules := seccompRules{sockets: !p.Network, inet: p.Plan.UserNS, prlimit: !p.Plan.UserNS}
		if err := installSeccomp(rules); err != nil {
			unix.Close(initFD)
			return -1, fmt.Errorf("seccomp: %w", err)
		}
	}
	// No command can trace this launcher, nor read its memory.
	unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	return initFD, nil
}

// policyDirs are a policy's directories opened (O_PATH) for its rules.
type policyDirs struct {
	fds map[string]int // by path; a dir that is not what was resolved is absent
}

func (d *policyDirs) close() {
	for _, fd := range d.fds {
		unix.Close(fd)
	}
}

// openPolicyDirs opens each dir of p without following a symlink on the
// way, and keeps those that are the dirs resolved when the policy was
// made (p.IDs): one replaced since (by a symlink, or another dir) gets no
// rule. The null devices and the terminal are opened too.
func openPolicyDirs(p *Policy) (*policyDirs, error) {
	d := &policyDirs{fds: make(map[string]int)}
	paths := slices.Concat(p.Writable, p.Readable, []string{"/"}, devices)
	for _, path := range paths {
		if _, ok := d.fds[path]; ok || path == "" {
			continue
		}
		fd, err := openNoFollow(path)
		if err != nil {
			continue // gone, or a symlink now: no rule
		}
		if want, ok := p.IDs[path]; ok {
			if id, err := fdID(fd); err != nil || id != want {
				fmt.Fprintf(os.Stderr, "toold: sandbox: %s is no longer the directory the policy named: left out\n", path)
				unix.Close(fd)
				continue
			}
		}
		d.fds[path] = fd
	}
	return d, nil
}

// openNoFollow opens path (absolute) as O_PATH, refusing a symlink in any
// of its components.
func openNoFollow(path string) (int, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(unix.AT_FDCWD, path, &how)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

// fdID is the identity of the file open on fd.
func fdID(fd int) (FileID, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return FileID{}, err
	}
	return FileID{Dev: st.Dev, Ino: st.Ino}, nil
}

// startInit makes a PID namespace for this launcher's children and starts
// its init there, as the daemon's child (CLONE_PARENT): it holds fdLive.
// It returns init's pidfd, and proceed, which lets init mount the
// namespace's /proc (the launcher's own /proc is gone then).
func startInit() (pidfd int, proceed func(), err error) {
	if err := unix.Unshare(unix.CLONE_NEWPID); err != nil {
		return -1, nil, fmt.Errorf("a PID namespace: %w", err)
	}
	null, err := unix.Open("/dev/null", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, nil, err
	}
	defer unix.Close(null)
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return -1, nil, err
	}
	defer unix.Close(p[0])
	pidfd = -1
	attr := &syscall.ProcAttr{Env: os.Environ(), Dir: "/", // launcherEnv
		Files: []uintptr{uintptr(null), uintptr(null), 2, ^uintptr(0), fdLive, uintptr(p[0])},
		Sys:   &syscall.SysProcAttr{Setsid: true, Cloneflags: unix.CLONE_PARENT, PidFD: &pidfd}}
	if _, err := syscall.ForkExec("/proc/self/exe", []string{LauncherName, initFlag}, attr); err != nil {
		unix.Close(p[1])
		return -1, nil, fmt.Errorf("the PID namespace's init: %w", err)
	}
	unix.Close(fdLive) // the daemon's death is init's, not ours
	return pidfd, func() { unix.Close(p[1]) }, nil
}

// dropPrivileges clears the capabilities a command would otherwise start
// with: the ambient ones (the user namespace's CAP_SYS_ADMIN and
// CAP_NET_ADMIN) and, for root, all of them (securebits keep an exec from
// giving them back), and marks this process and its descendants for the
// shared daemon (markPeer). Capabilities are a thread's: this one's, which
// forks every command (init locked it), are the ones that count.
func dropPrivileges() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("dropping ambient capabilities: %w", err)
	}
	if os.Geteuid() == 0 {
		if err := dropRoot(); err != nil {
			return err
		}
	}
	if err := markPeer(); err != nil {
		return fmt.Errorf("marking the sandbox: %w", err)
	}
	if err := llsys.AllThreadsPrctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	return nil
}

// dropRoot takes every capability from root's commands: root keeps its
// uid (its files are its own), not the power to load a module, mount or
// reboot, which Landlock does not cover.
func dropRoot() error {
	const bits = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<4 | 1<<5 // NOROOT, NO_SETUID_FIXUP, KEEP_CAPS, each with its lock
	if err := unix.Prctl(unix.PR_SET_SECUREBITS, bits&^(1<<4), 0, 0, 0); err != nil {
		return fmt.Errorf("securebits: %w", err)
	}
	last := lastCap()
	for c := 0; c <= last; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("dropping capability %d: %w", c, err)
		}
	}
	// And the sets themselves: an inheritable capability would come back
	// through a file's inheritable ones, whatever the bounding set.
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// lastCap is the highest capability this kernel knows.
func lastCap() int {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err == nil {
		if n, err := strconv.Atoi(string(b[:len(b)-1])); err == nil {
			return n
		}
	}
	return 63
}
