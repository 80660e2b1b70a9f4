// Package adversarial attacks the built toold binary the way a hostile or
// careless neighbour would: symlinks swapped under the roots, files whose
// size lies or that change while read, spool files replaced by a command, a
// spool root that cannot be made, spools past their quotas, logs that grow
// while they are polled. Each case drives the binary over stdio or its
// socket, as clients do, and checks the reply against the contract
// (../../../shared/PROTOCOL.md, Errors).
//
// Files named daemon_*_test.go attack the protocol, processes, lifecycle
// and the shared socket: floods of unread requests, huge number literals,
// ids in rpc's own namespace, EMFILE on accept, daemons racing for one
// socket, commands that escape their group, a daemon killed under a
// forwarder, terminals (daemon_tty_test.go: a flood of a terminal, more
// terminals than a session or the daemon gives, writes to a terminal that
// is gone, /dev/tty reopened or reached from a sandbox, a setuid program's
// password prompt as uid 65534).
//
// The default run is short (seconds) and attacks toold built as the test
// binary is, with -race under `go test -race`: the race detector watches
// the daemon under attack, and a race report in a daemon's stderr or log
// fails the case that started it. TOOLD_LONG=1 (or -tags adversarial_long)
// runs the long variants, e.g. 100,000 reads under a thread that swaps a
// directory for a symlink, 10,000 connections, floods of 10,000 reads of
// 256 KiB windows; CI runs them without -race, on toold as shipped.
// The two floods run first, alone (their peak RSS, another client's
// latency), with the two cases that push megabytes through the daemon's
// parser under a reply deadline; then every other case at once
// (TestMain's ParallelAtLeast), each with daemons and files of its own,
// so that the seconds some spend idle on a daemon's timeouts overlap the
// others' work.
//
// The cases run over the three transports where the transport can change
// the outcome (stdio in both framings, the shared daemon's socket);
// file-system attacks whose outcome depends only on the path code run over
// one transport, to keep the run short.
package adversarial
