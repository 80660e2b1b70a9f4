//go:build !linux || toold_portable

package search

// openFile opens name beneath dirfd as openAt does (unix.Openat, which
// copies the name for the system call).
func openFile(dirfd int, name string, _ *[]byte) (int, error) {
	return openAt(dirfd, name)
}
