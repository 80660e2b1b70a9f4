//go:build !toold_portable

package reaptest

import "golang.org/x/sys/unix"

// becomeSubreaper makes this process a child subreaper.
func becomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}
