package lifecycle

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/toold/toold/methods"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/sandbox"
)

// systemDirs may be read in read-only mode with roots, beside the roots:
// what programs need to run.
var systemDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys", "/dev", "/run"}

// sandboxPolicy makes the session's sandbox from initialize's (or the
// daemon's default) params: nil when off. The session's TMPDIR is added
// when the session opens. What this kernel cannot enforce is -32007, unless
// bestEffort: then it is returned, for the notice.
func sandboxPolicy(sp *protocol.SandboxParams, cwd string, roots []methods.Root) (*sandbox.Policy, []string, error) {
	if sp == nil || sp.Mode == "" || sp.Mode == protocol.SandboxOff {
		return nil, nil, nil
	}
	if !slices.Contains(protocol.SandboxModes, sp.Mode) {
		return nil, nil, rpc.InvalidParams("sandbox.mode", "must be %q, %q or %q, got %q",
			protocol.SandboxOff, protocol.SandboxReadOnly, protocol.SandboxWorkspaceWrite, sp.Mode)
	}
	writable, err := methods.ResolveRoots(cwd, sp.Writable)
	if err != nil {
		return nil, nil, renameField(err, "roots", "sandbox.writable")
	}
	p := &sandbox.Policy{Mode: sp.Mode, Network: sp.Network}
	switch sp.Mode {
	case protocol.SandboxWorkspaceWrite:
		if len(roots) == 0 {
			roots = []methods.Root{{Path: cwd}}
		}
		for _, r := range append(roots, writable...) {
			p.Writable = append(p.Writable, r.Path)
		}
	case protocol.SandboxReadOnly:
		if len(roots) > 0 {
			p.Readable = slices.Clone(systemDirs)
			for _, r := range roots {
				p.Readable = append(p.Readable, r.Path)
			}
		}
	}
	support := sandbox.Probe()
	missing := support.Missing(p)
	if len(missing) > 0 && !sp.BestEffort {
		return nil, nil, rpc.Errorf(protocol.CodeSandboxUnavailable, map[string][]string{"missing": missing},
			"the sandbox cannot be enforced here: %s (sandbox.bestEffort starts without it)", strings.Join(missing, "; "))
	}
	support.Complete(p)
	return p, missing, nil
}

// renameField makes an invalid-params error of ResolveRoots name the field
// it was given as.
func renameField(err error, from, to string) error {
	var re *rpc.Error
	if !errors.As(err, &re) {
		return err
	}
	out := *re
	out.Message = strings.Replace(out.Message, from+"[", to+"[", 1)
	if m, ok := out.Data.(map[string]string); ok {
		out.Data = map[string]string{"field": strings.Replace(m["field"], from+"[", to+"[", 1)}
	}
	return &out
}

// makeTmpDir makes a session's private TMPDIR beside its spool directory
// (<root>/<pid>-<session>.tmp, which the sweep after a daemon's death
// removes too), or in the system's temporary directory when the spool root
// is not usable.
func (d *Daemon) makeTmpDir(session string) (string, error) {
	root := d.svc.Spools.Root()
	dir := filepath.Join(root, strconv.Itoa(os.Getpid())+"-"+session+".tmp")
	if err := os.Mkdir(dir, 0o700); err == nil {
		return dir, nil
	}
	return os.MkdirTemp("", "toold-"+session+"-")
}

// sandboxInfo is initialize's sandbox result.
func sandboxInfo(p *sandbox.Policy, unenforced []string) *protocol.SandboxInfo {
	if p == nil {
		return nil
	}
	return &protocol.SandboxInfo{Mode: p.Mode, Writable: p.Writable, Readable: p.Readable,
		Network: p.Network, TmpDir: p.TmpDir, Unenforced: append([]string{}, unenforced...)}
}

// sandboxNotice is initialize's notice of what the sandbox does not
// enforce ("" when it enforces everything).
func sandboxNotice(unenforced []string) string {
	return notice.SandboxUnenforced(unenforced)
}
