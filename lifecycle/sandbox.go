package lifecycle

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/toold/toold/methods"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/sandbox"
	"github.com/toold/toold/spool"
)

// A session's sandbox is resolved once, when initialize makes it: its
// dirs' symlinks followed then and the directories found kept by identity
// (sandbox.Resolve), never resolved again. The launcher opens them without
// following links and leaves out one that is no longer what was resolved;
// a re-initialize is judged against what was resolved the first time.

// sandboxEnv is what the sandboxes of a daemon's sessions share: its
// --sandbox (the floor) with its --writable dirs resolved once, at the
// first session, and where the daemon keeps what no command may reach.
type sandboxEnv struct {
	floor      *protocol.SandboxParams
	floorExtra []sandbox.Dir
	floorErr   error
	spoolRoot  string
	sockDir    string // the socket a shared daemon listens on is in it; "" for stdio
}

// boxState is the Daemon's part of sandboxEnv: set once.
type boxState struct {
	once    sync.Once
	env     *sandboxEnv
	sockDir string // set by Listen before it serves
}

// sandboxEnv returns the daemon's sandboxEnv, made at first use.
func (d *Daemon) sandboxEnv() *sandboxEnv {
	d.box.once.Do(func() {
		e := &sandboxEnv{floor: d.opts.Sandbox, spoolRoot: cmp.Or(d.opts.SpoolRoot, spool.DefaultRoot()), sockDir: d.box.sockDir}
		if e.floor != nil && e.floor.Mode == protocol.SandboxWorkspaceWrite {
			e.floorExtra, e.floorErr = resolveDirs(e.floor.Writable, "", "--writable")
		}
		d.box.env = e
	})
	return d.box.env
}

// private are the dirs no sandboxed command may read: the spool roots
// (this daemon's and the default one, where other daemons of this user
// keep theirs) and the TMPDIRs other sessions have outside a refused spool
// root.
func (e *sandboxEnv) private() []string {
	dirs := []string{e.spoolRoot, spool.DefaultRoot()}
	others, _ := filepath.Glob(filepath.Join(os.TempDir(), "toold-tmp-*"))
	for _, d := range append(dirs, others...) {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			dirs = append(dirs, real)
		}
	}
	return sandbox.Dedup(dirs)
}

// sockets are the dirs of sockets no sandboxed command may reach by path
// beside sandbox.HostSockets: the daemon's own socket dir, and the runtime
// dir the daemon was given (the user's session bus and agents).
func (e *sandboxEnv) sockets() []string {
	var dirs []string
	for _, d := range []string{e.sockDir, os.Getenv("XDG_RUNTIME_DIR")} {
		if filepath.IsAbs(d) {
			dirs = append(dirs, d)
			if real, err := filepath.EvalSymlinks(d); err == nil {
				dirs = append(dirs, real)
			}
		}
	}
	return sandbox.Dedup(dirs)
}

// resolveDirs resolves dirs (relative to cwd) once, each an error naming
// field[i] when it is not a directory; more than sandbox.MaxDirs is an
// error too, checked before any is resolved.
func resolveDirs(dirs []string, cwd, field string) ([]sandbox.Dir, error) {
	if len(dirs) > sandbox.MaxDirs {
		return nil, rpc.InvalidParams(field, "%d dirs: at most %d (each is a rule the kernel keeps)", len(dirs), sandbox.MaxDirs)
	}
	out := make([]sandbox.Dir, 0, len(dirs))
	for i, d := range dirs {
		f := field + "[" + strconv.Itoa(i) + "]"
		if d == "" {
			return nil, rpc.InvalidParams(f, "empty path")
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(cwd, d)
		}
		real, id, err := sandbox.Resolve(d)
		if err != nil {
			return nil, rpc.InvalidParams(f, "%s: %v", d, err)
		}
		out = append(out, sandbox.Dir{Path: real, ID: id})
	}
	return out, nil
}

