// Package orphans finds and ends the descendants of a command that left
// its process group (setsid, set -m, a daemonizing tool, a double fork),
// which the group's kill misses. Two things find them:
//
//   - a marker, MarkerVar=<random id> (Mark), in every command's
//     environment, which descendants inherit wherever they move (Jenkins
//     finds a build's processes the same way);
//   - the process as a child subreaper (Reaper.Adopt, Linux's
//     PR_SET_CHILD_SUBREAPER; subreaper_linux.go): a descendant whose
//     parent dies comes back to it instead of init, so its own children
//     (and a sandboxed command's PID namespace's init's) are the only
//     candidates to look at (Reaper.Escaped, SignalEscaped), and the
//     Reaper reaps them.
//
// A subreaper reaps every child that exits, so each child the process
// starts on purpose is named to the Reaper around its fork (Forking, or
// Spawning for a sandbox launcher's command, whose pid comes later) and
// forgotten once os/exec has waited for it (Waited): the reaper never
// steals such a wait. ExitedChild (exited_linux.go: one waitid with
// WNOWAIT) spares the listing of /proc when no child has exited.
//
// It is its own package because the reaper is the process's, not a
// command's: exec's Runner holds one and starts through it every child of
// the daemon (commands, helpers such as ctags, sandbox launchers), and
// ends a command's escaped descendants with its group. The marker is also
// written with the group's record (exec's Spec.Groups), so that the spool
// sweep after a daemon's death ends escaped descendants too. Off Linux, and
// with -tags toold_portable, there is no subreaper (CanAdopt is false,
// subreaper_other.go): Adopt fails with errors.ErrUnsupported and escaped
// descendants outlive their command. It imports internal/proc only.
package orphans
