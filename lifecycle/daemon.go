package lifecycle

import (
	"cmp"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/index"
	"github.com/toold/toold/methods"
	"github.com/toold/toold/outline"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/sandbox"
	"github.com/toold/toold/spool"
)

// Options configure a Daemon.
type Options struct {
	// Version is reported in initialize's serverInfo.
	Version string
	// SpoolRoot is where session spool directories live; "" means
	// spool.DefaultRoot().
	SpoolRoot string
	// SpoolSessionQuota and SpoolDaemonQuota cap the spooled output of a
	// session and of every session together; 0 means protocol's defaults.
	SpoolSessionQuota, SpoolDaemonQuota int64
	// Files configures the line index cache.
	Files fileindex.Options
	// DrainTimeout is how long a client's running requests may finish
	// after its input ends, or after it sends shutdown, before they are
	// cancelled; 0 means rpc's default (1 s).
	DrainTimeout time.Duration
	// Trace logs every request and its reply (rpc.Trace): --rpc.trace.
	Trace bool
	// AdoptOrphans makes the daemon a child subreaper, so that descendants
	// of commands that leave their process group come back to it and are
	// ended with their command (see exec.Runner.AdoptOrphans). Only for a
	// process whose every child is a command of this daemon: the toold
	// binary sets it, tests that run other processes beside a daemon don't.
	AdoptOrphans bool
	// WriteTimeout is how long a reply's write may block before the client
	// is taken to have stopped reading and its connection is ended; 0 means
	// rpc's default (a minute), negative none.
	WriteTimeout time.Duration
	// MaxConnsPerUID caps the connections of one uid that the shared daemon
	// serves at once; past it a connection is answered -32006 and closed.
	// 0 means DefaultMaxConnsPerUID, lowered to half the descriptors the
	// process may open, so that commands and files keep the other half.
	MaxConnsPerUID int
	// Sandbox is the sandbox of a session whose initialize names none
	// (serve's and mcp's --sandbox); nil means off.
	Sandbox *protocol.SandboxParams
	// Index configures the search index; nil turns it off.
	Index  *index.Options
	Logger *slog.Logger
}

// MemoryLimit is the soft memory limit (runtime/debug.SetMemoryLimit) for a
// process that runs a daemon with these options: four times the index
// cache's budget, 256 MiB by default. The cache and the windows are most of
// the heap; without a limit the GC lets the heap double past what is live
// (GOGC=100) before it collects, with one the heap stays near the budget.
func (o Options) MemoryLimit() int64 {
	budget := o.Files.MaxIndexBytes
	if budget <= 0 {
		budget = fileindex.DefaultMaxIndexBytes
	}
	return 4 * budget
}

// Daemon serves clients: each connection gets a session of its own, and all
// share one file index cache, one process runner and one spool manager.
type Daemon struct {
	opts    Options
	log     *slog.Logger
	svc     *methods.Service
	methods map[string]methods.Method
	start   time.Time

	spoolRoot string       // where the sessions' spools are
	idle      atomic.Int64 // Listen's idle timeout, in ns

	mu       sync.Mutex // after a client's mu, never before (see client)
	sessions map[*client]struct{}
	closed   bool

	box boxState // what the sandboxes of its sessions share (sandbox.go)
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
	spools, err := spool.Start(root)
	if spools == nil {
		return nil, err
	}
	spools.MaxFileBytes = protocol.MaxSpoolFileBytes
	spools.SessionQuota = cmp.Or(opts.SpoolSessionQuota, protocol.DefaultSessionQuota)
	spools.DaemonQuota = cmp.Or(opts.SpoolDaemonQuota, protocol.DefaultDaemonQuota)
	if err != nil {
		// read and the rest need no spool: serve them, and let exec give
		// its previews with a notice that the output could not be kept.
		log.Warn("no spool root: exec output is not kept beyond its preview", "root", root, "err", err)
	} else if removed, err := spools.Sweep(); err != nil { // what the sweeps remove needs nothing of a user: DEBUG
		log.Warn("sweeping spool directories", "root", root, "err", err)
	} else if len(removed) > 0 {
		log.Debug("removed spool directories of dead daemons", "dirs", removed)
	}
	if removed := sandbox.SweepCgroups(); len(removed) > 0 {
		log.Info("ended the session cgroups of dead daemons", "cgroups", removed)
	}
	if removed, err := spool.SweepTempDirs(os.TempDir()); err != nil {
		log.Warn("sweeping the TMPDIRs of dead daemons", "dir", os.TempDir(), "err", err)
	} else if len(removed) > 0 {
		log.Debug("removed the TMPDIRs of dead daemons", "dirs", removed)
	}
	files, err := fileindex.New(opts.Files)
	if err != nil {
		spools.Close()
		return nil, err
	}
	outline.PinCtags() // before any session's command runs
	runner := exec.NewRunner(log)
	if opts.AdoptOrphans {
		if err := runner.AdoptOrphans(); err != nil {
			log.Warn("escaped descendants of commands will not be ended with them", "err", err)
		}
	}
	svc := &methods.Service{Files: files, Runner: runner, Spools: spools, Logger: log}
	if opts.Index != nil {
		iopt := *opts.Index
		iopt.Logger = cmp.Or(iopt.Logger, log)
		if svc.Search, err = index.New(iopt); err != nil {
			log.Warn("no search index: greps scan", "err", err)
		}
	}
	return &Daemon{
		opts:      opts,
		log:       log,
		svc:       svc,
		methods:   svc.Methods(),
		start:     time.Now(),
		sessions:  make(map[*client]struct{}),
		spoolRoot: root,
	}, nil
}

