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
	// Write: a write outside the writable set was refused (EACCES, EPERM,
	// EROFS on such a path). Network: a connection or name lookup failed
	// with the network off. Signal: EPERM with no path, as a signal to a
	// process outside the sandbox gets.
	Write, Network, Signal bool
}

// Sandbox says what the sandbox refused and what it allows, for exec's
// notice; "" when it refused nothing the output shows.
func Sandbox(d *SandboxDenial) string {
	if d == nil {
		return ""
	}
	var parts []string
	if d.Write {
		parts = append(parts, sandboxWrites(d))
	}
	if d.Network {
		parts = append(parts, "the sandbox has no network: only the command's own loopback is reachable, not the host's; network: true (--network) allows it")
	}
	if d.Signal {
		parts = append(parts, "the sandbox blocks signals and tracing of processes outside the command's own")
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

// SandboxUnenforced is initialize's notice when the kernel cannot enforce
// all of the sandbox asked for with bestEffort; "" when it enforces all.
func SandboxUnenforced(missing []string) string {
	if len(missing) == 0 {
		return ""
	}
	return "[The sandbox is not fully enforced (bestEffort): " + strings.Join(missing, "; ") + "]"
}
