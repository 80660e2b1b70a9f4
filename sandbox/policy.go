package sandbox

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The modes of a policy (the protocol's names).
const (
	ModeOff            = "off"
	ModeReadOnly       = "read-only"
	ModeWorkspaceWrite = "workspace-write"
)

// Landlock ABI versions that bring what a policy needs.
const (
	abiFiles    = 1  // file access
	abiRefer    = 2  // rename and link between dirs (within the writable set)
	abiTruncate = 3  // truncate(2) of files outside the writable set
	abiTCP      = 4  // TCP bind and connect
	abiIoctl    = 5  // ioctl on devices
	abiScope    = 6  // signals and abstract unix sockets
	abiUnix     = 9  // connect to unix sockets by path
	abiUDP      = 10 // UDP bind and connect/send
)

// SystemDirs may be read in read-only mode with roots, beside the roots:
// what programs need to run.
var SystemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys", "/dev", "/run"}

// MaxDirs bounds the directories of a policy (Writable and Readable
// each): each is a rule the kernel keeps, and an opened directory while
// the launcher starts.
const MaxDirs = 1024

// FileID is a directory's identity when its policy was resolved: a path
// that names another file at launch (replaced, or by a symlink) is left
// out of the rules.
type FileID struct {
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
}

// Policy is what a sandboxed command may do. The zero Network is off.
// Its dirs are resolved once (Resolve), when the session's sandbox is
// made; the launcher opens them without following symlinks and checks
// each is the directory that was resolved.
type Policy struct {
	Mode string `json:"mode"`
	// Writable are the directories beneath which writes are allowed
	// (absolute, symlinks resolved), TmpDir among them.
	Writable []string `json:"writable"`
	// Extra are the writable dirs the client named (initialize's
	// sandbox.writable), resolved, without the roots: what a
	// re-initialize is judged against.
	Extra []string `json:"extra,omitempty"`
	// Readable, when not nil, are the only directories beneath which
	// reads (and execution) are allowed; nil means everywhere.
	Readable []string `json:"readable,omitempty"`
	// Network allows sockets beyond loopback.
	Network bool `json:"network"`
	// TmpDir is the session's private TMPDIR.
	TmpDir string `json:"tmpDir"`
	// IDs are the identities of the dirs of Writable, Readable and TmpDir
	// as resolved, by path.
	IDs map[string]FileID `json:"ids,omitempty"`
	// Private are directories no command may read: spool roots, other
	// sessions' TMPDIRs. TmpDir may lie beneath one.
	Private []string `json:"private,omitempty"`
	// Sockets are directories or socket files of services a command must
	// not reach by path (the daemon's socket dir), beside HostSockets.
	Sockets []string `json:"sockets,omitempty"`
	// Plan is how the policy is enforced here (Support.Plan).
	Plan Plan `json:"plan"`
}

// Key identifies a policy as the launcher enforces it: two policies of
// one key share a sandbox.
func (p *Policy) Key() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s|%v|%s|%+v|", p.Mode, p.Network, p.TmpDir, p.Plan.Mechanisms())
	for _, l := range [][]string{p.Writable, p.Readable, p.Private, p.Sockets} {
		for _, d := range l {
			fmt.Fprintf(&b, "%s:%v,", d, p.IDs[d])
		}
		b.WriteByte('|')
	}
	return b.String()
}

// Plan is how a policy is enforced on this system: the mechanisms used
// and, one sentence each, what is not enforced.
type Plan struct {
	// ABI is the Landlock ABI enforced; 0 for none.
	ABI int `json:"abi"`
	// UserNS: the commands run in a user, mount and PID namespace of
	// their session (and a network namespace with the network off).
	UserNS bool `json:"userNS"`
	// Seccomp: a seccomp filter refuses, with the network off, sockets
	// of families that reach beyond the sandbox, and without UserNS,
	// prlimit(2) of another process.
	Seccomp bool `json:"seccomp"`
	// Unenforced says what is not enforced, one sentence each.
	Unenforced []string `json:"unenforced,omitempty"`
	// Refused are those of Unenforced that leave a protection of the
	// mode with no mechanism at all: -32007 unless bestEffort.
	Refused []string `json:"refused,omitempty"`
}

// Mechanisms is the plan without its sentences.
func (p Plan) Mechanisms() Plan {
	return Plan{ABI: p.ABI, UserNS: p.UserNS, Seccomp: p.Seccomp}
}

// Confines reports whether the plan confines commands at all; a plan that
// does not (bestEffort where nothing can be enforced) runs them as
// unsandboxed commands run.
func (p Plan) Confines() bool {
	return p.ABI > 0 || p.UserNS || p.Seccomp
}

// Support is what this system can enforce.
type Support struct {
	// OS is runtime.GOOS: only Linux has a sandbox.
	OS string
	// ABI is the Landlock ABI toold uses: the kernel's, capped by
	// TOOLD_SANDBOX_ABI; 0 without Landlock.
	ABI int
	// UserNS: an unprivileged user namespace with its own mount, PID
	// and network namespaces can be made, with capabilities in them.
	UserNS bool
	// UserNSErr says why not, when UserNS is false.
	UserNSErr string
	// Seccomp: seccomp filters can be installed.
	Seccomp bool
	// Cgroups: sessions get a cgroup of their own (a delegated cgroup
	// v2), which ends their processes with them.
	Cgroups bool
}

