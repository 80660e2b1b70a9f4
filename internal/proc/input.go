package proc

// Input names what the daemon gave a command to read from: its terminal
// and the pipe on its stdin. A zero field names nothing.
type Input struct {
	// TTY is the device number (st_rdev) of the command's terminal, the
	// pseudo-terminal's slave; 0 when it has none.
	TTY uint64
	// PipeDev and PipeIno are the inode of the pipe on its stdin (st_dev,
	// st_ino); PipeIno 0 when it has none.
	PipeDev, PipeIno uint64
	// PasswordMode, when set, reports whether the terminal reads a line
	// without echoing it (canonical mode, ECHO off): what a password prompt
	// sets. It stands in for the syscall of a process that /proc keeps
	// from us (a setuid program such as sudo, run by another user).
	PasswordMode func() bool
}

// WaitingForInput reports whether process group pgid waits for input: at
// least one of its processes is blocked reading in (its terminal, or its
// stdin pipe), and every other one that is not stopped is too, or waits
// for a child. It is false where the system cannot say (see
// input_linux.go for how Linux says it, and why that is right).
func WaitingForInput(pgid int, in Input) bool {
	return waitingForInput(pgid, in)
}
