// Package exec owns the commands that the exec method runs: starting them in
// a process group of their own, feeding their stdin, ending the whole group
// on timeout, cancel or Close (SIGTERM, then SIGKILL after KillDelay, 2 s),
// and capturing stdout and stderr as bounded head/tail previews while the
// complete raw output streams to a spool file. An Observer (observe.go;
// Meter counts for progress) follows a command while it runs. Runner.Start
// (helper.go) starts a helper of the daemon's own, such as ctags, as a
// child the orphan reaper leaves to os/exec.
//
// Its files, an idea each: exec.go (Spec, Result, the Runner and Run),
// command.go (the program a Spec names: its path in the command's own PATH,
// argv, cwd), pipes.go (its stdio pipes; pipe_linux.go and pipe_bsd.go the
// ioctls), run.go (a started command: the goroutines that read its output
// and feed its stdin, the wait for its leader, the drain of its output, how
// it ended), group.go (ending its process group, and what left the group:
// the marker, the group's record, AdoptOrphans), capture.go (a stream's
// bounded capture and its spooling), scan.go (the scanner beside each
// stream's reader), tty.go (a command's own terminal; termios_linux.go and
// termios_bsd.go), warm.go (a sandboxed command's start), cgroup_linux.go
// (the start in a session's cgroup) and wait_linux.go (the wait in the
// poller), each with its _other.go where Linux's has none elsewhere.
//
// The clean-up and the highlight detector run on a goroutine per stream
// beside the reader (scan.go), so that the pipe copy and the detector each
// have a core: once the spool holds the whole output the detector reads it
// back from the spool file at its own pace, and the reads never wait for it.
// Past its first MiB, the detector's state machine runs on one more
// goroutine (highlight.Parallel), the classification of the lines staying
// on the scanner's: once the copy is done, both cores search.
//
// The clean-up and detector (preview.LineScan) and the preview made from
// what the detector found (preview.Found) are package preview's, which the
// process methods use too for output read back from a spool.
//
// A command may instead run on a pseudo-terminal of its own (Spec.TTY,
// tty.go, with github.com/creack/pty): the master is then its one output
// stream and its input, and the Observer that is an InputObserver gets
// its Input: the terminal's size and echo, and whether the command waits
// for input (internal/proc.WaitingForInput on its group, against the
// terminal or the stdin pipe it was given). At most MaxTerminals are open
// at once in a Runner.
//
// A sandboxed command (Spec.Sandbox) starts through its session's sandbox
// (warm.go): a launcher of package sandbox, kept by the Runner's
// sandbox.Pool and started by PrepareSandbox at initialize, in the
// session's namespaces and restricted to its policy, forks each command as
// the daemon's child and hands back its pidfd; so a sandboxed Run costs
// about what an unsandboxed one does, and EndSandbox ends the launcher and
// every process left in the session's PID namespace.
// A command with a Spec.Cgroup starts in the session's cgroup from its
// first instruction (cgroup_linux.go: clone3's CLONE_INTO_CGROUP).
//
// It owns every process, pipe and goroutine it starts: none outlives
// Runner.Close. A command's exit is waited for in the runtime's poller (a
// pidfd, wait_linux.go), not by a thread blocked in waitid, and what is
// not part of the reply (the group's record, the look for descendants that
// left the group, the reaper's listing of the daemon's children) runs
// beside the command or after the reply's path: exec of true is bash's own
// cost and little more. It does not know sessions or JSON-RPC: the caller
// hands it the complete environment and a function that opens spool
// files, and maps the Result to the protocol.
//
// # Why not Cmd.Cancel and Cmd.WaitDelay
//
// The pipes are ours (os.Pipe, the write ends handed to the child as files),
// so os/exec starts no copying goroutines and WaitDelay, which only bounds
// those and then kills the leader, has nothing to do. Cmd.Cancel runs once, on
// the context only, and knows nothing of the group once the leader is reaped;
// we need the same escalation (SIGTERM to -pgid, SIGKILL 2 s later if anything
// of the group is left) for timeout, cancel and Close, and also after a normal
// exit when a background child still holds the output open. So Run watches
// the leader itself and signals the group.
//
// # Without a child subreaper (macOS, FreeBSD; on Linux -tags toold_portable)
//
// The group is ended whole everywhere: kill(-pgid) is POSIX. What leaves it
// is another matter (group.go, and package orphans' Reaper, which the
// Runner holds): on Linux the daemon is a child subreaper, so a
// descendant that called setsid (set -m, a daemonizing tool, a double
// fork) comes back to it when its parent dies, carrying the command's
// marker in its environment, and is ended with the command; the spool
// records each group with its leader's start time, so the next daemon ends
// what a killed one left. Elsewhere AdoptOrphans fails (CanAdoptOrphans is
// false): such descendants go to init and outlive the command, the session
// and the daemon, and off Linux a daemon killed by SIGKILL leaves its
// commands running (no /proc to record a group's incarnation; only the
// spools are swept). A command that stays in its group, which most do,
// loses nothing.
package exec
