//go:build !linux && !darwin

package search

// fdPath: FreeBSD does not say where a descriptor was opened without
// procstat's sysctl, which is not used: the searched directory is checked
// only where the caller resolved it (Allow is not called).
func fdPath(int) (string, bool) { return "", false }
