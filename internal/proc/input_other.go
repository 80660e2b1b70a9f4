//go:build !linux

package proc

// waitingForInput is false where /proc does not say what a process is
// blocked in: commands are never found waiting for input there (a wait
// with until.idleMs still returns).
func waitingForInput(int, Input) bool { return false }
