package reaptest

import "golang.org/x/sys/unix"

// becomeSubreaper makes this process a child subreaper. On Linux with
// -tags toold_portable too: the test binary still reaps (exec's tests of
// the Runner without a subreaper, and internal/proc's probe that finds a
// group's members among this process's children, count on it), while the
// Runner under test adopts nothing.
func becomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}
