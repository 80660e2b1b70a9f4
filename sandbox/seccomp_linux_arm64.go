package sandbox

import "golang.org/x/sys/unix"

var (
	native = seccompArch{audit: unix.AUDIT_ARCH_AARCH64, socket: 198, socketpair: 199, ioUringSet: 425, prlimit: 261}
	compat = seccompArch{audit: unix.AUDIT_ARCH_ARM, socket: 281, socketpair: 288, ioUringSet: 425, prlimit: 369}
)
