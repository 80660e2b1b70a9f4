package lifecycle

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/toold/toold/methods"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/process"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/sandbox"
	"github.com/toold/toold/spool"
)

// client is one connection: its session (made by initialize, or with
// defaults by the first other request) and its place in the LSP lifecycle.
//
// Lock order: a client's mu, then its daemon's mu; never the other way
// round (Daemon.Stats and Close copy the clients out before they lock any).
type client struct {
	d    *Daemon
	stop context.CancelFunc // ends the connection

	shutdown atomic.Bool

	mu       sync.Mutex
	side     *protocol.ClientParams // from a forwarder: the client side's cwd and env
	settings *methods.Settings      // immutable: replaced whole by initialize; nil means defaults
	live     *liveSession           // nil until the first request, and after session/close
	exitCode int
	named    protocol.ClientInfo // the last initialize's clientInfo, logged when it changes
}

// liveSession is a session and what ends it. Its settings are the client's:
// a session closed and remade on the same connection keeps them.
type liveSession struct {
	id      string
	spool   *spool.Dir
	procs   *process.Table  // its background processes
	tmp     *spool.TempDir  // its TMPDIR once sandboxed, removed with it
	cgroup  *sandbox.Cgroup // where its commands run, nil where there are no delegated cgroups
	ctx     context.Context // cancelled when the session closes
	cancel  context.CancelFunc
	running sync.WaitGroup // its requests in flight
}

func (c *client) code() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exitCode
}

func (c *client) hasSession() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.live != nil
}

// admission is what admit decided for a request, in the client's order: the
// session it runs in (registered as in flight on it), or why it cannot run.
type admission struct {
	sess    *methods.Session
	sessCtx context.Context // done when that session closes
	err     error
}

type admissionKey struct{}

// admit runs on the read loop, in order, for every request that is not
// inline (rpc.Server.Admit): a request sent before shutdown runs, one sent
// after it is refused, and one sent before session/close is in flight on
// the session that close cancels and waits for, whatever the goroutines do.
func (c *client) admit(ctx context.Context, req *rpc.Request) (context.Context, func()) {
	a := &admission{}
	var done func()
	switch _, known := c.d.methods[req.Method]; {
	case c.shutdown.Load():
		a.err = errShutDown(req.Method)
	case known || req.Method == protocol.MethodStats:
		a.sess, a.sessCtx, done, a.err = c.session()
	default:
		a.err = rpc.MethodNotFound(req.Method)
	}
	return context.WithValue(ctx, admissionKey{}, a), done
}

func errShutDown(method string) error {
	return rpc.Errorf(protocol.CodeShutDown, nil, "shut down: %s refused after shutdown; send exit", method)
}

// handle dispatches one request of this client: an inline one, or one admit
// has let in.
func (c *client) handle(ctx context.Context, req *rpc.Request) (any, error) {
	if a, ok := ctx.Value(admissionKey{}).(*admission); ok {
		return c.run(ctx, req, a)
	}
	if req.Method == protocol.MethodExit {
		c.exit(ctx)
		return nil, nil
	}
	if c.shutdown.Load() {
		return nil, errShutDown(req.Method)
	}
	switch req.Method {
	case protocol.MethodClient:
		var p protocol.ClientParams
		if err := rpc.DecodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.side = &p
		c.mu.Unlock()
		return nil, nil
	case protocol.MethodInitialize:
		result, err := c.initialize(req.Params)
		if err == nil {
			noteUnknown(req, result)
		}
		return result, err
	case protocol.MethodSessionClose:
		c.closeSession(0)
		return nil, nil
	case protocol.MethodShutdown:
		// What was sent before shutdown is answered: it gets the drain
		// time to finish before it is cancelled, as at the end of input.
		c.shutdown.Store(true)
		c.closeSession(c.d.drainTimeout())
		return nil, nil
	}
	return nil, rpc.MethodNotFound(req.Method) // not inline, not admitted: not served
}

