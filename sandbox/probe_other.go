//go:build !linux

package sandbox

import "runtime"

// Probe says that nothing can be enforced here: the sandbox is Linux's
// (Landlock, namespaces, seccomp); Plan then names the OS.
func Probe() Support {
	return Support{OS: runtime.GOOS, UserNSErr: "not Linux"}
}

// Sandboxed reports whether pid runs in a sandbox: never off Linux, where
// no command is confined.
func Sandboxed(pid int) bool { return false }

// Probed is Probe's result: known at once off Linux.
func Probed() (Support, bool) { return Probe(), true }
