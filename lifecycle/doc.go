// Package lifecycle owns the daemon's sessions and its life: one session per
// connection, initialize and its limits, session/close, shutdown and exit
// with LSP's exit codes, stats, the clean-up that a disconnect or a signal
// triggers, and the sweep of what dead daemons left (spool directories and
// TMPDIRs, session cgroups). It serves stdio (stdio.go) and the shared
// daemon's socket (socket.go: only the daemon's own uid may connect,
// internal/peercred). It makes what the daemon's sessions share: the file
// index, the search index (index), the process runner (exec), the spool
// manager, and ctags pinned before any command runs (outline.PinCtags); and
// what each session holds: its spool directory, its table of background
// processes (process.Table), its cgroup.
//
// A session's sandbox policy is made here (sandbox.go) from initialize's
// params and the daemon's --sandbox (the floor), its dirs resolved once
// (the params' errors are here; the policy's rules, what a mode allows and
// what is looser, are sandbox's); it never gets looser at a re-initialize;
// the session's launcher is started at initialize
// (exec.Runner.PrepareSandbox).
//
// It wires a connection (package rpc) to the working methods (package
// methods) and holds nothing of their logic.
//
// Order: a client's requests run concurrently, but the lifecycle methods
// (initialize, session/close, shutdown, exit) run on the read loop, and
// every other request is admitted there too (rpc.Server.Admit): refused if
// it came after shutdown, else registered in flight on its session. So what
// a client pipes is judged in the order it wrote it: a read before shutdown
// is answered, an exec before session/close is cancelled by it.
// session/close, shutdown (after the drain time), exit and the end of input
// cancel what runs and wait for its replies.
package lifecycle
