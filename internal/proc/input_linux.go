package proc

import (
	"encoding/binary"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// How Linux tells that a command waits for input.
//
// What we must know is, for each process of the group: is it blocked, and
// blocked reading what we gave it (its terminal or its stdin pipe)? The
// candidates, cheapest first:
//
//   - /proc/PID/stat's state: 'S' for a read of the terminal, but also for
//     sleep(1), a network wait and `cat` reading a pipe from a sibling.
//     Necessary (an 'R' or 'D' task is busy), never sufficient.
//   - /proc/PID/wchan: the kernel function it sleeps in (wait_woken for a
//     terminal's read, anon_pipe_read for a pipe, do_epoll_wait), which
//     tells a terminal from a pipe but not which one: wait_woken is also a
//     socket's wait, and `sleep 6 | cat`'s cat reads a pipe exactly as a
//     command reading our stdin does. It is also "0" on kernels that hide
//     symbols.
//   - /proc/PID/syscall: the number of the system call the task is blocked
//     in and its arguments, "running" when it is not blocked. A read's
//     first argument is the fd, and /proc/PID/fd/N names the file: a stat
//     of it gives the terminal's device number or the pipe's inode, which
//     we compare with what the daemon handed the command. That answers the
//     question itself, not a proxy of it: a read of *our* terminal or
//     *our* pipe. A poll, select or epoll wait is answered from the fd set
//     it waits on (the set's memory at the argument's address, or the
//     epoll fd's fdinfo), so REPLs and full-screen programs, which wait
//     that way, are found too. wait4/waitid is a shell waiting for its
//     child, which is itself a member: it neither makes nor spoils the
//     answer.
//
// /proc/PID/syscall costs one small read per task, and the daemon may read
// it: same user, and the daemon is the command's ancestor (what Yama's
// ptrace_scope 1 asks); in a sandbox's user namespace the daemon, which
// made the namespace, holds every capability over it. It is kept from us
// for a setuid program run by another user (sudo as a user): Input's
// PasswordMode then stands in (a foreground task asleep while the terminal
// reads without echo: a password prompt).
//
// A wait that also watches a socket (ssh, nc) is not called waiting for
// input: its peer may answer first.
//
// The group's members are the leader's descendants (task/*/children), the
// cheap walk; a positive answer is checked against every process of the
// group found by a scan of /proc, so that a member that left the tree (its
// parent died) is not missed.

// A task's verdict.
type verdict int

const (
	other   verdict = iota // blocked on something else: the group does not wait for input
	busy                   // running, or in uninterruptible sleep
	neutral                // waits for a child, or is stopped or gone: no say
	reads                  // blocked reading the input
)

// kinds of system calls a task can be blocked in.
type callKind int

const (
	callOther  callKind = iota
	callRead            // fd in the first argument
	callPoll            // struct pollfd *fds, nfds
	callSelect          // nfds, fd_set *readfds
	callEpoll           // epfd in the first argument
	callWait            // a child's exit
)

// pollRdNorm is POLLRDNORM, which golang.org/x/sys does not name (the
// same bit on every Linux target).
const pollRdNorm = 0x40

// maxFDs bounds the fds read from a poll set or a select bitmap.
const maxFDs = 4096

// ttyDev is /dev/tty's device number (5, 0): the calling process's
// controlling terminal, whichever it is.
var ttyDev = unix.Mkdev(5, 0)

func waitingForInput(pgid int, in Input) bool {
	if pgid <= 0 || in.TTY == 0 && in.PipeIno == 0 {
		return false
	}
	if !groupReads(descendants(pgid), pgid, in) {
		return false
	}
	return groupReads(groupScan(pgid), pgid, in)
}

// groupReads reports whether the processes pids (those of group pgid
// count) wait for input: at least one reads it, and none is busy or
// blocked on something else.
func groupReads(pids []int, pgid int, in Input) bool {
	any := false
	for _, pid := range pids {
		switch processVerdict(pid, pgid, in) {
		case busy, other:
			return false
		case reads:
			any = true
		}
	}
	return any
}

// stat is what the input check needs of /proc/PID/stat.
type stat struct {
	state   byte
	pgrp    int
	ttyNr   uint64
	tpgid   int
	threads int
}

// readStat reads /proc/<path>/stat (path is "PID" or "PID/task/TID").
func readStat(path string) (stat, bool) {
	f, err := statFields(path)
	if err != nil {
		return stat{}, false
	}
	// f[0] is field 3 (state), f[2] field 5 (pgrp), f[4] field 7
	// (tty_nr), f[5] field 8 (tpgid), f[17] field 20 (num_threads).
	if len(f) < 18 {
		return stat{}, false
	}
	var s stat
	var err1, err2, err3, err4 error
	s.state = f[0][0]
	s.pgrp, err1 = strconv.Atoi(f[2])
	s.ttyNr, err2 = strconv.ParseUint(f[4], 10, 64)
	s.tpgid, err3 = strconv.Atoi(f[5])
	s.threads, err4 = strconv.Atoi(f[17])
	if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
		return stat{}, false
	}
	return s, true
}