// run runs a request admit let in, in the session it was admitted to.
func (c *client) run(ctx context.Context, req *rpc.Request, a *admission) (any, error) {
	if a.err != nil {
		return nil, a.err
	}
	if req.Method == protocol.MethodStats {
		var p protocol.StatsParams
		if err := rpc.DecodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		if p.Sandbox {
			sandbox.Probe()
		}
		return c.d.Stats(), nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(a.sessCtx, cancel)()
	result, err := c.d.methods[req.Method](ctx, a.sess, req.Params)
	if err == nil {
		noteUnknown(req, result)
	}
	return result, err
}

// noteUnknown names, in the result's notice, the params the method ignored
// as unknown, with the nearest known one: a model's "ofset" would otherwise
// read from line 1 without a word.
func noteUnknown(req *rpc.Request, result any) {
	n, ok := result.(protocol.Noticed)
	if !ok {
		return
	}
	unknown := rpc.UnknownFields(req.Params, protocol.Params[req.Method])
	if len(unknown) == 0 {
		return
	}
	fields := make([]string, len(unknown))
	nearest := make([]string, len(unknown))
	for i, u := range unknown {
		fields[i], nearest[i] = u.Field, u.Nearest
	}
	n.AddNotice(notice.UnknownParams(fields, nearest))
}

// exit ends the connection with LSP's exit code: 0 after shutdown, else 1.
// The session's running requests are cancelled first and their replies
// written; a forwarder is told the code last, for it to end with.
func (c *client) exit(ctx context.Context) {
	c.closeSession(0) // what runs is cancelled and answers before the end
	c.mu.Lock()
	if !c.shutdown.Load() {
		c.exitCode = 1
	}
	code, forwarded := c.exitCode, c.side != nil
	c.mu.Unlock()
	if forwarded {
		if err := rpc.Notify(ctx, protocol.MethodExitCode, protocol.ExitCodeParams{Code: code}); err != nil {
			c.d.log.Debug("telling the forwarder its exit code", "err", err)
		}
	}
	c.stop()
}

func (c *client) initialize(params []byte) (any, error) {
	var p protocol.InitializeParams
	if err := rpc.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	c.mu.Lock()
	side, prev := c.side, c.settings
	c.mu.Unlock()
	st, err := newSettings(&p, side, c.d.sandboxEnv(), prev)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.settings = st // requests running keep the settings they started with
	c.mu.Unlock()
	sess, _, done, err := c.session()
	if err != nil {
		return nil, err
	}
	defer done()
	// The session's sandbox starts now, not with its first command.
	c.d.svc.Runner.PrepareSandbox(sess.SandboxPolicy(), sess.Cgroup)
	if p.ClientInfo != nil {
		// A re-initialize (toold mcp's, with the roots its client
		// announces) of the client named already is no news.
		c.mu.Lock()
		level := slog.LevelDebug
		if c.named != *p.ClientInfo {
			level, c.named = slog.LevelInfo, *p.ClientInfo
		}
		c.mu.Unlock()
		c.d.log.Log(context.Background(), level, "client initialized", "client", p.ClientInfo.Name, "version", p.ClientInfo.Version, "session", sess.ID)
	}
	res := &protocol.InitializeResult{
		ServerInfo: protocol.ServerInfo{Name: protocol.ServerName, Version: c.d.opts.Version},
		Session:    sess.ID,
		SpoolDir:   spoolDir(sess.Spool),
		Limits:     sess.Limits,
		Methods:    c.d.MethodNames(),
		Sandbox:    sandboxInfo(sess.SandboxPolicy(), sess.Unenforced),
	}
	if n := sandboxNotice(sess.Sandbox); n != "" {
		res.AddNotice(n)
	}
	return res, nil
}

// newSettings makes a session's settings from initialize's params; what they
// leave out comes from side (a forwarder's client side) or else the daemon
// (its cwd, its environment, and box's floor, its --sandbox). prev are the
// settings a re-initialize replaces (nil for the first): their sandbox
// stays when p names none, and the sandbox may not be looser than prev's
// or than the floor (sessionSandbox).
func newSettings(p *protocol.InitializeParams, side *protocol.ClientParams, box *sandboxEnv, prev *methods.Settings) (*methods.Settings, error) {
	cfg := &methods.Settings{Cwd: p.Cwd, Env: daemonEnv()}
	if side != nil {
		if side.Env != nil {
			cfg.Env = maps.Clone(side.Env)
		}
		if cfg.Cwd == "" && side.Cwd != "" {
			if fi, err := os.Stat(side.Cwd); err == nil && fi.IsDir() {
				cfg.Cwd = side.Cwd
			}
		}
	}
	if cfg.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, rpc.Errorf(rpc.CodeInternalError, nil, "no cwd given and the daemon's is gone: %v", err)
		}
		cfg.Cwd = wd
	} else if err := checkCwd(cfg.Cwd); err != nil {
		return nil, err
	}
	for k, v := range p.Env {
		cfg.Env[k] = v
	}
	var err error
	if cfg.Roots, err = methods.ResolveRoots(cfg.Cwd, p.Roots); err != nil {
		return nil, err
	}
	if cfg.Limits, err = methods.ApplyLimits(p.Limits); err != nil {
		return nil, err
	}
	if err := sessionSandbox(cfg, p.Sandbox, box, prev); err != nil {
		return nil, err
	}
	if n := p.Notices; n != nil {
		cfg.SpoolsGone = n.SpoolsKept != nil && !*n.SpoolsKept
		cfg.ToolNames = n.ToolNames
	}
	return cfg, nil
}

