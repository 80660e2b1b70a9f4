// Package remote owns the forwarder of toold --remote: a process that joins
// its client on stdio to the shared daemon's socket, starting the daemon
// when none answers (its log in a private directory, spool.PrivateDir), as
// gopls's -remote=auto does. A daemon that goes away leaves no forwarded
// request without a reply: the forwarder answers those itself
// (inflight.go).
//
// # Why frame by frame
//
// The forwarder reads the client's messages with rpc's FrameReader, the same
// framer the daemon uses on stdio, and writes each to the daemon framed as
// the client framed it; the daemon's messages come back the same way. So a
// message is framed by one set of rules whether it is forwarded or not:
// headers in any order, stray newlines, garbage and oversized messages get
// the same answers. What the forwarder cannot frame it answers itself, with
// the error the daemon would have sent.
//
// # Why the daemon says the exit code
//
// LSP gives exit 1 to an exit without a prior shutdown. The daemon knows the
// lifecycle; the forwarder does not read its client's messages. So the
// daemon, told by protocol.MethodClient that a forwarder is on the line,
// sends protocol.MethodExitCode last, and the forwarder ends with that code
// and does not pass the notification on.
package remote
