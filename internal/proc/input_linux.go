package proc

import (
	"encoding/binary"
	"os"
	"slices"
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
// input: its peer may answer first. A read of another pipe waits as the
// pipe's writers do (found through /proc/PID/fd and fdinfo's flags, only
// when a member reads such a pipe): a shell reading a command
// substitution of a prompt waits, `sleep 6 | cat` does not.
//
// The group's members are found from the kernel's children lists
// (task/*/children): the leader's descendants, and the daemon's own
// children of the group with theirs: a member whose parent died comes back
// to the daemon, a child subreaper (exec.Runner.AdoptOrphans), not to
// init. The leader's tree answers first; the daemon's children are read
// only to confirm a yes. That costs a read per process of the tree; a scan of /proc (a stat
// per process of the machine: 25 ms for 460 processes, near a second for a
// -race daemon on a loaded machine) was the first way, and made a prompt
// late. Only a kernel without children lists is scanned.

// A task's verdict.
type verdict int

const (
	other   verdict = iota // blocked on something else: the group does not wait for input
	busy                   // running, or in uninterruptible sleep
	neutral                // waits for a child, or is stopped or gone: no say
	reads                  // blocked reading the input
	piped                  // blocked reading another pipe: waits as its writers do
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
	// Most answers are no, which the leader's tree tells; the daemon's
	// children are looked at to confirm a yes.
	if !groupReads(descendants([]int{pgid}), pgid, in) {
		return false
	}
	return groupReads(members(pgid), pgid, in)
}

// members lists the processes to judge for group pgid: its leader and the
// daemon's children in the group (orphans it adopted), with their
// descendants; every process of the group where the kernel keeps no
// children lists. Those not in the group are judged to have no say.
func members(pgid int) []int {
	kids, ok := Children()
	if !ok {
		return groupScan(pgid)
	}
	roots := []int{pgid}
	for _, k := range kids {
		if st, ok := readStat(strconv.Itoa(k)); ok && k != pgid && st.pgrp == pgid {
			roots = append(roots, k)
		}
	}
	return descendants(roots)
}

// groupReads reports whether the processes pids (those of group pgid
// count) wait for input: at least one reads it, and none is busy or
// blocked on something else. One blocked reading another pipe waits as
// the members that write it do: a shell reading a command substitution
// (`name=$(ask)`), tee after a prompting command; never `sleep 6 | cat`,
// whose writer sleeps.
func groupReads(pids []int, pgid int, in Input) bool {
	any := false
	var members []int
	waits := map[int]bool{} // members that read the input or have no say
	pipes := map[int][]uint64{}
	for _, pid := range pids {
		v, ps, member := processVerdict(pid, pgid, in)
		if member {
			members = append(members, pid)
		}
		switch v {
		case busy, other:
			return false
		case reads:
			any = true
			waits[pid] = true
		case neutral:
			waits[pid] = member
		case piped:
			pipes[pid] = ps
		}
	}
	if !any {
		return false
	}
	return len(pipes) == 0 || pipesWait(pipes, pipeWriters(members), waits)
}

// pipesWait reports whether every member blocked reading a pipe (pipes)
// waits on members that wait: each pipe it reads has writers, all of them
// members that read the input, have no say, or themselves wait so.
func pipesWait(pipes map[int][]uint64, writers map[uint64][]int, waits map[int]bool) bool {
	for changed := true; changed; {
		changed = false
		for pid, ps := range pipes {
			if pipeWaits(ps, writers, waits) {
				waits[pid] = true
				delete(pipes, pid)
				changed = true
			}
		}
	}
	return len(pipes) == 0
}

// pipeWaits reports whether every pipe of ps has writers, all waiting.
func pipeWaits(ps []uint64, writers map[uint64][]int, waits map[int]bool) bool {
	for _, ino := range ps {
		if len(writers[ino]) == 0 {
			return false
		}
		for _, w := range writers[ino] {
			if !waits[w] {
				return false
			}
		}
	}
	return true
}

// pipeWriters maps the pipes the processes pids hold open for writing
// (by inode) to those processes.
func pipeWriters(pids []int) map[uint64][]int {
	out := map[uint64][]int{}
	for _, pid := range pids {
		p := "/proc/" + strconv.Itoa(pid)
		fds, err := os.ReadDir(p + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(p + "/fd/" + fd.Name())
			ino, ok := pipeInode(link)
			if err != nil || !ok || !writable(p+"/fdinfo/"+fd.Name()) {
				continue
			}
			out[ino] = append(out[ino], pid)
		}
	}
	return out
}

// pipeInode reads a pipe's inode from its /proc fd link, "pipe:[N]".
func pipeInode(link string) (uint64, bool) {
	n, ok := strings.CutPrefix(link, "pipe:[")
	if !ok {
		return 0, false
	}
	ino, err := strconv.ParseUint(strings.TrimSuffix(n, "]"), 10, 64)
	return ino, err == nil
}

// writable reports whether the fd whose fdinfo is at path is open for
// writing (its flags' access mode O_WRONLY or O_RDWR).
func writable(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			flags, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && flags&unix.O_ACCMODE != unix.O_RDONLY
		}
	}
	return false
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
// pgid (member false), has exited or is stopped; else what its tasks say
// (one reading the input makes it read, unless another runs; those
// reading other pipes, pipes, make it piped when nothing else does).
func processVerdict(pid, pgid int, in Input) (v verdict, pipes []uint64, member bool) {
	p := strconv.Itoa(pid)
	st, ok := readStat(p)
	if !ok || st.pgrp != pgid {
		return neutral, nil, false // gone, or left the group
	}
	if v, done := stateVerdict(st.state); done {
		return v, nil, true
	}
	if st.threads <= 1 {
		v, pipe := taskVerdict(p, p, st, in)
		if v == piped {
			pipes = []uint64{pipe}
		}
		return v, pipes, true
	}
	tasks, err := os.ReadDir("/proc/" + p + "/task")
	if err != nil {
		return neutral, nil, true // it exited meanwhile
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
				return busy, nil, true
			}
			continue
		}
		v, pipe := taskVerdict(p, tp, st, in)
		switch {
		case v == busy:
			return busy, nil, true
		case v == reads:
			out = reads
		case v == other && out != reads:
			out = other
		case v == piped && (out == neutral || out == piped):
			out, pipes = piped, append(pipes, pipe)
		}
	}
	return out, pipes, true
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
// (whose stat is st), from the system call it is blocked in; for a read of
// a pipe that is not the input, piped and the pipe's inode.
func taskVerdict(p, tp string, st stat, in Input) (verdict, uint64) {
	b, err := os.ReadFile("/proc/" + tp + "/syscall")
	if err != nil {
		// Kept from us (EACCES, EPERM: a setuid program), or gone.
		if os.IsPermission(err) && in.PasswordMode != nil && in.TTY != 0 &&
			st.ttyNr == in.TTY && st.tpgid == st.pgrp && in.PasswordMode() {
			return reads, 0
		}
		return other, 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 || f[0] == "running" {
		return busy, 0
	}
	nr, err := strconv.Atoi(f[0])
	if err != nil || nr < 0 || len(f) < 3 {
		return other, 0 // -1: blocked, but not in a system call
	}
	args := make([]uint64, 0, 6)
	for _, a := range f[1:min(len(f), 7)] {
		v, err := strconv.ParseUint(strings.TrimPrefix(a, "0x"), 16, 64)
		if err != nil {
			return other, 0
		}
		args = append(args, v)
	}
	fds := fdReader{pid: p, ttyNr: st.ttyNr, in: in}
	switch calls[nr] {
	case callWait:
		return neutral, 0
	case callRead:
		switch kind, ino := fds.kind(int(int32(args[0]))); kind {
		case fdInput:
			return reads, 0
		case fdPipe:
			return piped, ino
		}
	case callPoll:
		return fds.judge(pollSet(p, args)), 0
	case callSelect:
		return fds.judge(selectSet(p, args)), 0
	case callEpoll:
		return fds.judge(epollSet(p, int(int32(args[0])))), 0
	}
	return other, 0
}

// fdKind is what an fd of a process is to us.
type fdKind int

const (
	fdOther  fdKind = iota
	fdInput         // our terminal or our stdin pipe
	fdSocket        // a socket: a network wait
	fdPipe          // another pipe
)

// fdReader tells the fds of process pid.
type fdReader struct {
	pid   string
	ttyNr uint64 // the process's controlling terminal
	in    Input
}

// kind stats fd through /proc (the file it is open on, not a path); the
// inode of another pipe.
func (r fdReader) kind(fd int) (fdKind, uint64) {
	if fd < 0 {
		return fdOther, 0
	}
	var st unix.Stat_t
	if unix.Stat("/proc/"+r.pid+"/fd/"+strconv.Itoa(fd), &st) != nil {
		return fdOther, 0
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFCHR:
		// The terminal itself, or /dev/tty opened by a process whose
		// controlling terminal it is (getpass, less, ssh's prompts).
		rdev := uint64(st.Rdev) // uint32 on some targets
		if r.in.TTY != 0 && (rdev == r.in.TTY || rdev == ttyDev && r.ttyNr == r.in.TTY) {
			return fdInput, 0
		}
	case unix.S_IFIFO:
		if r.in.PipeIno != 0 && uint64(st.Ino) == r.in.PipeIno && uint64(st.Dev) == r.in.PipeDev {
			return fdInput, 0
		}
		return fdPipe, uint64(st.Ino)
	case unix.S_IFSOCK:
		return fdSocket, 0
	}
	return fdOther, 0
}

// judge is the verdict of a task waiting on the fds set (those it waits
// to read): it reads the input when one of them is, unless one is a
// socket.
func (r fdReader) judge(set []int) verdict {
	v := other
	for _, fd := range set {
		switch k, _ := r.kind(fd); k {
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

// descendants lists roots and their descendants, from the kernel's
// children lists.
func descendants(roots []int) []int {
	out := slices.Clone(roots)
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