// buildPolicy makes the policy of sp (validated) with the writable dirs
// extra, resolved, for a session with cwd and roots; nil when off.
func (e *sandboxEnv) buildPolicy(sp *protocol.SandboxParams, extra []sandbox.Dir, cwd string, roots []methods.Root) (*sandbox.Policy, error) {
	if sp == nil || sp.Mode == "" || sp.Mode == protocol.SandboxOff {
		return nil, nil
	}
	var rootDirs []sandbox.Dir
	for _, r := range roots {
		real, id, err := sandbox.Resolve(r.Path)
		if err != nil {
			return nil, rpc.InvalidParams("roots", "%s: %v", r.Path, err)
		}
		rootDirs = append(rootDirs, sandbox.Dir{Path: real, ID: id})
	}
	if sp.Mode == protocol.SandboxWorkspaceWrite && len(rootDirs) == 0 {
		real, id, err := sandbox.Resolve(cwd)
		if err != nil {
			return nil, rpc.InvalidParams("cwd", "%s: %v", cwd, err)
		}
		rootDirs = []sandbox.Dir{{Path: real, ID: id}}
	}
	p := sandbox.NewPolicy(sp.Mode, sp.Network, rootDirs, extra)
	p.Private, p.Sockets = e.private(), e.sockets()
	p.Plan = sandbox.Probe().Plan(p)
	if len(p.Plan.Refused) > 0 && !sp.BestEffort {
		return nil, errUnenforceable(p.Plan.Refused)
	}
	return p, nil
}

// errUnenforceable is -32007 naming what cannot be enforced at all.
func errUnenforceable(refused []string) error {
	return rpc.Errorf(protocol.CodeSandboxUnavailable, map[string][]string{"missing": refused},
		"the sandbox cannot be enforced here: %s (sandbox.bestEffort starts without it)", strings.Join(refused, "; "))
}

// checkParams checks sp's mode and that writable goes with its mode.
func checkParams(sp *protocol.SandboxParams) error {
	if sp == nil {
		return nil
	}
	if len(sp.Writable) > 0 && sp.Mode != protocol.SandboxWorkspaceWrite {
		mode := cmp.Or(sp.Mode, "absent (off)")
		return rpc.InvalidParams("sandbox.writable", "only mode %q writes beneath writable dirs; mode is %s, which would drop them",
			protocol.SandboxWorkspaceWrite, mode)
	}
	if sp.Mode != "" && !slices.Contains(protocol.SandboxModes, sp.Mode) {
		return rpc.InvalidParams("sandbox.mode", "must be %q, %q or %q, got %q",
			protocol.SandboxOff, protocol.SandboxReadOnly, protocol.SandboxWorkspaceWrite, sp.Mode)
	}
	return nil
}

// sessionSandbox gives cfg (its cwd and roots set) its sandbox: asked, or
// prev's when a re-initialize names none (as resolved then), or else the
// floor (the daemon's --sandbox, resolved at the first session). A
// session's sandbox never gets looser: one looser than prev's or than the
// floor is -32602 naming sandbox. Both are compared as they would be with
// cfg's roots (the roots are the client's to choose at every initialize:
// they are the workspace), the writable dirs as resolved the first time:
// a symlink retargeted since does not widen them.
func sessionSandbox(cfg *methods.Settings, asked *protocol.SandboxParams, e *sandboxEnv, prev *methods.Settings) error {
	if err := checkParams(asked); err != nil {
		return err
	}
	if e.floorErr != nil {
		return e.floorErr
	}
	box, extra := asked, []sandbox.Dir(nil)
	var err error
	switch {
	case asked != nil:
		if extra, err = resolveDirs(asked.Writable, cfg.Cwd, "sandbox.writable"); err != nil {
			return err
		}
	case prev != nil && prev.Sandbox != nil:
		box, extra = prev.SandboxParams, prev.Sandbox.StillSame()
	default:
		box, extra = e.floor, e.floorExtra
	}
	if cfg.Sandbox, err = e.buildPolicy(box, extra, cfg.Cwd, cfg.Roots); err != nil {
		return err
	}
	if cfg.Sandbox != nil {
		cfg.SandboxParams = box
		cfg.Unenforced = cfg.Sandbox.Plan.Unenforced
	}
	if prev != nil && prev.Sandbox != nil {
		bound, err := e.bound(prev.SandboxParams, prev.Sandbox.StillSame(), cfg)
		if err != nil {
			return err
		}
		if why := sandbox.Looser(cfg.Sandbox, bound); why != "" {
			return rpc.InvalidParams("sandbox", "%s would loosen the session's sandbox (%s): a re-initialize may keep or tighten it, never loosen it", why, prev.Sandbox.Mode)
		}
	}
	if e.floor != nil && box != e.floor {
		bound, err := e.bound(e.floor, e.floorExtra, cfg)
		if err != nil {
			return err
		}
		if why := sandbox.Looser(cfg.Sandbox, bound); why != "" {
			return rpc.InvalidParams("sandbox", "%s would loosen the daemon's --sandbox=%s, below which no session goes (a client may ask for stricter)", why, e.floor.Mode)
		}
	}
	return nil
}

