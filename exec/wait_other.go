//go:build !linux

package exec

// waitExit returns at once: without pidfds, os/exec's Wait blocks in
// wait4 as it does everywhere.
func waitExit(int) {}
