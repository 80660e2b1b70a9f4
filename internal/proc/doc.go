// Package proc reads what Linux's /proc says about processes: when one
// started (to tell a process from a later one that reuses its pid), which
// are in a process group, and which carry a marker in their environment.
// The spool sweep uses it to end a dead daemon's commands, exec to end the
// descendants that left a command's process group. It owns no process.
package proc
