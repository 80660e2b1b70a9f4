package lifecycle

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/methods"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/spool"
)

// Options configure a Daemon.
type Options struct {
	// Version is reported in initialize's serverInfo.
	Version string
	// SpoolRoot is where session spool directories live; "" means
	// spool.DefaultRoot().
	SpoolRoot string
	// Files configures the line index cache.
	Files fileindex.Options
	// DrainTimeout is how long a client's running requests may finish
	// after its input ends before they are cancelled; 0 means rpc's default.
	DrainTimeout time.Duration
	Logger       *slog.Logger
}

// Daemon serves clients: each connection gets a session of its own, and all
// share one file index cache, one process runner and one spool manager.
type Daemon struct {
	opts    Options
	log     *slog.Logger
	svc     *methods.Service
	methods map[string]methods.Method
	start   time.Time

	mu       sync.Mutex // after a client's mu, never before (see client)
	sessions map[*client]struct{}
	closed   bool
}

// New starts a daemon's shared parts and sweeps the spool directories of
// daemons that died without cleaning up.
func New(opts Options) (*Daemon, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	if opts.Files.Logger == nil {
		opts.Files.Logger = log
	}
	root := opts.SpoolRoot
	if root == "" {
		root = spool.DefaultRoot()
	}
	spools, err := spool.NewManager(root)
	if err != nil {
		return nil, err
	}
	if removed, err := spools.Sweep(); err != nil {
		log.Warn("sweeping spool directories", "root", root, "err", err)
	} else if len(removed) > 0 {
		log.Info("removed spool directories of dead daemons", "dirs", removed)
	}
	files, err := fileindex.New(opts.Files)
	if err != nil {
		spools.Close()
		return nil, err
	}
	svc := &methods.Service{Files: files, Runner: exec.NewRunner(log), Spools: spools, Logger: log}
	return &Daemon{
		opts:     opts,
		log:      log,
		svc:      svc,
		methods:  svc.Methods(),
		start:    time.Now(),
		sessions: make(map[*client]struct{}),
	}, nil
}

// Close ends every session — their commands killed, their spool
// directories deleted — and stops the shared parts.
func (d *Daemon) Close() error {
	d.mu.Lock()
	d.closed = true
	clients := make([]*client, 0, len(d.sessions))
	for c := range d.sessions {
		clients = append(clients, c)
	}
	d.mu.Unlock()
	for _, c := range clients {
		c.closeSession()
	}
	return errors.Join(d.svc.Runner.Close(), d.svc.Files.Close(), d.svc.Spools.Close())
}

// ServeConn serves one client until its input ends, it sends exit, or ctx is
// done, then cleans up its session as session/close does. It returns the
// exit code LSP gives a stdio server: 0 after shutdown and exit, 1 for exit
// without shutdown, 0 when the input just ended.
func (d *Daemon) ServeConn(ctx context.Context, rwc io.ReadWriteCloser) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &client{d: d, stop: cancel, exitCode: 0}
	srv := &rpc.Server{
		Handler:      c.handle,
		Inline:       inline,
		DrainTimeout: d.opts.DrainTimeout,
		Logger:       d.log,
	}
	if err := srv.ServeConn(ctx, rwc); err != nil && !errors.Is(err, context.Canceled) {
		d.log.Debug("connection ended", "err", err)
	}
	c.closeSession()
	return c.code()
}

// inline lists the methods that run in order on the read loop, so a script
// that pipes initialize and then read without waiting gets them in order.
func inline(method string) bool {
	switch method {
	case protocol.MethodInitialize, protocol.MethodShutdown, protocol.MethodExit, protocol.MethodSessionClose, protocol.MethodClient:
		return true
	}
	return false
}

// Stats reports what the daemon holds now.
func (d *Daemon) Stats() protocol.Stats {
	// Copied out first: a client's lock comes before the daemon's.
	d.mu.Lock()
	clients := make([]*client, 0, len(d.sessions))
	for c := range d.sessions {
		clients = append(clients, c)
	}
	d.mu.Unlock()
	n := 0
	for _, c := range clients {
		if c.hasSession() {
			n++
		}
	}
	cs := d.svc.Files.Stats()
	return protocol.Stats{
		Sessions:     n,
		ExecsRunning: d.svc.Runner.Running(),
		Cache: protocol.CacheStats{Entries: cs.Entries, Hits: cs.Hits, Misses: cs.Misses,
			Invalidations: cs.Invalidations, IndexBytes: cs.IndexBytes},
		SpoolBytes: d.svc.Spools.Bytes(),
		UptimeMs:   time.Since(d.start).Milliseconds(),
	}
}

// MethodNames lists every method the daemon answers, for initialize.
func (d *Daemon) MethodNames() []string {
	return slices.Clone(protocol.Methods)
}

// NotifyContext returns a context cancelled by SIGINT or SIGTERM, so that a
// daemon stopped by a signal cleans up as session/close does. It also ignores
// SIGPIPE: a client that goes away is a write error, not the daemon's death.
func NotifyContext(ctx context.Context) (context.Context, context.CancelFunc) {
	signal.Ignore(syscall.SIGPIPE)
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// daemonEnv is the daemon's own environment, a session's default.
func daemonEnv() map[string]string {
	env := make(map[string]string)
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}
