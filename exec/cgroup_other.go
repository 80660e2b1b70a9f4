//go:build !linux

package exec

import (
	"os"
	"syscall"
)

// intoCgroup does nothing: cgroups are Linux's (sandbox.Cgroup.Dir is
// nil elsewhere, so it is not called).
func intoCgroup(*syscall.SysProcAttr, *os.File) {}
