// Package spool owns the daemon's spool: the files that keep the complete raw
// output of commands whose preview was cut, so that a client can page them.
//
// A Manager owns one root directory, the user's alone (0700), shared by every
// daemon of that user. Each daemon holds an exclusive flock on root/<pid>.lock
// for its life and keeps one directory root/<pid>-<session> per session; a
// daemon that starts sweeps away the directories of daemons that died (their
// lock can be taken, or, with no lock file, their pid is gone). A Dir hands out
// files named by 128 random bits, so ids can neither be guessed nor used from
// another session. A File never fails its writer: it keeps the first write
// error and stops, and stops at a size cap; the command's preview goes on.
package spool
