// Package spool owns the daemon's spool: the files that keep the complete raw
// output of commands whose preview was cut, so that a client can page them.
//
// A Manager owns one root directory, the user's alone (0700), shared by every
// daemon of that user. Each daemon holds an exclusive flock on root/<pid>.lock
// for its life and keeps one directory root/<pid>-<session> per session; a
// daemon that starts sweeps away the directories of daemons that died (their
// lock can be taken, or, with no lock file, their pid is gone), and first
// kills what is left of the process groups those directories record
// (groups.go: a session's directory notes each group its commands run in,
// RecordGroup, with the leader's start time and boot id so that a reused
// pid is never signalled, and an environment marker that finds descendants
// that left the group): a daemon killed outright (SIGKILL, OOM) leaves its
// commands running, and the next one ends them. A Dir hands out
// files named by 128 random bits, so ids can neither be guessed nor used from
// another session. A File never fails its writer: it keeps the first write
// error and stops, and stops at a size cap; the command's preview goes on.
//
// Quotas bound the disk (often tmpfs, that is RAM): a session's files
// together (SessionQuota) and every session's (DaemonQuota); the daemon sets
// protocol's defaults, 1 GiB and 4 GiB.
// A write past either evicts the writing session's oldest files, never
// another session's, and is cut when nothing is left to evict; an evicted id
// stays known, so that paging it says why it is gone.
//
// A sandboxed session's TMPDIR is a TempDir: <pid>-<session>.tmp beside its
// spool directory, swept with it; when the root was refused, a directory
// of its own in the system's temporary directory, which its daemon flocks
// while it lives, so that SweepTempDirs, at a later daemon's start, removes
// those of daemons that died (the flock ends with its holder, whatever
// became of the pid) and no other.
//
// Dir.Open reads a spool back: it opens without following a symlink and
// checks that the inode is the one written, since the commands that wrote
// it can write in the spool directory too.
//
// DefaultRoot is RuntimeDir()/toold-<uid>: the runtime directory the system
// gives the uid (/run/user/<uid>; on macOS the user's temporary directory
// under /var/folders, userdir_darwin.go), found whatever the environment
// says, since clients may strip it (then XDG_RUNTIME_DIR, then the
// temporary directory; TOOLD_RUNTIME_DIR overrides them all); the shared
// daemon's socket and log go there too. A session's directories are
// removed also when a command left one it may not enter (remove_*.go).
//
// The files, one idea each: root.go where the root is, that it is private,
// its lock; spool.go the Manager (open, close, the sweep of dead daemons'
// directories); dir.go a session's Dir; file.go a File written; quota.go
// the quotas' reservations and evictions; errors.go the errors;
// groups.go the process groups a Dir records and the sweep ends;
// tempdir.go the TMPDIRs; remove_*.go the removal of what a command left.
//
// A root that cannot be made (no permission, no inodes) does not stop the
// daemon: Start returns a Manager that tries again at each session, whose
// Dirs meanwhile cannot create files, so that exec gives its previews with
// a notice and read needs no spool at all.
package spool