// bound is the sandbox of sp, with the writable dirs extra as resolved
// before, for cfg's cwd and roots: what cfg's may not be looser than.
func (e *sandboxEnv) bound(sp *protocol.SandboxParams, extra []sandbox.Dir, cfg *methods.Settings) (*sandbox.Policy, error) {
	if sp == nil {
		return nil, nil
	}
	loose := *sp
	loose.BestEffort = true // its unenforced are compared, not refused again
	return e.buildPolicy(&loose, extra, cfg.Cwd, cfg.Roots)
}

// CheckSandboxFlags checks the daemon's sandbox flags (sp, as the flags
// give it: nil without --sandbox) at start, so that a daemon that could
// not give its sessions that sandbox stops there, naming the flag, instead
// of failing every request: each --writable must be a directory, and this
// system must enforce the sandbox unless --sandbox-best-effort.
func CheckSandboxFlags(sp *protocol.SandboxParams) error {
	if sp == nil || sp.Mode == "" || sp.Mode == protocol.SandboxOff {
		return nil
	}
	if len(sp.Writable) > sandbox.MaxDirs {
		return fmt.Errorf("--writable: %d dirs, at most %d", len(sp.Writable), sandbox.MaxDirs)
	}
	for _, w := range sp.Writable {
		if _, _, err := sandbox.Resolve(w); err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("--writable %s: %w", w, err)
		}
	}
	plan := sandbox.Probe().Plan(&sandbox.Policy{Mode: sp.Mode, Network: sp.Network})
	if len(plan.Refused) > 0 && !sp.BestEffort {
		return fmt.Errorf("--sandbox=%s cannot be enforced here: %s (--sandbox-best-effort starts without it)", sp.Mode, strings.Join(plan.Refused, "; "))
	}
	return nil
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
		Network: p.Network, TmpDir: p.TmpDir, Unenforced: append([]string{}, unenforced...),
		LandlockABI: p.Plan.ABI, UserNamespaces: p.Plan.UserNS}
}

// sandboxNotice is initialize's notice of what the sandbox does not
// enforce ("" when it enforces everything).
func sandboxNotice(p *sandbox.Policy) string {
	if p == nil {
		return ""
	}
	return notice.SandboxUnenforced(p.Plan.Unenforced, len(p.Plan.Refused) > 0)
}

// sandboxSupport is stats' (and so toold status's) sandbox: what this
// system enforces; nil until it was probed (stats {sandbox: true} does).
func sandboxSupport() *protocol.SandboxSupport {
	s, ok := sandbox.Probed()
	if !ok {
		return nil
	}
	return &protocol.SandboxSupport{OS: s.OS, LandlockABI: s.ABI, UserNamespaces: s.UserNS, UserNamespacesError: s.UserNSErr,
		Seccomp: s.Seccomp, Cgroups: sandbox.CgroupsDelegated()}
}

// sessionCgroup makes session id's cgroup, nil where cgroups are not
// delegated (or it cannot be made: its commands then run as they would
// without, and the README says what that leaves).
func (d *Daemon) sessionCgroup(id string) *sandbox.Cgroup {
	if !sandbox.CgroupsDelegated() {
		return nil
	}
	cg, err := sandbox.NewCgroup(id)
	if err != nil {
		d.log.Warn("the session's processes are not in a cgroup of its own", "session", id, "err", err)
		return nil
	}
	return cg
}

// endSessionProcesses ends what the session's commands left running once
// its commands have ended: its sandboxes (and their PID namespaces) and
// its cgroup, each killing every process in it.
func (d *Daemon) endSessionProcesses(sess *liveSession) {
	if sess.tmp != nil {
		d.svc.Runner.EndSandbox(sess.tmp.Path())
	}
	if err := sess.cgroup.Close(); err != nil {
		d.log.Warn("ending the session's cgroup", "session", sess.id, "err", err)
	}
}
