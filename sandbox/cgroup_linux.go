package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A session's cgroup holds every process its commands start, wherever they
// move (setsid, a cleared environment): the session ends them all at once
// with cgroup.kill. It needs a cgroup v2 the daemon may make children of
// and move processes into (systemd delegates one to a user's services;
// root has its own), and Linux 5.14 (cgroup.kill). The daemon's sessions
// are beneath <the daemon's cgroup>/toold-<pid>-<start>, which the next
// daemon to start removes, with what is left in it, when that daemon has
// died.

// cgroupBase is the daemon's own cgroup v2 directory, "" when there is none.
func cgroupBase() string {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	var rel string
	found := false
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "0::"); ok {
			rel, found = v, true
		}
	}
	mnt := cgroup2Mount()
	if !found || mnt == "" {
		return ""
	}
	return filepath.Join(mnt, rel)
}

// cgroup2Mount is where the cgroup v2 hierarchy is mounted, "" when it
// is not.
func cgroup2Mount() string {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent major:minor root mountpoint options... - fstype source superopts
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, after := strings.Fields(pre), strings.Fields(post)
		if ok && len(fields) >= 5 && len(after) >= 1 && after[0] == "cgroup2" && fields[3] == "/" {
			return fields[4]
		}
	}
	return ""
}

var (
	cgroupsOnce sync.Once
	cgroupsOK   bool
)

// CgroupsDelegated reports, once per process, whether sessions can have
// cgroups: the daemon may write its cgroup's cgroup.procs (to move a
// process out of it, into a child) and make a dir there, and the kernel
// has cgroup.kill.
func CgroupsDelegated() bool {
	cgroupsOnce.Do(func() { cgroupsOK = cgroupsDelegated() })
	return cgroupsOK
}

func cgroupsDelegated() bool {
	base := cgroupBase()
	if base == "" || unix.Access(filepath.Join(base, "cgroup.procs"), unix.W_OK) != nil || unix.Access(base, unix.W_OK) != nil {
		return false
	}
	_, err := os.Stat(filepath.Join(base, "cgroup.kill"))
	if errors.Is(err, os.ErrNotExist) && filepath.Clean(base) == filepath.Clean(cgroup2Mount()) {
		// The root cgroup has no cgroup.kill; its children do from 5.14.
		var u unix.Utsname
		unix.Uname(&u)
		return kernelAtLeast(unix.ByteSliceToString(u.Release[:]), 5, 14)
	}
	return err == nil
}

// kernelAtLeast reports whether release ("6.18.44-...") is major.minor or later.
func kernelAtLeast(release string, major, minor int) bool {
	parts := strings.SplitN(release, ".", 3)
	if len(parts) < 2 {
		return false
	}
	ma, _ := strconv.Atoi(parts[0])
	mi, _ := strconv.Atoi(strings.TrimFunc(parts[1], func(r rune) bool { return r < '0' || r > '9' }))
	return ma > major || ma == major && mi >= minor
}

// daemonCgroupName is this daemon's dir beneath its cgroup.
func daemonCgroupName() string {
	return fmt.Sprintf("toold-%d-%d", os.Getpid(), startTicks(os.Getpid()))
}

// startTicks is pid's start time (clock ticks since boot), 0 if unknown.
func startTicks(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	fields := strings.Fields(string(b[i+1:]))
	if i < 0 || len(fields) < 20 {
		return 0
	}
	t, _ := strconv.ParseUint(fields[19], 10, 64)
	return t
}

// Cgroup is a session's cgroup, made when its first command starts in it
// (a session that runs none costs nothing).
type Cgroup struct {
	name string
	mu   sync.Mutex
	made bool
	path string
	dir  *os.File // nil when it could not be made
}

// NewCgroup is the cgroup of session name; an error where cgroups are not
// delegated (CgroupsDelegated).
func NewCgroup(name string) (*Cgroup, error) {
	if !CgroupsDelegated() {
		return nil, errors.New("sandbox: no delegated cgroup")
	}
	return &Cgroup{name: name}, nil
}

// make makes the cgroup's directory, and the first of this process starts
// the guard (guardMain).
func (c *Cgroup) make() error {
	d := filepath.Join(cgroupBase(), daemonCgroupName())
	if err := os.Mkdir(d, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("sandbox: cgroup: %w", err)
	}
	if err := startGuard(d); err != nil {
		return err
	}
	path := filepath.Join(d, "s-"+c.name)
	if err := os.Mkdir(path, 0o755); err != nil {
		return fmt.Errorf("sandbox: cgroup: %w", err)
	}
	dir, err := os.OpenFile(path, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("sandbox: cgroup: %w", err)
	}
	c.path, c.dir = path, dir
	return nil
}

