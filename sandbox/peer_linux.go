package sandbox

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// A process in a sandbox is told from the shared daemon's other clients
// two ways: by its user namespace (another than the daemon's), where the
// sandbox has one, and everywhere by a mark no command can take off: the
// hard limit of RLIMIT_LOCKS, which the kernel has ignored since Linux
// 2.4.25, lowered below the daemon's. A hard limit can be lowered, never
// raised without CAP_SYS_RESOURCE (which the sandbox's root loses too), and
// every descendant inherits it, wherever it moves.

// peerMark bounds the marked limit: the daemon's own, when lower.
const peerMark = 1 << 62

// markLimit is the hard limit of a marked process started by a daemon
// whose own is daemonHard: below both it and peerMark.
func markLimit(daemonHard uint64) uint64 {
	return min(daemonHard, peerMark) - 1
}

// markPeer marks this process (a launcher, the daemon's child, whose limit
// is the daemon's) and its descendants as sandboxed.
func markPeer() error {
	var r unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_LOCKS, &r); err != nil {
		return err
	}
	r.Max = markLimit(r.Max)
	r.Cur = min(r.Cur, r.Max)
	return unix.Setrlimit(unix.RLIMIT_LOCKS, &r)
}

// Sandboxed reports whether pid runs in a sandbox: a sandboxed command or
// one of its descendants, in another user namespace than this process or
// with the mark. A pid whose namespace or limit cannot be read (it has
// exited) counts as sandboxed.
func Sandboxed(pid int) bool {
	mine, err1 := os.Readlink("/proc/self/ns/user")
	theirs, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/user", pid))
	if err1 != nil || err2 != nil || mine != theirs {
		return true
	}
	var own, peer unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_LOCKS, &own) != nil || unix.Prlimit(pid, unix.RLIMIT_LOCKS, nil, &peer) != nil {
		return true
	}
	return peer.Max <= markLimit(own.Max)
}
