package adversarial

import "golang.org/x/sys/unix"

// canExchange: renamex_np's RENAME_SWAP swaps two names at once.
const canExchange = true

// exchange swaps the names a and b in one step.
func exchange(a, b string) error { return unix.RenamexNp(a, b, unix.RENAME_SWAP) }
