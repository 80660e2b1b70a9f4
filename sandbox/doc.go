// Package sandbox confines a session's commands with the kernel: Landlock
// for the file system (reads everywhere or beneath a list, writes only
// beneath the writable dirs and the session's TMPDIR), signal and abstract
// unix socket scoping (Landlock ABI 6) so that a command cannot signal the
// daemon or another session's processes, and a user namespace with a
// network namespace of its own (loopback only) when the network is off.
//
// Go cannot run code between fork and exec, so a sandboxed command is
// started as toold itself under the name LauncherName (Wrap): this
// package's init, which runs before most of toold's packages are
// initialized, restricts that process and then execs the command in its place, keeping
// its pid, its process group and its start time, which exec's records and
// sweeps rely on. The launcher's own process is the one the namespaces are
// made for (SysProcAttr.Cloneflags), so loopback is brought up before the
// command runs.
//
// Support says what this kernel can enforce, Missing what of a Policy it
// cannot (initialize turns that into -32007 unless bestEffort), and
// Sandboxed tells a process in a sandbox's user namespace, which no command
// can leave, for the shared daemon's socket. The package imports nothing of
// ours: exec wraps commands with it, lifecycle checks policies with it.
package sandbox
