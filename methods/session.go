package methods

import (
	"context"
	"log/slog"
	"sort"
	"sync"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/index"
	"github.com/toold/toold/process"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/sandbox"
	"github.com/toold/toold/seen"
	"github.com/toold/toold/spool"
)

// Service holds what every session shares: the file index cache, the
// process runner and the spool directories.
type Service struct {
	Files  *fileindex.Cache
	Runner *exec.Runner
	Spools *spool.Manager
	// Search is the daemon's search index; nil when it is off.
	Search *index.Manager
	Logger *slog.Logger

	seenOnce sync.Once
	seenSt   *seen.Store // what sessions read, for ifChanged; made on first use
}

// seen returns the daemon's record of what its sessions read.
func (svc *Service) seen() *seen.Store {
	svc.seenOnce.Do(func() { svc.seenSt = seen.NewStore(seen.MaxBytes) })
	return svc.seenSt
}

// Settings are what a session's requests work with: where, what they may
// read and their per-call defaults. A Settings is never changed once made:
// initialize makes a new one and swaps it in, and a request keeps the one it
// started with (as gopls swaps immutable snapshots).
type Settings struct {
	Cwd   string
	Env   map[string]string
	Roots []Root // from ResolveRoots; empty means everywhere
	// Sandbox confines the session's commands; nil means none. Its TmpDir
	// is the session's (Session.TmpDir).
	Sandbox *sandbox.Policy
	// Unenforced says what of Sandbox this kernel does not enforce
	// (bestEffort).
	Unenforced []string
	// SandboxParams are what Sandbox was made from (initialize's, or the
	// daemon's --sandbox): a re-initialize that names no sandbox keeps
	// them, and one that does may not loosen them. nil when off.
	SandboxParams *protocol.SandboxParams
	// SpoolsGone is set when the session's spools are gone by the time its
	// results are read (initialize's notices.spoolsKept false): notices
	// name no spool.
	SpoolsGone bool
	// ToolNames is set when notices name the methods as toold mcp's tools
	// (initialize's notices.toolNames).
	ToolNames bool
	protocol.Limits
}

// Session is what one request of a client sees: the session's id and spool
// directory, and the settings current when the request started.
type Session struct {
	ID string
	*Settings
	Spool *spool.Dir
	Procs *process.Table // its background processes
	// TmpDir is the session's private TMPDIR when it is sandboxed; its
	// commands may write there.
	TmpDir string
	// Cgroup is where the session's commands run, nil for none: it ends
	// what they leave behind with the session.
	Cgroup *sandbox.Cgroup
}

// EnvList returns the session's environment merged with extra (extra wins),
// as os/exec wants it, sorted for a stable order.
func (s *Settings) EnvList(extra map[string]string) []string {
	m := make(map[string]string, len(s.Env)+len(extra))
	for k, v := range s.Env {
		m[k] = v
	}
	for k, v := range extra {
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// A Method answers one request of a session.
type Method func(ctx context.Context, s *Session, params []byte) (any, error)

// Methods returns the working methods by name.
func (svc *Service) Methods() map[string]Method {
	return map[string]Method{
		protocol.MethodRead:         svc.Read,
		protocol.MethodReadBytes:    svc.ReadBytes,
		protocol.MethodPage:         svc.Page,
		protocol.MethodExec:         svc.Exec,
		protocol.MethodProcessRead:  svc.ProcessRead,
		protocol.MethodProcessWait:  svc.ProcessWait,
		protocol.MethodProcessWrite: svc.ProcessWrite,
		protocol.MethodProcessKill:  svc.ProcessKill,
		protocol.MethodProcessList:  svc.ProcessList,
		protocol.MethodGrep:         svc.Grep,
		protocol.MethodFind:         svc.Find,
		protocol.MethodLs:           svc.Ls,
	}
}
