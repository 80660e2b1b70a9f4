package exec

import (
	"os"
	"syscall"
)

// intoCgroup starts the command in dir's cgroup (clone3's
// CLONE_INTO_CGROUP): it is there from its first instruction, before it
// could fork anything that escapes.
func intoCgroup(a *syscall.SysProcAttr, dir *os.File) {
	a.UseCgroupFD, a.CgroupFD = true, int(dir.Fd())
}