// Dir is the cgroup's directory, for CLONE_INTO_CGROUP
// (SysProcAttr.CgroupFD): a process started so is in it from its first
// instruction. It is made on the first call; nil on a nil Cgroup, or one
// that could not be made (its commands then run as they would without).
func (c *Cgroup) Dir() *os.File {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.made {
		c.made = true
		if err := c.make(); err != nil {
			fmt.Fprintf(os.Stderr, "toold: %v: the session's processes are not in a cgroup of its own\n", err)
		}
	}
	return c.dir
}

// Close kills every process in the cgroup, waits (up to a few seconds)
// until it is empty, and removes it.
func (c *Cgroup) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.made = true // no command starts in it any more
	if c.dir == nil {
		return nil
	}
	c.dir.Close()
	c.dir = nil
	err := killCgroup(c.path, 3*time.Second)
	os.Remove(filepath.Dir(c.path)) // the daemon's dir, once it has no session left
	return err
}

// killCgroup kills what is in the cgroup at path and removes it, trying
// for up to wait (it is busy until its killed processes are gone).
func killCgroup(path string, wait time.Duration) error {
	if err := os.WriteFile(filepath.Join(path, "cgroup.kill"), []byte("1"), 0); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("sandbox: cgroup.kill: %w", err)
	}
	deadline := time.Now().Add(wait)
	for {
		err := os.Remove(path)
		if err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("sandbox: removing the session's cgroup: %w", err)
		}
		time.Sleep(5 * time.Millisecond) // EBUSY until its killed processes are reaped
	}
}

// SweepCgroups ends what is left in the session cgroups of daemons that
// died beneath this daemon's cgroup (whose guard did not: it was killed
// too), and removes those it can at once (a cgroup whose processes are
// still dying is left to the next sweep); it returns the dirs removed.
func SweepCgroups() []string {
	base := cgroupBase()
	if base == "" || !CgroupsDelegated() {
		return nil
	}
	dirs, _ := filepath.Glob(filepath.Join(base, "toold-*-*"))
	var removed []string
	for _, d := range dirs {
		var pid int
		var ticks uint64
		if _, err := fmt.Sscanf(filepath.Base(d), "toold-%d-%d", &pid, &ticks); err != nil || pid == os.Getpid() {
			continue
		}
		if startTicks(pid) == ticks && ticks != 0 {
			continue // alive
		}
		sessions, _ := filepath.Glob(filepath.Join(d, "s-*"))
		for _, s := range sessions {
			if killCgroup(s, 0) == nil {
				removed = append(removed, s)
			}
		}
		os.Remove(d)
	}
	return removed
}

var (
	guardMu   sync.Mutex
	guardLive *os.File // the write end of the guard's pipe, held while this process lives
)

// startGuard starts, once, the guard of this daemon's session cgroups
// beneath dir: a process that ends them all when this one dies, even by
// SIGKILL (its pipe from us reaches EOF), so that what the sessions left
// does not outlive the daemon.
func startGuard(dir string) error {
	guardMu.Lock()
	defer guardMu.Unlock()
	if guardLive != nil {
		return nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("sandbox: the cgroups' guard: %w", err)
	}
	defer r.Close()
	cmd := &osexec.Cmd{Path: "/proc/self/exe", Args: []string{LauncherName, guardFlag, dir}, Env: launcherEnv(), Dir: "/",
		ExtraFiles: []*os.File{r}, SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	if err := cmd.Start(); err != nil {
		w.Close()
		return fmt.Errorf("sandbox: the cgroups' guard: %w", err)
	}
	cmd.Process.Release() // it outlives us by design; whoever adopts it reaps it
	guardLive = w
	return nil
}

// guardMain waits for the daemon's end (EOF on fd 3), then kills what is
// left in its session cgroups beneath dir and removes them.
func guardMain(dir string) int {
	signal.Ignore(syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM) // the daemon's terminal is not ours to answer
	var b [1]byte
	for {
		if n, err := unix.Read(fdControl, b[:]); n == 0 || (err != nil && err != unix.EINTR) {
			break
		}
	}
	sessions, _ := filepath.Glob(filepath.Join(dir, "s-*"))
	for _, s := range sessions {
		killCgroup(s, 3*time.Second)
	}
	os.Remove(dir)
	return 0
}
