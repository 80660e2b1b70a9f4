package spool

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// A session's directory records each process group its commands run in, as
// <pgid>.group holding "<boot id> <leader's start time>", so that when the
// daemon dies without ending them (SIGKILL, OOM) the sweep of the next
// daemon can. The start time (in clock ticks since boot, /proc/PID/stat
// field 22) and the boot id tell the group apart from a later one that
// reuses the number: a reused pid is never signalled.

const groupSuffix = ".group"

// procStart identifies a process's incarnation: the boot and the start
// time.
type procStart struct {
	boot   string
	ticks  uint64
	zombie bool // exited, not yet reaped: nothing to end
}

// RecordGroup notes that the process group pgid, whose leader is running,
// belongs to this session. forget removes the note; call it once the group
// has been ended or has ended.
func (d *Dir) RecordGroup(pgid int) (forget func(), err error) {
	st, err := startOf(pgid)
	if err != nil {
		return nil, fmt.Errorf("spool: group %d: %w", pgid, err)
	}
	path := filepath.Join(d.path, strconv.Itoa(pgid)+groupSuffix)
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.removed {
		return nil, fmt.Errorf("spool: record group in %s: %w", d.path, ErrClosed)
	}
	if err := os.WriteFile(path, []byte(st.boot+" "+strconv.FormatUint(st.ticks, 10)+"\n"), 0o600); err != nil {
		return nil, fmt.Errorf("spool: %w", err)
	}
	return func() { os.Remove(path) }, nil
}

// endGroups kills (SIGKILL: no one is left to wait for them) what remains of
// the process groups recorded in dir, a dead daemon's session directory.
// It returns the records of the groups it found members of.
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

func readRecord(path string) (procStart, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return procStart{}, err
	}
	boot, ticks, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	n, err := strconv.ParseUint(ticks, 10, 64)
	if !ok || err != nil {
		return procStart{}, fmt.Errorf("spool: bad group record %s", path)
	}
	return procStart{boot: boot, ticks: n}, nil
}

// endGroup kills the members of group pgid that belong to the incarnation
// rec recorded: same boot, started no earlier than its leader. While any
// member lives the kernel gives no new process the number pgid, so a
// member of group pgid that started after the leader is the leader's
// descendant, unless the whole group ended and the number came round again
// to a new leader, which then has a later start time and is spared.
func endGroup(pgid int, rec procStart) []int {
	if rec.boot != bootID() {
		return nil // recorded before a reboot: nothing of it survives
	}
	if st, err := startOf(pgid); err == nil && st.ticks != rec.ticks {
		return nil // the number is another process's now
	}
	var killed []int
	for _, pid := range groupMembers(pgid) {
		if st, err := startOf(pid); err == nil && st.ticks >= rec.ticks && !st.zombie {
			if unix.Kill(pid, unix.SIGKILL) == nil {
				killed = append(killed, pid)
			}
		}
	}
	return killed
}

// groupMembers lists the processes whose process group is pgid.
func groupMembers(pgid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if g, err := unix.Getpgid(pid); err == nil && g == pgid {
			pids = append(pids, pid)
		}
	}
	return pids
}

// startOf reads a process's start time from /proc/PID/stat.
func startOf(pid int) (procStart, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStart{}, err
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields that follow start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStart{}, errors.New("malformed /proc stat")
	}
	fields := strings.Fields(string(b[i+1:]))
	// fields[0] is field 3 (state); the start time is field 22.
	if len(fields) < 20 {
		return procStart{}, errors.New("malformed /proc stat")
	}
	ticks, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return procStart{}, err
	}
	return procStart{boot: bootID(), ticks: ticks, zombie: fields[0] == "Z"}, nil
}

// bootID names this boot of the machine.
func bootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}
