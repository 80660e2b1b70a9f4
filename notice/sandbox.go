package notice

import (
	"fmt"
	"strings"
)

// SandboxDenial is what an exec's output shows the sandbox refused: the
// facts of its notice.
type SandboxDenial struct {
	Mode string // the sandbox's mode
	// Writable are the directories writes are allowed beneath, TmpDir
	// among them.
	Writable []string
	TmpDir   string
	// Roots are the only directories reads are allowed beneath beside
	// TMPDIR and the system's dirs (read-only with roots); nil otherwise.
	Roots []string
	// Write: a write outside the writable set was refused (EACCES, EPERM,
	// EROFS on such a path). Network: a connection or name lookup failed
	// with the network off. Signal: EPERM with no path, as a signal to a
	// process outside the sandbox gets.
	// Read: the same on a path outside the readable dirs (read-only with
	// roots), which was refused whether read or written.
	Write, Read, Network, Signal bool
}

// Sandbox says what the sandbox refused and what it allows, for exec's
// notice; "" when it refused nothing the output shows.
func Sandbox(d *SandboxDenial) string {
	if d == nil {
		return ""
	}
	var parts []string
	if d.Read {
		parts = append(parts, fmt.Sprintf("reads and writes outside the roots are blocked by the sandbox: %s with roots allows reads beneath %s, TMPDIR (%s) and the system's dirs (/usr, /etc, ...), and writes only in TMPDIR",
			d.Mode, strings.Join(d.Roots, ", "), d.TmpDir))
	}
	if d.Write {
		parts = append(parts, sandboxWrites(d))
	}
	if d.Network {
		parts = append(parts, "the sandbox has no network: only the command's own loopback is reachable, not the host's; network: true (--network) allows it")
	}
	if d.Signal {
		parts = append(parts, "the sandbox blocks signals, tracing and abstract unix socket connections to processes outside the command's own sandbox")
	}
	return strings.Join(parts, ". ")
}

func sandboxWrites(d *SandboxDenial) string {
	var others []string
	for _, w := range d.Writable {
		if w != d.TmpDir {
			others = append(others, w)
		}
	}
	tmp := fmt.Sprintf("TMPDIR (%s)", d.TmpDir)
	if len(others) == 0 {
		return fmt.Sprintf("writes are blocked by the sandbox: %s allows only %s", d.Mode, tmp)
	}
	return fmt.Sprintf("writes outside the workspace are blocked by the sandbox: %s allows %s and %s", d.Mode, strings.Join(others, ", "), tmp)
}

// SandboxUnenforced is initialize's notice of what the sandbox does not
// enforce on this system: with refused, a protection missing altogether
// (bestEffort started without it), else gaps of the mechanisms used; ""
// when it enforces all.
func SandboxUnenforced(missing []string, refused bool) string {
	if len(missing) == 0 {
		return ""
	}
	if refused {
		return "[The sandbox is not fully enforced (bestEffort): " + strings.Join(missing, "; ") + "]"
	}
	return "[The sandbox enforces all but this on this system: " + strings.Join(missing, "; ") + "]"
}
