//go:build darwin || freebsd

package lifecycle

// pollRDHUP: macOS and FreeBSD have no such event (POLLHUP only).
const pollRDHUP = 0

// setPipeSize does nothing: these kernels take no request for a pipe's size.
func setPipeSize(int, int) {}
