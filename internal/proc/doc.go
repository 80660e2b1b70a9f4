// Package proc reads what Linux's /proc says about processes: when one
// started (to tell a process from a later one that reuses its pid), which
// are in a process group, which carry a marker in their environment, and
// whether a process group waits for input (WaitingForInput: what each of
// its tasks is blocked in, and on which fd; input_linux.go says why that
// signal). The spool sweep uses it to end a dead daemon's commands, exec to
// end the descendants that left a command's process group and to tell a
// command that waits at a prompt. It owns no process.
//
// The input check is Linux's alone (input_linux*.go, with a table of
// system calls per architecture); elsewhere (input_other.go) no command is
// ever found waiting.
package proc
