//go:build !linux

package orphans

// ExitedChild is true (unknown): the reaper lists the children each time.
func ExitedChild() bool { return true }
