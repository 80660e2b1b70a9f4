// Package lifecycle owns the daemon's sessions and its life: one session per
// connection, initialize and its limits, session/close, shutdown and exit
// with LSP's exit codes, stats, the clean-up that a disconnect or a signal
// triggers, and the sweep of spool directories that dead daemons left.
//
// It wires a connection (package rpc) to the working methods (package
// methods) and holds nothing of their logic.
package lifecycle