// processVerdict judges process pid: neutral when it is not of group
// pgid, has exited or is stopped; else what its tasks say (one reading the
// input makes it read, unless another runs).
func processVerdict(pid, pgid int, in Input) verdict {
	p := strconv.Itoa(pid)
	st, ok := readStat(p)
	if !ok || st.pgrp != pgid {
		return neutral // gone, or left the group
	}
	if v, done := stateVerdict(st.state); done {
		return v
	}
	if st.threads <= 1 {
		return taskVerdict(p, p, st, in)
	}
	tasks, err := os.ReadDir("/proc/" + p + "/task")
	if err != nil {
		return neutral // it exited meanwhile
	}
	out := neutral
	for _, t := range tasks {
		tp := p + "/task/" + t.Name()
		tst, ok := readStat(tp)
		if !ok {
			continue
		}
		if v, done := stateVerdict(tst.state); done {
			if v == busy {
				return busy
			}
			continue
		}
		switch taskVerdict(p, tp, st, in) {
		case busy:
			return busy
		case reads:
			out = reads
		case other:
			if out == neutral {
				out = other
			}
		}
	}
	return out
}

// stateVerdict is what a task's state alone says: done is false for a
// task asleep (S), which its system call must tell about.
func stateVerdict(state byte) (v verdict, done bool) {
	switch state {
	case 'S':
		return 0, false
	case 'T', 't', 'Z', 'X', 'x':
		return neutral, true // stopped (job control, a tracer) or exited
	case 'I':
		return other, true // an idle kernel thread: not ours
	default:
		return busy, true // R, D, W, P...
	}
}

