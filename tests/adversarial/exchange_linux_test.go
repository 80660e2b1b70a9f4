package adversarial

import "golang.org/x/sys/unix"

// canExchange: renameat2's RENAME_EXCHANGE swaps two names at once.
const canExchange = true

// exchange swaps the names a and b in one step.
func exchange(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