// The environment variables that take away what the kernel has, for tests
// and for kernels that misreport (PROTOCOL.md, "Sandbox").
const (
	// EnvABI caps the Landlock ABI toold uses.
	EnvABI = "TOOLD_SANDBOX_ABI"
	// EnvUserNS=0 acts as if user namespaces were restricted.
	EnvUserNS = "TOOLD_SANDBOX_USERNS"
)

// capABI is the kernel's ABI capped by EnvABI.
func capABI(kernel int) int {
	if v, err := strconv.Atoi(os.Getenv(EnvABI)); err == nil && v >= 0 && v < kernel {
		return v
	}
	return kernel
}

// userNSOff reports whether EnvUserNS turns user namespaces off.
func userNSOff() bool {
	return os.Getenv(EnvUserNS) == "0"
}

// Plan says how p is enforced here and what of it is not (nil for a
// policy that is off).
func (s Support) Plan(p *Policy) Plan {
	if p == nil || p.Mode == ModeOff || p.Mode == "" {
		return Plan{}
	}
	if s.OS != "linux" {
		why := fmt.Sprintf("the sandbox needs Linux (Landlock and namespaces); this is %s, where commands run unconfined", s.OS)
		return Plan{Unenforced: []string{why}, Refused: []string{why}}
	}
	// Seccomp: for the network off, and without a PID namespace for
	// prlimit(2) (seccomp_linux.go).
	pl := Plan{ABI: s.ABI, UserNS: s.UserNS, Seccomp: s.Seccomp && (!p.Network || !s.UserNS)}
	var c planner
	need := func(abi int, what string) string {
		return fmt.Sprintf("Landlock ABI %d needed for %s, this kernel has %d", abi, what, s.ABI)
	}
	noNS := "no user namespaces (" + s.UserNSErr + ")"
	// Files: Landlock only.
	if s.ABI < abiFiles {
		c.refuse(need(abiFiles, "file access"))
	} else {
		if s.ABI < abiTruncate {
			c.partial(need(abiTruncate, "truncation of files outside the writable dirs"))
		}
		if s.ABI < abiIoctl {
			c.partial(need(abiIoctl, "ioctl on devices"))
		}
	}
	// The network off: a network namespace and seccomp's socket filter
	// (AF_VSOCK reaches the hypervisor from any network namespace).
	if !p.Network {
		switch {
		case s.UserNS && !s.Seccomp:
			c.partial("sockets of families that no network namespace confines (AF_VSOCK, to the hypervisor): seccomp is needed")
		case !s.UserNS && !s.Seccomp && s.ABI >= abiUDP:
			c.partial("the network off for other sockets than TCP and UDP, which Landlock blocks: " + noNS + " and no seccomp")
		case !s.UserNS && !s.Seccomp && s.ABI >= abiTCP:
			c.partial("the network off for UDP and other sockets than TCP, which Landlock blocks: " + noNS + " and no seccomp")
		case !s.UserNS && !s.Seccomp:
			c.refuse("the network off: " + noNS + ", no seccomp, and " + need(abiTCP, "TCP"))
		}
	}
	// Signals (and ptrace, which Landlock confines from ABI 1): Landlock
	// scoping, else a PID namespace hides what is outside.
	if s.ABI < abiScope && !s.UserNS {
		c.refuse(need(abiScope, "signal scoping") + ", and " + noNS + " for a PID namespace")
	}
	if !s.UserNS && !s.Seccomp {
		c.partial("resource limits of processes outside the sandbox (prlimit(2) of the daemon): " + noNS + " for a PID namespace, and no seccomp")
	}
	// Abstract unix sockets: Landlock scoping, else the network
	// namespace's own abstract namespace.
	if s.ABI < abiScope && (p.Network || !s.UserNS) {
		why := need(abiScope, "abstract unix socket scoping")
		if !p.Network {
			why += ", and " + noNS + " for a network namespace"
		}
		c.refuse(why)
	}
	// Unix sockets by path: Landlock (ABI 9), else a mount namespace
	// hides the known ones.
	if s.ABI < abiUnix {
		if s.UserNS {
			c.partial(need(abiUnix, "unix sockets by path") + ": the mount namespace hides only the user's runtime dir, toold's socket dir, and the sockets of container engines, virtual machines, databases, X11, tmux, screen and the system bus")
		} else {
			c.refuse(need(abiUnix, "unix sockets by path (the session bus, docker's socket)") + ", and " + noNS + " for a mount namespace")
		}
	}
	// Processes that leave the session: a PID namespace, else a cgroup.
	if !s.UserNS && !s.Cgroups {
		c.partial("processes that leave their group and drop toold's marker outlive the session: " + noNS + " for a PID namespace, and no delegated cgroup")
	}
	pl.Unenforced, pl.Refused = c.unenforced, c.refused
	return pl
}

// planner collects a plan's sentences in order.
type planner struct {
	unenforced, refused []string
}

func (c *planner) partial(s string) { c.unenforced = append(c.unenforced, s) }

func (c *planner) refuse(s string) {
	c.unenforced = append(c.unenforced, s)
	c.refused = append(c.refused, s)
}

// Dedup sorts dirs and drops duplicates and those beneath another (a dir
// beneath a writable dir adds nothing).
func Dedup(dirs []string) []string {
	out := slices.Clone(dirs)
	slices.Sort(out)
	out = slices.Compact(out)
	kept := make(map[string]bool, len(out))
	return slices.DeleteFunc(out, func(d string) bool {
		for a := d; ; {
			parent := a[:max(strings.LastIndexByte(a, '/'), 1)]
			if parent == a {
				break
			}
			if kept[parent] {
				return true
			}
			a = parent
		}
		kept[d] = true
		return false
	})
}