// Close ends every session — their commands killed, their spool
// directories deleted — and stops the shared parts.
func (d *Daemon) Close() error {
	d.endSessions()
	var ierr error
	if d.svc.Search != nil {
		ierr = d.svc.Search.Close()
	}
	return errors.Join(d.svc.Runner.Close(), d.svc.Files.Close(), d.svc.Spools.Close(), ierr)
}

// endSessions ends every session as session/close does, their running
// requests cancelled and answered, and opens no more.
func (d *Daemon) endSessions() {
	d.mu.Lock()
	d.closed = true
	clients := make([]*client, 0, len(d.sessions))
	for c := range d.sessions {
		clients = append(clients, c)
	}
	d.mu.Unlock()
	// At once: a session's processes may take 2 s to end (SIGTERM, then
	// SIGKILL), and sessions do not wait for one another.
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() { c.closeSession(0) })
	}
	wg.Wait()
}

// ServeConn serves one client until its input ends, it sends exit, or ctx is
// done, then cleans up its session as session/close does. It returns the
// exit code LSP gives a stdio server: 0 after shutdown and exit, 1 for exit
// without shutdown, 0 when the input just ended.
func (d *Daemon) ServeConn(ctx context.Context, rwc io.ReadWriteCloser) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	c := &client{d: d, stop: cancel, exitCode: 0}
	handler := c.handle
	if d.opts.Trace {
		handler = rpc.Trace(handler, d.log)
	}
	srv := &rpc.Server{
		Handler:      handler,
		Inline:       inline,
		Admit:        c.admit,
		DrainTimeout: d.opts.DrainTimeout,
		// A cancelled command that ignores SIGTERM is killed KillDelay
		// later: its reply must still be written before the end, with
		// time to spare after the kill for its output to drain and the
		// reply to be made on a loaded machine (1 s was seen not to be).
		CancelTimeout: d.drainTimeout() + exec.KillDelay + cancelMargin,
		WriteTimeout:  d.opts.WriteTimeout,
		Logger:        d.log,
	}
	if err := srv.ServeConn(ctx, rwc); err != nil && !errors.Is(err, context.Canceled) {
		d.log.Debug("connection ended", "err", err)
	}
	c.closeSession(0)
	return c.code()
}

// drainTimeout is how long requests may finish after the input ends or a
// shutdown comes before they are cancelled (Options.DrainTimeout).
// cancelMargin is what CancelTimeout leaves past the kill of a cancelled
// command that ignores SIGTERM.
const cancelMargin = 2 * time.Second

func (d *Daemon) drainTimeout() time.Duration {
	if d.opts.DrainTimeout > 0 {
		return d.opts.DrainTimeout
	}
	return time.Second // rpc.Server's default
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
		Terminals:    d.svc.Runner.Terminals(),
		Cache: protocol.CacheStats{Entries: cs.Entries, Hits: cs.Hits, Misses: cs.Misses,
			Invalidations: cs.Invalidations, IndexBytes: cs.IndexBytes},
		SpoolBytes: d.svc.Spools.Bytes(),
		UptimeMs:   time.Since(d.start).Milliseconds(),
		Index:      d.indexStats(),
		Sandbox:    sandboxSupport(),
		Daemon:     d.settings(),
	}
}

// settings are what the daemon was started with, its defaults resolved.
func (d *Daemon) settings() protocol.DaemonSettings {
	s := protocol.DaemonSettings{
		SpoolRoot:         d.spoolRoot,
		SpoolSessionQuota: cmp.Or(d.opts.SpoolSessionQuota, protocol.DefaultSessionQuota),
		SpoolDaemonQuota:  cmp.Or(d.opts.SpoolDaemonQuota, protocol.DefaultDaemonQuota),
		Index:             "off",
		IdleTimeoutMs:     time.Duration(d.idle.Load()).Milliseconds(),
		WriteTimeoutMs:    cmp.Or(d.opts.WriteTimeout, rpc.DefaultWriteTimeout).Milliseconds(),
		MaxConns:          d.maxConnsPerUID(),
	}
	if d.opts.Index != nil && d.svc.Search != nil { // one that failed to start is off
		s.Index, s.IndexQuota = "on", cmp.Or(d.opts.Index.Quota, index.DefaultQuota)
	}
	return s
}

func (d *Daemon) indexStats() []protocol.IndexStats {
	out := []protocol.IndexStats{}
	if d.svc.Search == nil {
		return out
	}
	for _, s := range d.svc.Search.Stats() {
		out = append(out, protocol.IndexStats{Root: s.Root, State: s.State, Reason: s.Reason, Files: s.Files,
			Bytes: s.Bytes, BuiltMs: s.BuiltMs, Hits: s.Hits, Scans: s.Scans})
	}
	return out
}

// MethodNames lists every method the daemon answers, for initialize.
func (d *Daemon) MethodNames() []string {
	return slices.Clone(protocol.Methods)
}

// NotifyContext returns a context cancelled by SIGINT or SIGTERM, so that a
// daemon stopped by a signal cleans up as session/close does. It also
// catches SIGPIPE, so that a client that goes away is a write error, not the
// daemon's death (Go would die of it on stdout). Catching, not ignoring: an
// ignored signal stays ignored across exec, and commands would start with
// SIGPIPE ignored, unlike in a shell (`yes | head -c1` would print "Broken
// pipe" errors and pipelines give other exit statuses); a caught one is
// reset to its default in the child.
func NotifyContext(ctx context.Context) (context.Context, context.CancelFunc) {
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) // never read: delivery is dropped
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
