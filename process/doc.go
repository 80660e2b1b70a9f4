// Package process owns the commands that outlive the call that started
// them: a session's table of background processes, each run by exec.Runner
// with its output spooled from the first byte, and what a later call may
// ask of one — the output since a read cursor, a wait for its exit, for a
// line that matches a pattern or for its output to go idle, input on its
// stdin, a signal, and its exit status.
//
// # Why a package of its own
//
// exec runs one command to its end and knows nothing of sessions; methods
// shapes requests and results, and the only state it holds between calls
// is the daemon's record of what sessions read for ifChanged (package
// seen's Store, an LRU of line hashes of at most 64 MiB), nothing of a
// session's commands. A background process is state between calls: a table
// bound to one session (ids mean nothing in another; table.go), a
// per-process cursor, exit statuses kept after exit until the session ends,
// and a limit on how many run at once (DefaultLimit). That state and its
// locking live here, under the session, above exec (proc.go: a Proc is the
// exec.Observer of its command).
//
// # Output and cursors
//
// Every byte of each stream goes to its spool file (exec.Spec.SpoolAll)
// before the process is told of it (exec.Observer), so the count it keeps
// per stream is the length of the spool that can be read (read.go). A Cursor is a
// pair of byte offsets into the two streams' output; a read returns what
// lies between a cursor and the ends counted at that moment and moves the
// process's own cursor there, so reads that follow one another return every
// byte exactly once. The preview of a read is the caller's business (Span
// gives it the first and last bytes, the line count, the spool and, when
// asked, what a capture's clean-up and highlight detector find in the span,
// read back from the spool a block at a time: preview.ScanRange). Wait (wait.go)
// waits for the exit, a line that matches a pattern or idle output.
//
// # Waiting for input
//
// Each process has a watcher (input.go) that, once its output has been
// quiet for a moment, asks exec whether its group waits for input, and
// notes so with its last line as the prompt: exec returns then, a Wait
// returns ReasonInput, and read and list say so. Output or a Write clears
// it. On a terminal Write types (a newline is the Enter key's carriage
// return; close is Ctrl-D) and Resize sets its size. A session has at most
// MaxTerminals processes on terminals.
//
// # Ownership
//
// A Table owns its processes and their goroutines (a Run and a watcher
// each): Close ends every process's group (SIGTERM, then SIGKILL after
// 2 s, as exec does) and returns once each Run and watcher has returned.
// The spool files belong to the session's spool directory, which the
// session removes after Close.
package process