// taskVerdict judges the task whose /proc directory is tp, of process p
// (whose stat is st), from the system call it is blocked in.
func taskVerdict(p, tp string, st stat, in Input) verdict {
	b, err := os.ReadFile("/proc/" + tp + "/syscall")
	if err != nil {
		// Kept from us (EACCES, EPERM: a setuid program), or gone.
		if os.IsPermission(err) && in.PasswordMode != nil && in.TTY != 0 &&
			st.ttyNr == in.TTY && st.tpgid == st.pgrp && in.PasswordMode() {
			return reads
		}
		return other
	}
	f := strings.Fields(string(b))
	if len(f) == 0 || f[0] == "running" {
		return busy
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil || nr < 0 || len(f) < 3 {
		return other // -1: blocked, but not in a system call
	}
	args := make([]uint64, 0, 6)
	for _, a := range f[1:min(len(f), 7)] {
		v, err := strconv.ParseUint(strings.TrimPrefix(a, "0x"), 16, 64)
		if err != nil {
			return other
		}
		args = append(args, v)
	}
	fds := fdReader{pid: p, ttyNr: st.ttyNr, in: in}
	switch calls[nr] {
	case callWait:
		return neutral
	case callRead:
		if fds.kind(int(int32(args[0]))) == fdInput {
			return reads
		}
	case callPoll:
		return fds.judge(pollSet(p, args))
	case callSelect:
		return fds.judge(selectSet(p, args))
	case callEpoll:
		return fds.judge(epollSet(p, int(int32(args[0]))))
	}
	return other
}

// fdKind is what an fd of a process is to us.
type fdKind int

const (
	fdOther  fdKind = iota
	fdInput         // our terminal or our stdin pipe
	fdSocket        // a socket: a network wait
)

// fdReader tells the fds of process pid.
type fdReader struct {
	pid   string
	ttyNr uint64 // the process's controlling terminal
	in    Input
}

// kind stats fd through /proc (the file it is open on, not a path).
func (r fdReader) kind(fd int) fdKind {
	if fd < 0 {
		return fdOther
	}
	var st unix.Stat_t
	if unix.Stat("/proc/"+r.pid+"/fd/"+strconv.Itoa(fd), &st) != nil {
		return fdOther
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFCHR:
		// The terminal itself, or /dev/tty opened by a process whose
		// controlling terminal it is (getpass, less, ssh's prompts).
		rdev := uint64(st.Rdev) // uint32 on some targets
		if r.in.TTY != 0 && (rdev == r.in.TTY || rdev == ttyDev && r.ttyNr == r.in.TTY) {
			return fdInput
		}
	case unix.S_IFIFO:
		if r.in.PipeIno != 0 && uint64(st.Ino) == r.in.PipeIno && uint64(st.Dev) == r.in.PipeDev {
			return fdInput
		}
	case unix.S_IFSOCK:
		return fdSocket
	}
	return fdOther
}

// judge is the verdict of a task waiting on the fds set (those it waits
// to read): it reads the input when one of them is, unless one is a
// socket.
func (r fdReader) judge(set []int) verdict {
	v := other
	for _, fd := range set {
		switch r.kind(fd) {
		case fdSocket:
			return other
		case fdInput:
			v = reads
		}
	}
	return v
}

// pollSet reads the fds that poll/ppoll(fds, nfds, ...) waits to read
// from the task's memory.
func pollSet(pid string, args []uint64) []int {
	n := min(args[1], maxFDs)
	if n == 0 {
		return nil
	}
	b := readMem(pid, args[0], int(n)*8)
	var set []int
	for i := 0; i+8 <= len(b); i += 8 {
		fd := int32(binary.NativeEndian.Uint32(b[i:]))
		events := binary.NativeEndian.Uint16(b[i+4:])
		if events&(unix.POLLIN|unix.POLLPRI|pollRdNorm) != 0 {
			set = append(set, int(fd))
		}
	}
	return set
}

// selectSet reads the fds that select/pselect6(nfds, readfds, ...) waits
// to read from the task's memory: a bitmap of longs.
func selectSet(pid string, args []uint64) []int {
	n := min(args[0], maxFDs)
	if n == 0 || args[1] == 0 {
		return nil
	}
	words := (int(n) + 63) / 64
	b := readMem(pid, args[1], words*8)
	var set []int
	for fd := 0; fd < int(n) && fd/8 < len(b); fd++ {
		// A little-endian long's bit k is byte k/8's bit k%8; Linux's
		// 64-bit targets here are little-endian (see calls).
		if b[fd/8]&(1<<(fd%8)) != 0 {
			set = append(set, fd)
		}
	}
	return set
}

// epollSet reads the fds an epoll instance watches for reading from its
// fdinfo ("tfd: N events: HEX ...").
func epollSet(pid string, epfd int) []int {
	if epfd < 0 {
		return nil
	}
	b, err := os.ReadFile("/proc/" + pid + "/fdinfo/" + strconv.Itoa(epfd))
	if err != nil {
		return nil
	}
	var set []int
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "tfd:" || f[2] != "events:" || len(set) >= maxFDs {
			continue
		}
		fd, err1 := strconv.Atoi(f[1])
		ev, err2 := strconv.ParseUint(f[3], 16, 32)
		if err1 == nil && err2 == nil && ev&(unix.EPOLLIN|unix.EPOLLPRI|unix.EPOLLRDNORM) != 0 {
			set = append(set, fd)
		}
	}
	return set
}

// readMem reads n bytes of process pid's memory at addr; nil when it
// cannot.
func readMem(pid string, addr uint64, n int) []byte {
	if addr == 0 || n <= 0 {
		return nil
	}
	f, err := os.Open("/proc/" + pid + "/mem")
	if err != nil {
		return nil
	}
	defer f.Close()
	b := make([]byte, n)
	k, _ := f.ReadAt(b, int64(addr))
	return b[:k]
}

// descendants lists leader pgid and its descendants, from the kernel's
// children lists; a scan of the group where the kernel has none.
func descendants(pgid int) []int {
	if _, err := os.Stat("/proc/" + strconv.Itoa(pgid) + "/task/" + strconv.Itoa(pgid) + "/children"); err != nil {
		return groupScan(pgid)
	}
	out := []int{pgid}
	for i := 0; i < len(out) && i < 4096; i++ {
		p := strconv.Itoa(out[i])
		tasks, err := os.ReadDir("/proc/" + p + "/task")
		if err != nil {
			continue
		}
		for _, t := range tasks {
			b, err := os.ReadFile("/proc/" + p + "/task/" + t.Name() + "/children")
			if err != nil {
				continue
			}
			for c := range strings.FieldsSeq(string(b)) {
				if pid, err := strconv.Atoi(c); err == nil {
					out = append(out, pid)
				}
			}
		}
	}
	return out
}

// groupScan lists the processes of group pgid from a scan of /proc.
func groupScan(pgid int) []int {
	var out []int
	for _, pid := range Pids() {
		if st, ok := readStat(strconv.Itoa(pid)); ok && st.pgrp == pgid {
			out = append(out, pid)
		}
	}
	return out
}
