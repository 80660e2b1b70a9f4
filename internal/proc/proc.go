package proc

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Start identifies one incarnation of a pid: the boot and the start time.
type Start struct {
	Boot string // /proc/sys/kernel/random/boot_id
	// Ticks is the start time in clock ticks since boot (/proc/PID/stat
	// field 22).
	Ticks uint64
}

// Info is what Stat reads of a process.
type Info struct {
	Start
	PGID   int
	Zombie bool // exited, not yet reaped
}

// ErrMalformed is returned for a /proc/PID/stat that does not parse.
var ErrMalformed = errors.New("proc: malformed /proc/PID/stat")

// Stat reads pid's /proc/PID/stat.
func Stat(pid int) (Info, error) {
	f, err := statFields(strconv.Itoa(pid))
	if err != nil {
		return Info{}, err
	}
	// f[0] is field 3 (state), f[2] field 5 (pgrp), f[19] field 22 (start).
	if len(f) < 20 {
		return Info{}, ErrMalformed
	}
	pgid, err1 := strconv.Atoi(f[2])
	ticks, err2 := strconv.ParseUint(f[19], 10, 64)
	if err1 != nil || err2 != nil {
		return Info{}, ErrMalformed
	}
	return Info{Start: Start{Boot: BootID(), Ticks: ticks}, PGID: pgid, Zombie: f[0] == "Z"}, nil
}

// statFields reads /proc/<path>/stat (path is "PID" or "PID/task/TID")
// and returns its fields from the third (the state) on.
func statFields(path string) ([]string, error) {
	var buf [512]byte
	b, err := readFile("/proc/"+path+"/stat", buf[:0])
	if err != nil {
		return nil, err
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields that follow start after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil, ErrMalformed
	}
	return strings.Fields(string(b[i+1:])), nil
}

// BootID names this boot of the machine ("" where /proc does not say).
// It is read once: a process lives in one boot.
func BootID() string { return bootID() }

var bootID = sync.OnceValue(func() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
})

// readFile appends the file at path to buf, read with a system call each
// to open, read and close it: os.ReadFile's File also asks for its flags
// (twice), tries the poller, and stats it, a dozen calls in all, and exec
// reads /proc a few times for each command.
func readFile(path string, buf []byte) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// Pids lists every process's pid.
func Pids() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	pids := make([]int, 0, len(entries))
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			pids = append(pids, pid)
		}
	}
	return pids
}

// Live lists the processes that have not exited, started no earlier than
// since (same boot), that are in group pgid (when pgid > 0) or whose
// environment holds env (when env, a "NAME=value" entry, is not ""). Processes of other users
// keep their environment unreadable and are not found by it.
func Live(since Start, pgid int, env string) []int {
	var pids []int
	for _, pid := range Pids() {
		info, err := Stat(pid)
		if err != nil || info.Zombie || info.Boot != since.Boot || info.Ticks < since.Ticks {
			continue
		}
		if pgid > 0 && info.PGID == pgid {
			pids = append(pids, pid)
			continue
		}
		if env == "" {
			continue
		}
		if has, _ := HasEnv(pid, env); has {
			pids = append(pids, pid)
		}
	}
	return pids
}

// HasEnv reports whether pid's environment holds the entry env. ok is
// false when the environment could not be read, or read empty, as it does
// for a moment while the process is in execve.
func HasEnv(pid int, env string) (has, ok bool) {
	b, err := readFile("/proc/"+strconv.Itoa(pid)+"/environ", make([]byte, 0, 4096))
	if err != nil || len(b) == 0 {
		return false, false
	}
	for entry := range bytes.SplitSeq(b, []byte{0}) {
		if string(entry) == env {
			return true, true
		}
	}
	return false, true
}

// Children lists the children of this process, of all its threads (a
// child belongs to the thread that forked it, or that adopted it), from
// /proc/self/task/*/children. ok is false where the kernel does not
// provide those files.
//
// exec reads them twice for each command (its end, and the reaper's turn
// on SIGCHLD), so they are read with a system call each to open, read and
// close a file, into one buffer.
func Children() (pids []int, ok bool) {
	return ChildrenOf(os.Getpid())
}

// ChildrenOf lists the children of process pid, of all its threads, as
// Children does for this process.
func ChildrenOf(pid int) (pids []int, ok bool) {
	proc := "/proc/" + strconv.Itoa(pid)
	tasks, err := taskIDs(proc)
	if err != nil {
		return nil, false
	}
	main := strconv.Itoa(pid)
	var buf [256]byte
	for _, t := range tasks {
		b, err := readFile(proc+"/task/"+t+"/children", buf[:0])
		if err != nil {
			if t == main {
				return nil, false // the main thread's is always there, if any is
			}
			continue // the thread ended meanwhile
		}
		for f := range strings.FieldsSeq(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
	}
	return pids, true
}

// taskIDs lists the threads of the process at proc ("/proc/PID"): its
// task directory.
func taskIDs(proc string) ([]string, error) {
	fd, err := unix.Open(proc+"/task", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var names []string
	var buf [4096]byte
	for {
		n, err := unix.ReadDirent(fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n == 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}
