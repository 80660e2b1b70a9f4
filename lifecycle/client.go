package lifecycle

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/toold/toold/methods"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
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
}

// liveSession is a session and what ends it. Its settings are the client's:
// a session closed and remade on the same connection keeps them.
type liveSession struct {
	id      string
	spool   *spool.Dir
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

// handle dispatches one request of this client.
func (c *client) handle(ctx context.Context, req *rpc.Request) (any, error) {
	if req.Method == protocol.MethodExit {
		c.exit(ctx)
		return nil, nil
	}
	if c.shutdown.Load() {
		return nil, rpc.Errorf(protocol.CodeShutDown, nil, "shut down: %s refused after shutdown; send exit", req.Method)
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
		return c.initialize(req.Params)
	case protocol.MethodSessionClose:
		c.closeSession()
		return nil, nil
	case protocol.MethodShutdown:
		c.shutdown.Store(true)
		c.closeSession()
		return nil, nil
	case protocol.MethodStats:
		// Like any first request, stats opens the caller's session.
		_, _, done, err := c.session()
		if err != nil {
			return nil, err
		}
		defer done()
		return c.d.Stats(), nil
	}
	m, ok := c.d.methods[req.Method]
	if !ok {
		return nil, rpc.MethodNotFound(req.Method)
	}
	sess, sessCtx, done, err := c.session()
	if err != nil {
		return nil, err
	}
	defer done()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(sessCtx, cancel)()
	return m(ctx, sess, req.Params)
}

// exit ends the connection with LSP's exit code: 0 after shutdown, else 1.
// A forwarder is told the code last, for it to end with.
func (c *client) exit(ctx context.Context) {
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
	side := c.side
	c.mu.Unlock()
	st, err := newSettings(&p, side)
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
	if p.ClientInfo != nil {
		c.d.log.Info("client initialized", "client", p.ClientInfo.Name, "version", p.ClientInfo.Version, "session", sess.ID)
	}
	return &protocol.InitializeResult{
		ServerInfo: protocol.ServerInfo{Name: protocol.ServerName, Version: c.d.opts.Version},
		Session:    sess.ID,
		SpoolDir:   sess.Spool.Path(),
		Limits:     sess.Limits,
		Methods:    c.d.MethodNames(),
	}, nil
}

// newSettings makes a session's settings from initialize's params; what they
// leave out comes from side (a forwarder's client side) or else the daemon.
func newSettings(p *protocol.InitializeParams, side *protocol.ClientParams) (*methods.Settings, error) {
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
	} else if fi, err := os.Stat(cfg.Cwd); err != nil || !fi.IsDir() || !filepath.IsAbs(cfg.Cwd) {
		return nil, rpc.InvalidParams("cwd", "%q is not an absolute path to a directory", p.Cwd)
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
	return cfg, nil
}

// session returns what a request of the client sees, making the session on
// first use, and registers the request as in flight on it: call done when
// the request ends. The request keeps the settings current now.
func (c *client) session() (*methods.Session, context.Context, func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.settings == nil {
		st, err := newSettings(&protocol.InitializeParams{}, c.side)
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
	c.live.running.Add(1)
	return &methods.Session{ID: c.live.id, Settings: c.settings, Spool: c.live.spool}, c.live.ctx, c.live.running.Done, nil
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
	l := &liveSession{id: id, spool: dir}
	l.ctx, l.cancel = context.WithCancel(context.Background())
	c.d.log.Debug("session opened", "session", id, "spoolDir", dir.Path())
	return l, nil
}

// closeSession cancels the session's running requests, waits for them to
// answer, and deletes its spool directory. The next request opens a new
// session with the same initialize settings.
func (c *client) closeSession() {
	c.mu.Lock()
	sess := c.live
	c.live = nil
	c.mu.Unlock()
	if sess == nil {
		return
	}
	sess.cancel()
	sess.running.Wait()
	if err := sess.spool.Remove(); err != nil {
		c.d.log.Warn("removing spool directory", "dir", sess.spool.Path(), "err", err)
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
