package spool

import (
	"errors"
	"fmt"
	"io/fs"
)

var (
	// ErrUnsafeRoot is wrapped by NewManager's error when the root is not a
	// directory of ours that no one else can enter (a symlink, owned by
	// another uid, or with group or other permissions).
	ErrUnsafeRoot = errors.New("directory is not private")
	// ErrClosed is wrapped by the errors of a closed Manager's Open and of a
	// removed Dir's Create.
	ErrClosed = errors.New("spool closed")
	// ErrBadName is wrapped when a session or stream name is not made of
	// letters, digits, '_' and '-' only.
	ErrBadName = errors.New("bad spool name")
	// ErrNoSpool is wrapped by Dir.Open's error for an id the session never
	// had, or after Remove. errors.Is(err, fs.ErrNotExist) holds too: what
	// reads a spool back counts a missing one as bytes not kept.
	ErrNoSpool error = notThere("no such spool")
	// ErrEvicted is what an *EvictedError is: a spool deleted to keep its
	// session under a quota.
	ErrEvicted = errors.New("spool evicted")
	// ErrReplaced is wrapped by Dir.Open's error when the spool's name leads
	// to another file than the one written (a symlink or a file planted over
	// it).
	ErrReplaced = errors.New("spool file replaced")
)

// EvictedError is Find's and Open's error for a spool evicted to keep the
// spools under a quota; errors.Is(err, ErrEvicted) holds.
type EvictedError struct {
	// Daemon is true when the daemon's quota evicted it, false for the
	// session's.
	Daemon bool
	// Quota is that quota, in bytes.
	Quota int64
}

func (e *EvictedError) Error() string {
	whose := "session"
	if e.Daemon {
		whose = "daemon"
	}
	return fmt.Sprintf("spool evicted: past the %s's quota of %d bytes", whose, e.Quota)
}

// Is makes errors.Is(err, ErrEvicted) hold, and errors.Is(err,
// fs.ErrNotExist): an evicted spool is not there to read.
func (e *EvictedError) Is(target error) bool { return target == ErrEvicted || target == fs.ErrNotExist }

// notThere is an error that errors.Is counts as fs.ErrNotExist.
type notThere string

func (e notThere) Error() string { return string(e) }

// Is makes errors.Is(err, fs.ErrNotExist) hold.
func (notThere) Is(target error) bool { return target == fs.ErrNotExist }
