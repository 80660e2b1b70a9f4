package lifecycle

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toold/toold/internal/beneath"
	"github.com/toold/toold/methods"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/sandbox"
	"github.com/toold/toold/spool"
)

// sandboxPolicy makes the session's sandbox from initialize's (or the
// daemon's default) params: nil when off. The session's TMPDIR is added
// when the session opens. What this kernel cannot enforce is -32007, unless
// bestEffort: then it is returned, for the notice.
func sandboxPolicy(sp *protocol.SandboxParams, cwd string, roots []methods.Root) (*sandbox.Policy, []string, error) {
	if sp != nil && len(sp.Writable) > 0 && sp.Mode != protocol.SandboxWorkspaceWrite {
		mode := cmp.Or(sp.Mode, "absent (off)")
		return nil, nil, rpc.InvalidParams("sandbox.writable", "only mode %q writes beneath writable dirs; mode is %s, which would drop them",
			protocol.SandboxWorkspaceWrite, mode)
	}
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
			p.Readable = slices.Clone(sandbox.SystemDirs)
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

// sessionSandbox gives cfg (its cwd and roots set) its sandbox: asked, or
// prev's when a re-initialize names none, or else floor (the daemon's
// --sandbox). A session's sandbox never gets looser: one looser than
// prev's or than floor is -32602 naming sandbox. Both are compared as they
// would be with cfg's cwd and roots: the roots are the client's to choose
// at every initialize (they are the workspace), the mode, network, writable
// dirs and what bestEffort leaves unenforced are what may only tighten.
func sessionSandbox(cfg *methods.Settings, asked, floor *protocol.SandboxParams, prev *methods.Settings) error {
	box := asked
	if box == nil && prev != nil {
		box = prev.SandboxParams
	}
	if box == nil {
		box = floor
	}
	var err error
	if cfg.Sandbox, cfg.Unenforced, err = sandboxPolicy(box, cfg.Cwd, cfg.Roots); err != nil {
		return err
	}
	if cfg.Sandbox != nil {
		cfg.SandboxParams = box
	}
	if prev != nil && prev.Sandbox != nil {
		p, missing, err := sandboxPolicy(prev.SandboxParams, cfg.Cwd, cfg.Roots)
		if err != nil { // a writable dir gone since: the policy as it was
			p, missing = prev.Sandbox, prev.Unenforced
		}
		if why := looser(cfg.Sandbox, p, cfg.Unenforced, missing); why != "" {
			return rpc.InvalidParams("sandbox", "%s would loosen the session's sandbox (%s): a re-initialize may keep or tighten it, never loosen it", why, prev.Sandbox.Mode)
		}
	}
	if floor != nil && box != floor {
		p, missing, err := sandboxPolicy(floor, cfg.Cwd, cfg.Roots)
		if err != nil {
			return err
		}
		if why := looser(cfg.Sandbox, p, cfg.Unenforced, missing); why != "" {
			return rpc.InvalidParams("sandbox", "%s would loosen the daemon's --sandbox=%s, below which no session goes (a client may ask for stricter)", why, floor.Mode)
		}
	}
	return nil
}

// modeRank orders the modes from the loosest to the strictest.
func modeRank(mode string) int {
	return map[string]int{protocol.SandboxWorkspaceWrite: 1, protocol.SandboxReadOnly: 2}[mode]
}

// looser says how p is looser than bound ("" when it is as strict or
// stricter); missing and boundMissing are what bestEffort leaves
// unenforced of each.
func looser(p, bound *sandbox.Policy, missing, boundMissing []string) string {
	switch {
	case bound == nil:
		return ""
	case p == nil:
		return "mode off"
	case modeRank(p.Mode) < modeRank(bound.Mode):
		return "mode " + p.Mode
	case p.Network && !bound.Network:
		return "network true"
	}
	for _, w := range p.Writable {
		if !beneath.Any(w, bound.Writable) {
			return "writes beneath " + w
		}
	}
	if bound.Readable != nil {
		if p.Readable == nil {
			return "reads everywhere"
		}
		for _, r := range p.Readable {
			if !beneath.Any(r, bound.Readable) {
				return "reads beneath " + r
			}
		}
	}
	for _, m := range missing {
		if !slices.Contains(boundMissing, m) {
			return "bestEffort without " + m
		}
	}
	return ""
}

// CheckSandboxFlags checks the daemon's sandbox flags (sp, as the flags
// give it: nil without --sandbox) at start, so that a daemon that could
// not give its sessions that sandbox stops there, naming the flag, instead
// of failing every request: each --writable must be a directory, and this
// kernel must enforce the sandbox unless --sandbox-best-effort.
func CheckSandboxFlags(sp *protocol.SandboxParams) error {
	if sp == nil || sp.Mode == "" || sp.Mode == protocol.SandboxOff {
		return nil
	}
	for _, w := range sp.Writable {
		real, err := filepath.EvalSymlinks(w)
		if err == nil {
			var fi os.FileInfo
			if fi, err = os.Stat(real); err == nil && !fi.IsDir() {
				err = errors.New("not a directory")
			}
		}
		if err != nil {
			return fmt.Errorf("--writable %s: %w", w, err)
		}
	}
	missing := sandbox.Probe().Missing(&sandbox.Policy{Mode: sp.Mode, Network: sp.Network})
	if len(missing) > 0 && !sp.BestEffort {
		return fmt.Errorf("--sandbox=%s cannot be enforced here: %s (--sandbox-best-effort starts without it)", sp.Mode, strings.Join(missing, "; "))
	}
	return nil
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

// spoolDir is initialize's spoolDir: null when the session has no spool
// directory.
func spoolDir(d *spool.Dir) *string {
	if d.Err() != nil {
		return nil
	}
	p := d.Path()
	return &p
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
