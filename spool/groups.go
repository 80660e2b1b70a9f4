package spool

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/proc"
)

// A session's directory records each process group its commands run in, as
// <pgid>.group holding "<boot id> <leader's start time> [<env marker>]", so
// that when the daemon dies without ending them (SIGKILL, OOM) the sweep of
// the next daemon can. The start time (clock ticks since boot) and the boot
// id tell the group apart from a later one that reuses the number: a
// process that started before the leader, or in another boot, is never
// signalled. The marker, an environment entry the command was started
// with, finds its descendants that left the group (setsid, set -m).

const groupSuffix = ".group"

// groupRecord is one <pgid>.group file.
type groupRecord struct {
	start proc.Start
	env   string // "NAME=value", or ""
}

// RecordGroup notes that the process group pgid, whose leader is running,
// belongs to this session, and that its processes carry env ("NAME=value",
// or "" for none) in their environment. forget removes the note; call it
// once the group has been ended or has ended.
func (d *Dir) RecordGroup(pgid int, env string) (forget func(), err error) {
	if strings.ContainsAny(env, " \n") {
		return nil, fmt.Errorf("spool: group marker %q: %w", env, ErrBadName)
	}
	info, err := proc.Stat(pgid)
	if err != nil {
		return nil, fmt.Errorf("spool: group %d: %w", pgid, err)
	}
	line := strings.TrimSpace(fmt.Sprintf("%s %d %s", info.Boot, info.Ticks, env)) + "\n"
	path := filepath.Join(d.path, strconv.Itoa(pgid)+groupSuffix)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.removed {
		return nil, fmt.Errorf("spool: record group in %s: %w", d.path, ErrClosed)
	}
	if err := writeSmall(path, line); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	return func() { unix.Unlink(path) }, nil
}

// writeSmall writes a file of one short line, a system call each to
// create, write and close it: os.WriteFile's File also asks for its flags,
// tries the poller and stats it, and a record is written for every
// command.
func writeSmall(path, line string) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return &os.PathError{Op: "open", Path: path, Err: err}
	}
	n, err := unix.Write(fd, []byte(line))
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err == nil && n < len(line) {
		err = io.ErrShortWrite
	}
	if err != nil {
		return &os.PathError{Op: "write", Path: path, Err: err}
	}
	return nil
}

// endGroups kills (SIGKILL: no one is left to wait for them) what remains of
// the process groups recorded in dir, a dead daemon's session directory.
// It returns the records of the groups it found processes of.
func endGroups(dir string) []string {
	names, _ := filepath.Glob(filepath.Join(dir, "*"+groupSuffix))
	var ended []string
	for _, name := range names {
		pgid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(name), groupSuffix))
		if err != nil || pgid <= 1 {
			continue
		}
		rec, err := readRecord(name)
		if err != nil {
			continue
		}
		if len(endGroup(pgid, rec)) > 0 {
			ended = append(ended, name)
		}
	}
	return ended
}

// maxRecord bounds what is read of a group record: a boot id, a tick
// count and a marker are some 100 bytes.
const maxRecord = 512

// readRecord reads a record the way every file a command could have put
// in a session's directory must be read: without following a symlink
// (to /dev/zero, read without end) nor blocking (on a FIFO, read for
// good: the next daemon's start would hang in its sweep), a regular file
// only, and a bounded part of it.
func readRecord(path string) (groupRecord, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return groupRecord{}, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return groupRecord{}, fmt.Errorf("spool: group record %s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxRecord))
	if err != nil {
		return groupRecord{}, err
	}
	fields := strings.Fields(string(b))
	if len(fields) < 2 || len(fields) > 3 {
		return groupRecord{}, fmt.Errorf("spool: bad group record %s", path)
	}
	ticks, err := strconv.ParseUint(fields[1], 10, 64)
	if err != nil {
		return groupRecord{}, fmt.Errorf("spool: bad group record %s", path)
	}
	rec := groupRecord{start: proc.Start{Boot: fields[0], Ticks: ticks}}
	if len(fields) == 3 {
		rec.env = fields[2]
	}
	return rec, nil
}

// endGroup kills the processes of the incarnation of group pgid that rec
// recorded: in the group or carrying its marker, started no earlier than
// its leader, in the same boot. While any member lives the kernel gives no
// new process the number pgid, so a member of group pgid that started
// after the leader is the leader's descendant, unless the whole group ended
// and the number came round again to a new leader: that leader has another
// start time, and then only the marker is trusted.
func endGroup(pgid int, rec groupRecord) []int {
	if rec.start.Boot != proc.BootID() {
		return nil // recorded before a reboot: nothing of it survives
	}
	if info, err := proc.Stat(pgid); err == nil && info.Ticks != rec.start.Ticks {
		pgid = 0 // the number is another process's now: no group, only the marker
	}
	var killed []int
	for _, pid := range proc.Live(rec.start, pgid, rec.env) {
		if unix.Kill(pid, unix.SIGKILL) == nil {
			killed = append(killed, pid)
		}
	}
	return killed
}
