//go:build !linux

package reaptest

import "errors"

// becomeSubreaper: no child subreaper here (macOS has none; FreeBSD's
// procctl(PROC_REAP_ACQUIRE) is not used, as the reaper reads Linux's /proc).
func becomeSubreaper() error { return errors.ErrUnsupported }
