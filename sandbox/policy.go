package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"sync"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// The modes of a policy (the protocol's names).
const (
	ModeOff            = "off"
	ModeReadOnly       = "read-only"
	ModeWorkspaceWrite = "workspace-write"
)

// Landlock ABI versions that bring what a policy needs.
const (
	abiFiles    = 1 // file access
	abiRefer    = 2 // rename and link between dirs (within the writable set)
	abiTruncate = 3 // truncate(2) of files outside the writable set
	abiTCP      = 4 // TCP bind and connect
	abiScope    = 6 // signals and abstract unix sockets
)

// SystemDirs may be read in read-only mode with roots, beside the roots:
// what programs need to run.
var SystemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys", "/dev", "/run"}

// Policy is what a sandboxed command may do. The zero Network is off.
type Policy struct {
	Mode string `json:"mode"`
	// Writable are the directories beneath which writes are allowed
	// (absolute, symlinks resolved), TmpDir among them.
	Writable []string `json:"writable"`
	// Readable, when not nil, are the only directories beneath which
	// reads (and execution) are allowed; nil means everywhere.
	Readable []string `json:"readable,omitempty"`
	// Network allows sockets beyond loopback.
	Network bool `json:"network"`
	// TmpDir is the session's private TMPDIR.
	TmpDir string `json:"tmpDir"`
	// ABI is the Landlock ABI the launcher enforces: Support's, which the
	// daemon checked the policy against.
	ABI int `json:"abi"`
	// NoNetNS: no user namespace here (bestEffort). With the network off,
	// TCP is then blocked by Landlock (ABI 4) instead, loopback included.
	NoNetNS bool `json:"noNetNS,omitempty"`
}

// Support is what this kernel can enforce.
type Support struct {
	// ABI is Landlock's ABI version, 0 without Landlock.
	ABI int
	// UserNS: an unprivileged user namespace with a network namespace can
	// be made (the launcher was started in one and brought loopback up).
	UserNS bool
	// UserNSErr says why not, when UserNS is false.
	UserNSErr string
}

// Test hooks: they can only take away what the kernel has, to see the
// -32007 and bestEffort paths on a kernel that has everything.
const (
	// EnvFakeABI lowers the Landlock ABI Probe reports to its value.
	EnvFakeABI = "TOOLD_TEST_LANDLOCK_ABI"
	// EnvNoUserNS makes Probe report no user namespaces.
	EnvNoUserNS = "TOOLD_TEST_NO_USERNS"
)

var (
	probeOnce sync.Once
	probed    Support
)

// Probe finds what this kernel can enforce, once per process: the Landlock
// ABI, and whether the launcher starts in a new user and network namespace.
func Probe() Support {
	probeOnce.Do(func() {
		probed.ABI, _ = llsys.LandlockGetABIVersion()
		if v, err := strconv.Atoi(os.Getenv(EnvFakeABI)); err == nil && v >= 0 && v < probed.ABI {
			probed.ABI = v
		}
		if os.Getenv(EnvNoUserNS) != "" {
			probed.UserNSErr = EnvNoUserNS + " is set"
			return
		}
		if err := probeUserNS(); err != nil {
			probed.UserNSErr = err.Error()
		} else {
			probed.UserNS = true
		}
	})
	return probed
}

// Missing lists, one sentence each, what of p this kernel cannot enforce;
// nil when it enforces all of it.
func (s Support) Missing(p *Policy) []string {
	if p == nil || p.Mode == ModeOff || p.Mode == "" {
		return nil
	}
	var out []string
	need := func(abi int, what string) {
		if s.ABI < abi {
			out = append(out, fmt.Sprintf("Landlock ABI %d needed for %s, this kernel has %d", abi, what, s.ABI))
		}
	}
	need(abiFiles, "file access")
	if s.ABI >= abiFiles {
		need(abiTruncate, "truncation of files outside the writable dirs")
	}
	need(abiScope, "signal scoping")
	need(abiScope, "abstract unix socket scoping")
	if !s.UserNS {
		out = append(out, "a user namespace, needed to tell the shared daemon a sandboxed command from its other clients ("+s.UserNSErr+")")
		if !p.Network {
			what := "a network namespace, needed for network off"
			if s.ABI >= abiTCP {
				what += ": TCP is blocked by Landlock instead (loopback too), UDP and DNS are not"
			}
			out = append(out, what)
		}
	}
	return out
}

// Complete fills in what the launcher needs of s for p: the ABI to enforce
// and whether namespaces are made.
func (s Support) Complete(p *Policy) {
	p.ABI = s.ABI
	p.NoNetNS = !s.UserNS
}
