//go:build darwin || freebsd

package testenv

import "syscall"

// atime is st's access time (its field's name differs by OS).
func atime(st *syscall.Stat_t) *syscall.Timespec { return &st.Atimespec }
