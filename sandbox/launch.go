package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// LauncherName is argv[0] of toold started as the launcher of a sandboxed
// command (see init).
const LauncherName = "toold-sandbox"

// init makes this process the launcher when it was started as one
// (argv[0] is LauncherName): it restricts itself to the policy in argv[1]
// and execs argv[2] with the argv that follows, or exits 126 (127 when the
// program is missing) saying why on stderr. In an init, not in main: it
// runs before the packages that sort after this one are initialized, which
// is most of what toold's start costs, and every binary that can start a
// sandboxed command (it imports this package) can be its launcher.
func init() {
	if len(os.Args) >= 2 && os.Args[0] == LauncherName {
		os.Exit(launch(os.Args[1:]))
	}
}

func launch(args []string) int {
	// The ambient capability given for loopback is dropped on this
	// thread, which must then be the one that execs.
	runtime.LockOSThread()
	if args[0] == "probe" {
		if err := loopbackUp(); err != nil {
			fmt.Fprintf(os.Stderr, "toold: sandbox probe: %v\n", err)
			return 1
		}
		fmt.Print(probeOK)
		return 0
	}
	if args[0] == waitFlag && len(args) == 2 {
		return launchWaiting(args[1])
	}
	if len(args) < 3 {
		fmt.Fprintln(os.Stderr, "toold: sandbox: usage: "+LauncherName+" POLICY PATH ARGV0 [ARG...]")
		return 2
	}
	var p Policy
	if err := json.Unmarshal([]byte(args[0]), &p); err != nil {
		fmt.Fprintf(os.Stderr, "toold: sandbox: policy: %v\n", err)
		return 126
	}
	if err := p.apply(); err != nil {
		fmt.Fprintf(os.Stderr, "toold: sandbox: %v\n", err)
		return 126
	}
	return execCommand(args[1], args[2:], os.Environ())
}

// execCommand drops the ambient capabilities and execs path; it returns
// the exit status of a failed exec, having said why on stderr.
func execCommand(path string, argv, env []string) int {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "toold: sandbox: dropping capabilities: %v\n", err)
		return 126
	}
	err := unix.Exec(path, argv, env)
	fmt.Fprintf(os.Stderr, "toold: sandbox: %s: %v\n", path, err)
	if errors.Is(err, unix.ENOENT) {
		return 127
	}
	return 126
}

// waitFlag is argv[1] of a launcher started ahead of its command
// (WrapWaiting).
const waitFlag = "-wait"

// Request is the command a waiting launcher execs, sent on its fd 3.
type Request struct {
	Path string   `json:"path"`
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
	// MergeStderr makes the command's stderr its stdout.
	MergeStderr bool `json:"mergeStderr"`
}

// launchWaiting restricts this process to policy, then waits for the
// command on fd 3 and execs it. A launcher whose command never comes (the
// daemon closed fd 3 without one) exits 0 without a word.
func launchWaiting(policy string) int {
	var p Policy
	if err := json.Unmarshal([]byte(policy), &p); err != nil {
		fmt.Fprintf(os.Stderr, "toold: sandbox: policy: %v\n", err)
		return 126
	}
	if err := p.apply(); err != nil {
		fmt.Fprintf(os.Stderr, "toold: sandbox: %v\n", err)
		return 126
	}
	ready := os.NewFile(4, "launcher-ready")
	ready.Write([]byte{1}) // restricted: its command can come
	ready.Close()
	ctl := os.NewFile(3, "launcher-control")
	var req Request
	err := json.NewDecoder(ctl).Decode(&req)
	ctl.Close()
	if err != nil {
		return 0
	}
	if req.Dir != "" {
		if err := unix.Chdir(req.Dir); err != nil {
			fmt.Fprintf(os.Stderr, "toold: sandbox: cwd %s: %v\n", req.Dir, err)
			return 126
		}
	}
	if req.MergeStderr {
		if err := unix.Dup3(1, 2, 0); err != nil {
			fmt.Fprintf(os.Stderr, "toold: sandbox: stderr: %v\n", err)
			return 126
		}
	}
	return execCommand(req.Path, req.Argv, req.Env)
}

// Waiting is the daemon's side of a launcher started by WrapWaiting.
type Waiting struct {
	// Ctl is where its command goes (Send).
	Ctl *os.File
	// Ready reads one byte once the launcher has restricted itself, EOF
	// if it died first.
	Ready *os.File
	// child are the ends the launcher was given, closed by Started.
	child []*os.File
}

// Started closes the pipes' ends that cmd was given, once it has started
// (or failed to).
func (w *Waiting) Started() {
	for _, f := range w.child {
		f.Close()
	}
}

// Close closes the daemon's ends.
func (w *Waiting) Close() {
	w.Ctl.Close()
	w.Ready.Close()
}

// WaitReady waits until the launcher has restricted itself; an error if it
// died first.
func (w *Waiting) WaitReady() error {
	var b [1]byte
	_, err := w.Ready.Read(b[:])
	w.Ready.Close()
	if err != nil {
		return fmt.Errorf("sandbox: the launcher ended before its command: %w", err)
	}
	return nil
}

