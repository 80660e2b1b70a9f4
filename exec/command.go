package exec

import (
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The program a Spec names: its path (looked up in the command's own PATH),
// argv and working directory, checked before the fork so that an error
// names what is wrong.

// command builds the os/exec command of spec, without its I/O.
func command(spec Spec) (*osexec.Cmd, error) {
	var path string
	var args []string
	switch {
	case len(spec.Argv) > 0:
		p, err := lookPath(spec.Argv[0], spec.Env)
		if err != nil {
			return nil, err
		}
		path, args = p, spec.Argv
	case spec.Command != "":
		shell := "/bin/bash"
		if _, err := os.Stat(shell); err != nil {
			shell = "/bin/sh"
		}
		path, args = shell, []string{shell, "-c", spec.Command}
	default:
		return nil, errors.New("no command given")
	}
	// The child's failed chdir comes back as "fork/exec <path>: ...", which
	// blames the wrong path: check the directory first to say why.
	if spec.Dir != "" {
		fi, err := os.Stat(spec.Dir)
		if err != nil {
			return nil, fmt.Errorf("cwd: %w", err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("cwd %s: %w", spec.Dir, syscall.ENOTDIR)
		}
	}
	cmd := &osexec.Cmd{
		Path:        path,
		Args:        args,
		Dir:         spec.Dir,
		Env:         spec.Env,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	return cmd, nil
}

// executable says, as os/exec's start would, why path (relative to dir)
// cannot be executed: a sandboxed command's launcher would say it too, but
// as the error of its fork, not naming the program as os/exec does.
func executable(path, dir string) error {
	p := path
	if !filepath.IsAbs(p) && dir != "" {
		p = filepath.Join(dir, p)
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return &os.PathError{Op: "fork/exec", Path: path, Err: errors.Unwrap(err)}
	case !fi.Mode().IsRegular() || unix.Access(p, unix.X_OK) != nil:
		return &os.PathError{Op: "fork/exec", Path: path, Err: syscall.EACCES}
	}
	return nil
}

// defaultPath is searched when env has no PATH, as a shell would.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// lookPath finds name in the PATH of env (the daemon's when env is nil), not
// in the daemon's own as os/exec.LookPath would. A name with a slash is used
// as is (relative to the command's Dir). Relative PATH entries are skipped.
func lookPath(name string, env []string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path, found := "", false
	if env == nil {
		path, found = os.LookupEnv("PATH")
	} else {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, "PATH="); ok {
				path, found = v, true
			}
		}
	}
	if !found {
		path = defaultPath
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%q: %w", name, osexec.ErrNotFound)
}