// checkCwd says what is wrong with a cwd param, if anything.
func checkCwd(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return rpc.InvalidParams("cwd", "%q is not an absolute path", cwd)
	}
	fi, err := os.Stat(cwd)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return rpc.InvalidParams("cwd", "%q: no such directory", cwd)
	case err != nil:
		return rpc.InvalidParams("cwd", "%q: %v", cwd, errors.Unwrap(err))
	case !fi.IsDir():
		return rpc.InvalidParams("cwd", "%q is not a directory", cwd)
	}
	return nil
}

// session returns what a request of the client sees, making the session on
// first use, and registers the request as in flight on it: call done when
// the request ends. The request keeps the settings current now.
func (c *client) session() (*methods.Session, context.Context, func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settings == nil {
		st, err := newSettings(&protocol.InitializeParams{}, c.side, c.d.sandboxEnv(), nil)
		if err != nil {
			return nil, nil, nil, err
		}
		c.settings = st
	}
	if c.live == nil {
		l, err := c.open()
		if err != nil {
			return nil, nil, nil, err
		}
		c.live = l
	}
	if c.settings.Sandbox != nil && c.live.tmp == nil {
		// Beside its spool directory; when the spool root was refused
		// (another's, or others may write to it) or cannot be made, a
		// directory of its own in the system's temporary directory.
		tmp, err := c.live.spool.TempDir()
		if err != nil {
			return nil, nil, nil, rpc.Errorf(rpc.CodeInternalError, nil, "creating the session's TMPDIR: %v", err)
		}
		c.live.tmp = tmp
	}
	c.live.running.Add(1)
	return &methods.Session{ID: c.live.id, Settings: c.settings, Spool: c.live.spool, Procs: c.live.procs, TmpDir: c.live.tmp.Path(),
			Cgroup: c.live.cgroup},
		c.live.ctx, c.live.running.Done, nil
}

// open makes a session: its id, its spool directory and its place among
// the daemon's sessions. c.mu is held (then d.mu, in the lock order).
func (c *client) open() (*liveSession, error) {
	id := newID()
	c.d.mu.Lock()
	closed := c.d.closed
	if !closed {
		c.d.sessions[c] = struct{}{}
	}
	c.d.mu.Unlock()
	if closed {
		return nil, rpc.Errorf(protocol.CodeShutDown, nil, "shut down: the daemon is stopping")
	}
	dir, err := c.d.svc.Spools.Open(id)
	if err != nil {
		return nil, rpc.Errorf(rpc.CodeInternalError, nil, "creating the session's spool directory: %v", err)
	}
	l := &liveSession{id: id, spool: dir, procs: process.NewTable(c.d.svc.Runner, protocol.MaxProcesses), cgroup: c.d.sessionCgroup(id)}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	c.d.log.Debug("session opened", "session", id, "spoolDir", dir.Path())
	return l, nil
}

// closeSession cancels the session's running requests (after grace, if they
// have not all answered by then), waits for them to answer, and deletes its
// spool directory. The next request opens a new session with the same
// initialize settings.
func (c *client) closeSession(grace time.Duration) {
	c.mu.Lock()
	sess := c.live
	c.live = nil
	c.mu.Unlock()
	if sess == nil {
		return
	}
	if grace > 0 {
		answered := make(chan struct{})
		go func() { sess.running.Wait(); close(answered) }()
		t := time.NewTimer(grace)
		select {
		case <-answered:
		case <-t.C:
		}
		t.Stop()
	}
	sess.cancel()
	sess.running.Wait()
	sess.procs.Close() // its processes end before their spools go
	c.d.endSessionProcesses(sess)
	if err := sess.spool.Remove(); err != nil {
		c.d.log.Warn("removing spool directory", "dir", sess.spool.Path(), "err", err)
	}
	if sess.tmp != nil {
		if err := sess.tmp.Remove(); err != nil {
			c.d.log.Warn("removing the session's TMPDIR", "dir", sess.tmp.Path(), "err", err)
		}
	}
	c.d.mu.Lock()
	delete(c.d.sessions, c)
	c.d.mu.Unlock()
	c.d.log.Debug("session closed", "session", sess.id)
}

func newID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
