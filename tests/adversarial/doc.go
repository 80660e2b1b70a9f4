// Package adversarial holds tests that attack the built daemon: bad input,
// bad neighbours and faults, each case a way the daemon once failed or
// could fail (issue 8). There is no code here besides the tests; files
// named daemon_*_test.go attack the protocol, processes, lifecycle and the
// shared socket, files_*_test.go the paths, roots and files. Long cases run
// with TOOLD_ADVERSARIAL_LONG=1.
package adversarial
