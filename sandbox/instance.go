package sandbox

import (
	"errors"
	"os"
	osexec "os/exec"
)

// LauncherName is argv[0] of toold started as a sandbox's launcher (see
// launcher_linux.go's init); argv[1] says which part.
const LauncherName = "toold-sandbox"

// Request is a command for a session's launcher to start; its
// descriptors are the command's stdin, stdout and stderr.
type Request struct {
	Path string   `json:"path"`
	Argv []string `json:"argv"`
	// Env is the command's whole environment, given to it only at its
	// exec, once the policy is in force (LD_PRELOAD cannot run before).
	Env []string `json:"env"`
	Dir string   `json:"dir"`
	// Ctty makes its stdin (a terminal's slave) its controlling terminal.
	Ctty bool `json:"ctty,omitempty"`
}

// StartOptions are how Start starts a session's launcher.
type StartOptions struct {
	// Start starts the launcher's command (the daemon's reaper must not
	// take its wait); nil means cmd.Start.
	Start func(*osexec.Cmd) error
	// Waited is told the launcher's pid once it is reaped.
	Waited func(pid int)
	// Cgroup is the session's cgroup directory, where its launcher starts
	// and so every command it starts; nil for none.
	Cgroup *os.File
}

// ErrBroken is wrapped by Spawn's error when the launcher is gone.
var ErrBroken = errors.New("sandbox: the session's launcher is gone")
