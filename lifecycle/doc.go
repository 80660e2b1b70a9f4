// Package lifecycle owns the daemon's sessions and its life: one session per
// connection, initialize and its limits, session/close, shutdown and exit
// with LSP's exit codes, stats, the clean-up that a disconnect or a signal
// triggers, and the sweep of spool directories that dead daemons left.
//
// It wires a connection (package rpc) to the working methods (package
// methods) and holds nothing of their logic.
//
// Order: a client's requests run concurrently, but the lifecycle methods
// (initialize, session/close, shutdown, exit) run on the read loop, and
// every other request is admitted there too (rpc.Server.Admit): refused if
// it came after shutdown, else registered in flight on its session. So what
// a client pipes is judged in the order it wrote it: a read before shutdown
// is answered, an exec before session/close is cancelled by it.
// session/close, shutdown (after the drain time), exit and the end of input
// cancel what runs and wait for its replies.
package lifecycle
