//go:build darwin || freebsd

package exec

// fionread is FIONREAD, _IOR('f', 127, int) on macOS and FreeBSD (x/sys
// does not name it).
const fionread = 0x4004667f

// setPipeSize does nothing: these kernels size a pipe's buffer themselves
// (up to 64 KiB as it fills), and take no request for it.
func setPipeSize(uintptr, int) {}
