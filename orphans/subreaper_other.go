//go:build !linux || toold_portable

package orphans

import "errors"

const canAdopt = false

// becomeSubreaper fails: macOS has no child subreaper, and FreeBSD's
// (procctl PROC_REAP_ACQUIRE) is not used, since finding the escaped
// descendants reads Linux's /proc (internal/proc). A command's process
// group is still ended whole; what leaves the group (setsid, set -m, a
// daemonizing tool) outlives the command there.
func becomeSubreaper() error { return errors.ErrUnsupported }
