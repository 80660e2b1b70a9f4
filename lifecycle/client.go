package lifecycle

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/toold/toold/methods"
	"github.com/toold/toold/rpc"
)

// client is one connection: its session (made by initialize, or with
// defaults by the first other request) and its place in the LSP lifecycle.
type client struct {
	d    *Daemon
	stop context.CancelFunc // ends the connection

	shutdown atomic.Bool

	mu       sync.Mutex
	side     *clientParams  // from a forwarder: the client side's cwd and env
	config   *sessionConfig // from initialize; nil means defaults
	live     *liveSession   // nil until the first request, and after session/close
	exitCode int
}

// liveSession is a session and what ends it.
type liveSession struct {
	*methods.Session
	ctx     context.Context // cancelled when the session closes
	cancel  context.CancelFunc
	running sync.WaitGroup // its requests in flight
}

// sessionConfig is what initialize set; a session closed and remade on the
// same connection keeps it.
type sessionConfig struct {
	cwd    string
	env    map[string]string
	roots  []string
	limits methods.Limits
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
	if req.Method == "exit" {
		c.exit()
		return nil, nil
	}
	if c.shutdown.Load() {
		return nil, rpc.Errorf(rpc.CodeShutDown, nil, "shut down: %s refused after shutdown; send exit", req.Method)
	}
	switch req.Method {
	case ClientMethod:
		var p clientParams
		if err := rpc.DecodeParams(req.Params, &p); err != nil {
			return nil, err
		}
		c.mu.Lock()
		c.side = &p
		c.mu.Unlock()
		return nil, nil
	case "initialize":
		return c.initialize(req.Params)
	case "session/close":
		c.closeSession()
		return nil, nil
	case "shutdown":
		c.shutdown.Store(true)
		c.closeSession()
		return nil, nil
	case "stats":
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
func (c *client) exit() {
	c.mu.Lock()
	if !c.shutdown.Load() {
		c.exitCode = 1
	}
	c.mu.Unlock()
	c.stop()
}

// initializeParams are initialize's params.
type initializeParams struct {
	ClientInfo *struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"clientInfo"`
	Cwd    string                `json:"cwd"`
	Env    map[string]string     `json:"env"`
	Roots  []string              `json:"roots"`
	Limits *methods.LimitsParams `json:"limits"`
}

// InitializeResult is initialize's result.
type InitializeResult struct {
	ServerInfo ServerInfo     `json:"serverInfo"`
	Session    string         `json:"session"`
	SpoolDir   string         `json:"spoolDir"`
	Limits     methods.Limits `json:"limits"`
	Methods    []string       `json:"methods"`
}

// ServerInfo names the server.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

func (c *client) initialize(params []byte) (any, error) {
	var p initializeParams
	if err := rpc.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	c.mu.Lock()
	side := c.side
	c.mu.Unlock()
	cfg, err := newConfig(&p, side)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.config = cfg
	if c.live != nil {
		s := c.live.Session
		s.Cwd, s.Env, s.Roots, s.Limits = cfg.cwd, cfg.env, cfg.roots, cfg.limits
	}
	c.mu.Unlock()
	sess, _, done, err := c.session()
	if err != nil {
		return nil, err
	}
	defer done()
	if p.ClientInfo != nil {
		c.d.log.Info("client initialized", "client", p.ClientInfo.Name, "version", p.ClientInfo.Version, "session", sess.ID)
	}
	return &InitializeResult{
		ServerInfo: ServerInfo{Name: "toold", Version: c.d.opts.Version},
		Session:    sess.ID,
		SpoolDir:   sess.Spool.Path(),
		Limits:     sess.Limits,
		Methods:    c.d.MethodNames(),
	}, nil
}

// newConfig makes a session's settings from initialize's params; what they
// leave out comes from side (a forwarder's client side) or else the daemon.
func newConfig(p *initializeParams, side *clientParams) (*sessionConfig, error) {
	cfg := &sessionConfig{cwd: p.Cwd, env: daemonEnv()}
	if side != nil {
		if side.Env != nil {
			cfg.env = maps.Clone(side.Env)
		}
		if cfg.cwd == "" && side.Cwd != "" {
			if fi, err := os.Stat(side.Cwd); err == nil && fi.IsDir() {
				cfg.cwd = side.Cwd
			}
		}
	}
	if cfg.cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, rpc.Errorf(rpc.CodeInternalError, nil, "no cwd given and the daemon's is gone: %v", err)
		}
		cfg.cwd = wd
	} else if err := checkCwd(cfg.cwd); err != nil {
		return nil, err
	}
	for k, v := range p.Env {
		cfg.env[k] = v
	}
	var err error
	if cfg.roots, err = methods.ResolveRoots(cfg.cwd, p.Roots); err != nil {
		return nil, err
	}
	if cfg.limits, err = p.Limits.Apply(); err != nil {
		return nil, err
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

// session returns the client's session, making it on first use, and
// registers a request in flight on it: call done when the request ends.
func (c *client) session() (*methods.Session, context.Context, func(), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live == nil {
		cfg := c.config
		if cfg == nil {
			var err error
			if cfg, err = newConfig(&initializeParams{}, c.side); err != nil {
				return nil, nil, nil, err
			}
		}
		id := newID()
		c.d.mu.Lock()
		closed := c.d.closed
		if !closed {
			c.d.sessions[c] = struct{}{}
		}
		c.d.mu.Unlock()
		if closed {
			return nil, nil, nil, rpc.Errorf(rpc.CodeShutDown, nil, "shut down: the daemon is stopping")
		}
		dir, err := c.d.svc.Spools.Open(id)
		if err != nil {
			return nil, nil, nil, rpc.Errorf(rpc.CodeInternalError, nil, "creating the session's spool directory: %v", err)
		}
		l := &liveSession{Session: &methods.Session{ID: id, Cwd: cfg.cwd, Env: cfg.env, Roots: cfg.roots, Limits: cfg.limits, Spool: dir}}
		l.ctx, l.cancel = context.WithCancel(context.Background())
		c.live = l
		c.d.log.Debug("session opened", "session", id, "spoolDir", dir.Path())
	}
	c.live.running.Add(1)
	return c.live.Session, c.live.ctx, c.live.running.Done, nil
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
	if err := sess.Spool.Remove(); err != nil {
		c.d.log.Warn("removing spool directory", "dir", sess.Spool.Path(), "err", err)
	}
	c.d.mu.Lock()
	delete(c.d.sessions, c)
	c.d.mu.Unlock()
	c.d.log.Debug("session closed", "session", sess.ID)
}

func newID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}
