//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"runtime"
)

// errNoLinux is every sandbox's error off Linux.
var errNoLinux = errors.New("sandbox: the sandbox needs Linux; this is " + runtime.GOOS)

// Instance is a session's sandbox; off Linux there is none (Start fails).
type Instance struct {
	// InitPid is always 0 here.
	InitPid int
}

// Start fails off Linux: no kernel feature confines a command here.
func Start(p *Policy, o StartOptions) (*Instance, error) { return nil, errNoLinux }

// Spawn fails off Linux.
func (in *Instance) Spawn(req Request, stdio [3]*os.File) (int, error) { return 0, errNoLinux }

// Close does nothing off Linux.
func (in *Instance) Close() {}
