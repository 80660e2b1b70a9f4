//go:build !linux

package sandbox

import (
	"os"
)

// Cgroup is a session's cgroup: none off Linux.
type Cgroup struct{}

// NewCgroup fails off Linux.
func NewCgroup(name string) (*Cgroup, error) { return nil, errNoLinux }

// Dir is nil off Linux.
func (c *Cgroup) Dir() *os.File { return nil }

// Close does nothing off Linux.
func (c *Cgroup) Close() error { return nil }

// CgroupsDelegated is false off Linux.
func CgroupsDelegated() bool { return false }

// SweepCgroups does nothing off Linux.
func SweepCgroups() []string { return nil }