// WrapWaiting makes cmd start a launcher that applies p at once, says so
// on its fd 4 and then waits for its command (Send) on its fd 3, so that
// the cost of starting it is paid before the command is asked for.
func WrapWaiting(cmd *osexec.Cmd, p *Policy) (*Waiting, error) {
	spec, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	cmd.Path = "/proc/self/exe"
	cmd.Args = []string{LauncherName, waitFlag, string(spec)}
	cmd.ExtraFiles = []*os.File{ctlR, readyW}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if !p.NoNetNS {
		namespaces(cmd.SysProcAttr, !p.Network)
	}
	return &Waiting{Ctl: ctlW, Ready: readyR, child: []*os.File{ctlR, readyW}}, nil
}

// Send gives a waiting launcher its command, and closes ctl.
func Send(ctl *os.File, req Request) error {
	b, err := json.Marshal(req)
	if err == nil {
		_, err = ctl.Write(b)
	}
	if cerr := ctl.Close(); err == nil {
		err = cerr
	}
	return err
}

// Wrap makes cmd start the launcher, which applies p and then execs what
// cmd named. With p's network off it starts in a user and network
// namespace of its own; with it on, in a user namespace (which tells the
// shared daemon that its peer is sandboxed: see Sandboxed). The user and
// group ids map to themselves.
func Wrap(cmd *osexec.Cmd, p *Policy) error {
	spec, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	cmd.Args = append([]string{LauncherName, string(spec), cmd.Path}, cmd.Args...)
	cmd.Path = "/proc/self/exe"
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if !p.NoNetNS {
		namespaces(cmd.SysProcAttr, !p.Network)
	}
	return nil
}

// namespaces starts the process in a new user namespace, and a new network
// namespace when net, with our ids mapped to themselves.
func namespaces(a *syscall.SysProcAttr, net bool) {
	a.Cloneflags |= unix.CLONE_NEWUSER
	if net {
		// CAP_NET_ADMIN in the new namespace only, kept across the
		// launcher's exec (our uid is not root there) to bring loopback
		// up; the launcher drops it before it execs the command.
		a.Cloneflags |= unix.CLONE_NEWNET
		a.AmbientCaps = []uintptr{unix.CAP_NET_ADMIN}
	}
	uid, gid := os.Getuid(), os.Getgid()
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	a.GidMappingsEnableSetgroups = false
}

// probeUserNS starts the launcher in a user and network namespace, where
// it brings loopback up and exits.
//
// It tells success by what the launcher prints, not only by its exit
// status: a daemon that adopts orphans (exec.Runner.AdoptOrphans) reaps
// every child that exits, this one too at times, and Wait then fails with
// ECHILD although the probe went well.
func probeUserNS() error {
	cmd := &osexec.Cmd{Path: "/proc/self/exe", Args: []string{LauncherName, "probe"}, SysProcAttr: &syscall.SysProcAttr{}}
	namespaces(cmd.SysProcAttr, true)
	out, err := cmd.CombinedOutput()
	if bytes.HasSuffix(out, []byte(probeOK)) {
		return nil
	}
	if err == nil {
		err = errors.New("the launcher did not say it was ready")
	}
	return fmt.Errorf("a user and network namespace: %w %s", err, out)
}

// probeOK is what the probe prints once loopback is up in its namespaces.
const probeOK = "toold-sandbox: probe ok\n"

// configs are go-landlock's configurations by ABI: everything each one
// can restrict.
var configs = []landlock.Config{landlock.V1, landlock.V1, landlock.V2, landlock.V3, landlock.V4,
	landlock.V5, landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// apply restricts this process to p: loopback up in its new network
// namespace, then Landlock.
func (p *Policy) apply() error {
	if !p.Network && !p.NoNetNS {
		if err := loopbackUp(); err != nil {
			return fmt.Errorf("loopback: %w", err)
		}
	}
	if p.ABI < abiFiles {
		return nil // bestEffort without Landlock: nothing to enforce with
	}
	cfg := configs[min(p.ABI, len(configs)-1)]
	if p.Network || !p.NoNetNS {
		// The namespace keeps the network off and loopback usable; with
		// it on nothing is restricted. Only without a namespace does
		// Landlock block TCP (every port: no rule allows one).
		cfg.HandledAccessNet = 0
	}
	return cfg.Restrict(p.rules()...)
}

// devices may be opened for writing anywhere: the null devices and the
// terminal.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty"}

// rules are p's Landlock rules.
func (p *Policy) rules() []landlock.Rule {
	read := landlock.RODirs("/")
	if p.Readable != nil {
		read = landlock.RODirs(p.Readable...).IgnoreIfMissing()
	}
	write := landlock.RWDirs(p.Writable...).IgnoreIfMissing()
	dev := landlock.RWFiles(devices...).IgnoreIfMissing()
	if p.ABI >= abiRefer {
		write = write.WithRefer() // mv and ln within the writable dirs
	}
	if p.ABI >= 5 {
		dev = dev.WithIoctlDev() // the terminal's ioctls
	}
	return []landlock.Rule{read, write, dev}
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

// Sandboxed reports whether pid runs in another user namespace than this
// process: a sandboxed command or one of its descendants, which cannot
// leave the namespace the launcher was started in. A pid whose namespace
// cannot be read (it has exited) counts as sandboxed.
func Sandboxed(pid int) bool {
	mine, err1 := os.Readlink("/proc/self/ns/user")
	theirs, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/user", pid))
	return err1 != nil || err2 != nil || mine != theirs
}
