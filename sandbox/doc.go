// Package sandbox confines a session's commands with the kernel, by the
// best mechanism this system has for each protection (Plan says which, and
// exactly what is left):
//
//   - files: Landlock from ABI 1, with each later ABI's rights where
//     present (refer 2, truncate 3, ioctl on devices 5, unix sockets by
//     path 9): reads everywhere or beneath a list, writes only beneath the
//     writable dirs and the session's TMPDIR, never the spool roots;
//   - the network off: a network namespace (loopback of its own), and a
//     seccomp filter that allows sockets of the families that stay within
//     it (AF_VSOCK reaches the hypervisor from any network namespace);
//     without user namespaces the filter refuses every IP socket, beside
//     Landlock's TCP rules (ABI 4);
//   - signals and ptrace beyond the sandbox: Landlock (ptrace from ABI 1,
//     signal and abstract socket scoping from 6), else a PID namespace;
//   - unix sockets by path: Landlock (ABI 9), else a mount namespace that
//     hides the runtime dir, toold's socket dir and known services'
//     sockets (HostSockets);
//   - processes that leave the session: the session's PID namespace, whose
//     init ends them all when the session ends or the daemon dies; else a
//     session cgroup (Cgroup), where the system delegates one.
//
// A session's sandbox is a launcher (toold re-exec'd as LauncherName,
// handled in this package's init before most of toold is initialized),
// started once per session policy (Start) with no environment and no
// descriptor of the daemon's, in the session's namespaces; it restricts
// itself, then forks each command the daemon sends (Spawn) as the daemon's
// own child (CLONE_PARENT), in a session and group of its own, with the
// command's environment only at its exec. A policy is resolved once
// (Resolve: paths and identities) and the launcher opens its dirs without
// following symlinks, leaving out one that is not what was resolved.
// A Pool (pool.go) keeps the daemon's launchers, one per session policy:
// started on first use or ahead at initialize, ended with their session
// (End), and set aside with their PID namespace when a command of the
// session killed its launcher (Retire); exec's Runner holds one.
//
// The rules of a session's policy are here too (policyrules.go): what
// each mode writes and reads beneath (NewPolicy), which of a policy's dirs
// are still what was resolved (StillSame), and how one policy is looser
// than another (Looser), by which lifecycle keeps a session's sandbox from
// ever getting looser than its last one or the daemon's --sandbox.
//
// Probe says what this system can enforce (TOOLD_SANDBOX_ABI and
// TOOLD_SANDBOX_USERNS=0 take away), Sandboxed tells the shared daemon a
// peer in a sandbox (its user namespace, or the mark of peer_linux.go).
// Off Linux there is no sandbox: Plan names the OS and Start fails. Session
// cgroups (cgroup_linux.go) are made where the system delegates a subtree
// (CgroupsDelegated), and SweepCgroups removes those of daemons that died.
// The package imports only internal/beneath (for its Landlock rules and
// mounts on Linux, and Looser) of ours: exec starts commands with it, lifecycle and
// methods make policies and cgroups with it.
package sandbox
