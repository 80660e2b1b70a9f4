package sandbox

import "golang.org/x/sys/unix"

var (
	native = seccompArch{audit: unix.AUDIT_ARCH_X86_64, socket: 41, socketpair: 53, ioUringSet: 425, prlimit: 302}
	compat = seccompArch{audit: unix.AUDIT_ARCH_I386, socket: 359, socketpair: 360, socketcall: 102, ioUringSet: 425, prlimit: 340}
)
