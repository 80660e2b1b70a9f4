//go:build !linux

package search

import "golang.org/x/sys/unix"

// openBeneath: no openat2 here; a listed file is opened through the
// tree's os.Root.
func openBeneath(int, string) (int, error) { return -1, unix.ENOSYS }

func beneathOK() bool { return false }

func openBeneathScratch(dirfd int, rel string, _ *[]byte) (int, error) {
	return openBeneath(dirfd, rel)
}
