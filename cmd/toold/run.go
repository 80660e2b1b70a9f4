package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/index"
	"github.com/toold/toold/internal/buildinfo"
	"github.com/toold/toold/lifecycle"
	"github.com/toold/toold/mcp"
	"github.com/toold/toold/remote"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/spool"
)

var build = buildinfo.Read()

// defaultSocket is the shared daemon's socket for this build, in the
// user's private toold directory: a toold of another build has another.
func defaultSocket() string {
	return build.SocketPath(spool.DefaultRoot())
}

func defaultSocketHint() string {
	return filepath.Join(spool.DefaultRoot(), "toold-VERSION-HASH.sock")
}

// logPath is where a daemon that --remote=auto starts on socket logs.
func logPath(socket string) string {
	return strings.TrimSuffix(socket, ".sock") + ".log"
}

// socketOf resolves --remote or --listen: "auto" is the default socket.
func socketOf(flagValue string) string {
	if flagValue == "auto" {
		return defaultSocket()
	}
	return flagValue
}

var cmdServe = &command{
	name: "serve", summary: "serve one client on stdio, or every client on a unix socket",
	help: `Serves the methods of docs/protocol.md.

  toold serve [--stdio]          one client on stdin/stdout (the default)
  toold serve --listen SOCKET    the shared daemon: every connection to the unix socket
                                 is a client with its own session ("auto": the socket of
                                 this build); the socket is 0600 in a 0700 directory
  toold --remote=auto            stdio forwarded to the shared daemon of this build,
                                 which it starts when none answers; that daemon exits
                                 after --idle-timeout (default 1m) with no clients

With --remote the daemon's flags (--idle-timeout, --index, --spool-*, --write-timeout,
--max-conns) apply to a daemon it starts; given to one that runs already with other
values, they are named in a warning (toold status shows what it runs with).`,
	flags: func(fs *flag.FlagSet, o *options) {
		fs.BoolVar(&o.version, "version", false, "print the version and exit (as toold version)")
		fs.BoolVar(&o.stdio, "stdio", true, "serve one client on stdin/stdout")
		fs.StringVar(&o.listen, "listen", "", `listen on this unix socket instead of stdio ("auto": `+defaultSocketHint()+`)`)
		remoteFlags(fs, o)
		spoolFlag(fs, o)
		connFlags(fs, o)
		o.box.define(fs)
		logFlags(fs, o)
	},
	run: func(o *options, args []string) int {
		if o.version {
			fmt.Print(build.Long())
			return 0
		}
		if len(args) > 0 {
			fmt.Fprintf(os.Stderr, "toold serve: unexpected argument %q (see: toold help serve)\n", args[0])
			return 2
		}
		return withLogger(o, func(opts lifecycle.Options) int {
			if o.remote != "" && opts.Sandbox != nil && !slices.Contains(o.given, "sandbox") {
				// From the config file, for toold mcp and the daemon: not
				// this forwarder's to pass.
				opts.Logger.Warn("the config file's sandbox does not apply to toold --remote: the client's initialize gives the session's sandbox")
				opts.Sandbox = nil
			}
			switch {
			case o.remote != "" && opts.Sandbox != nil:
				// The forwarder passes the client's bytes: the session's
				// sandbox is the client's initialize's, not this flag's.
				fmt.Fprintln(os.Stderr, "toold serve: --sandbox does not apply through --remote: give sandbox in initialize (or use toold mcp --remote=auto --sandbox=MODE)")
				return 2
			case o.remote != "":
				return forward(o, opts)
			case o.listen != "":
				return serveSocket(opts, socketOf(o.listen), o.idle)
			case !o.stdio:
				fmt.Fprintln(os.Stderr, "toold serve: needs --stdio or --listen SOCKET")
				return 2
			}
			return withDaemon(opts, func(ctx context.Context, d *lifecycle.Daemon) int { return d.ServeStdio(ctx) })
		})
	},
}

var cmdVersion = &command{
	name: "version", summary: "print the version and build info",
	help:  "Prints the module version, the VCS revision it was built from and the Go version (from the binary's build info).",
	flags: func(*flag.FlagSet, *options) {},
	run: func(_ *options, args []string) int {
		if len(args) > 0 {
			fmt.Fprintln(os.Stderr, "toold version: takes no arguments")
			return 2
		}
		fmt.Print(build.Long())
		return 0
	},
}

// withLogger sets up the log that o asks for and runs f with the daemon
// options o gives.
func withLogger(o *options, f func(lifecycle.Options) int) int {
	logger, err := newLogger(o.logLevel, o.logFormat, o.logFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toold:", err)
		return 2
	}
	slog.SetDefault(logger)
	if o.sessionQuota <= 0 || o.daemonQuota <= 0 {
		fmt.Fprintln(os.Stderr, "toold: spool quotas must be positive")
		return 2
	}
	box, err := o.box.absParams()
	if err == nil && o.remote == "" {
		// Through --remote the flags are refused (serve's run says why)
		// before what this kernel enforces is asked, a process's start.
		err = lifecycle.CheckSandboxFlags(box)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "toold:", err)
		return 2
	}
	var idx *index.Options
	switch o.index {
	case "", "on":
		if o.indexQuota <= 0 {
			fmt.Fprintln(os.Stderr, "toold: --index-quota must be positive")
			return 2
		}
		idx = &index.Options{Quota: o.indexQuota}
	case "off":
	default:
		fmt.Fprintf(os.Stderr, "toold: --index must be on or off, not %q\n", o.index)
		return 2
	}
	return f(lifecycle.Options{Version: build.Version, SpoolRoot: o.spoolRoot, Trace: o.trace, Logger: logger,
		SpoolSessionQuota: o.sessionQuota, SpoolDaemonQuota: o.daemonQuota, Index: idx,
		WriteTimeout: o.writeTimeout, MaxConnsPerUID: o.maxConns, AdoptOrphans: true, Sandbox: box})
}

// withDaemon starts a daemon, runs f with a context that SIGINT and SIGTERM
// cancel, and stops the daemon, so that every way out cleans up.
func withDaemon(opts lifecycle.Options, f func(ctx context.Context, d *lifecycle.Daemon) int) int {
	ctx, stop := lifecycle.NotifyContext(context.Background())
	defer stop()
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(opts.MemoryLimit())
	}
	opts.Logger.Debug("soft memory limit", "bytes", debug.SetMemoryLimit(-1))
	d, err := lifecycle.New(opts)
	if err != nil {
		opts.Logger.Error("starting", "err", err)
		return 1
	}
	code := f(ctx, d)
	if err := d.Close(); err != nil {
		opts.Logger.Warn("stopping", "err", err)
	}
	return code
}

func serveSocket(opts lifecycle.Options, socket string, idle time.Duration) int {
	// Sessions that name no cwd get the daemon's: it must be no client's.
	// The socket was named relative to the cwd we leave.
	if abs, err := filepath.Abs(socket); err == nil {
		socket = abs
	}
	if err := os.Chdir("/"); err != nil {
		opts.Logger.Warn("cannot change to /", "err", err)
	}
	return withDaemon(opts, func(ctx context.Context, d *lifecycle.Daemon) int {
		if err := d.Listen(ctx, socket, idle); err != nil {
			opts.Logger.Error("listening", "socket", socket, "err", err)
			return 1
		}
		return 0
	})
}

// forwardOptions say how to reach the shared daemon o names, and for
// --remote=auto how to start it: this binary, serving the socket with the
// caller's log level, trace and spool root, its log beside the socket. With
// --rpc.trace the forwarder traces its client's requests to log.
func forwardOptions(o *options, log *slog.Logger) remote.Options {
	socket := socketOf(o.remote)
	fo := remote.Options{Socket: socket}
	if o.trace {
		fo.Trace = log
	}
	if o.remote != "auto" {
		return fo // a named socket is someone else's to start
	}
	idle := idleOf(o)
	fo.Start = func() error {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		// --remote= (none): a config file's remote is for clients, not for
		// the daemon they start, which would forward to itself.
		args := []string{"serve", "--listen", socket, "--remote=", "--idle-timeout", idle.String(), "--log-level", o.logLevel}
		if o.spoolRoot != "" {
			args = append(args, "--spool-root", o.spoolRoot)
		}
		if o.trace {
			args = append(args, "--rpc.trace")
		}
		if o.writeTimeout != 0 {
			args = append(args, "--write-timeout", o.writeTimeout.String())
		}
		if o.maxConns != 0 {
			args = append(args, "--max-conns", strconv.Itoa(o.maxConns))
		}
		args = append(args, "--spool-session-quota", strconv.FormatInt(o.sessionQuota, 10),
			"--spool-daemon-quota", strconv.FormatInt(o.daemonQuota, 10),
			"--index", cmp.Or(o.index, "on"), "--index-quota", strconv.FormatInt(o.indexQuota, 10))
		return remote.StartDaemon(exe, args, logPath(socket))
	}
	return fo
}

func forward(o *options, opts lifecycle.Options) int {
	ctx, stop := lifecycle.NotifyContext(context.Background())
	defer stop()
	fo := forwardOptions(o, opts.Logger)
	warnRunningDaemon(o, fo.Socket, opts.Logger)
	// A stop must end a read of stdin in progress (a terminal's above all):
	// Forward's first read waits for the client's first bytes.
	in := lifecycle.Stdin()
	defer in.Close()
	defer context.AfterFunc(ctx, func() { in.Close() })()
	code, err := remote.Forward(ctx, in, os.Stdout, fo)
	if ctx.Err() != nil {
		return code // stopped by a signal: whatever ended the forwarding, it is not an error
	}
	if err != nil {
		opts.Logger.Error("forwarding", "socket", fo.Socket, "err", err)
		return 1
	}
	return code
}

// connectFunc opens a daemon connection, a session of its own, initialized
// with init (initialize's params).
type connectFunc func(ctx context.Context, init map[string]any) (*rpc.Client, error)

// withConnect runs f with a way to open daemon sessions: on a daemon in
// this process, or with --remote on the shared one, through the forwarder
// (which sends this process's cwd and environment and starts the daemon
// when asked to). Every connection f opens has ended when it returns.
func withConnect(o *options, f func(ctx context.Context, connect connectFunc) int) int {
	return withLogger(o, func(opts lifecycle.Options) int {
		var conns sync.WaitGroup
		defer conns.Wait()
		if o.remote == "" {
			return withDaemon(opts, func(ctx context.Context, d *lifecycle.Daemon) int {
				defer conns.Wait() // before the daemon closes
				return f(ctx, func(ctx context.Context, init map[string]any) (*rpc.Client, error) {
					server, client := net.Pipe()
					conns.Go(func() { d.ServeConn(ctx, server) })
					return initialized(ctx, rpc.NewClient(ctx, client, rpc.FramingLines), init, nil)
				})
			})
		}
		ctx, stop := lifecycle.NotifyContext(context.Background())
		defer stop()
		fo := forwardOptions(o, opts.Logger)
		warnRunningDaemon(o, fo.Socket, opts.Logger)
		return f(ctx, func(ctx context.Context, init map[string]any) (*rpc.Client, error) {
			server, client := net.Pipe()
			ferr := make(chan error, 1)
			conns.Go(func() {
				_, err := remote.Forward(ctx, server, server, fo)
				server.Close()
				ferr <- err
			})
			return initialized(ctx, rpc.NewClient(ctx, client, rpc.FramingLines), init, ferr)
		})
	})
}

// initialized sends initialize on a new connection, so that a daemon that
// cannot be reached, or params it refuses, are an error now. ferr gives the
// forwarder's error, which says more than a connection that just ended.
func initialized(ctx context.Context, c *rpc.Client, init map[string]any, ferr <-chan error) (*rpc.Client, error) {
	err := c.Call(ctx, "initialize", init, nil)
	if err == nil {
		return c, nil
	}
	c.Close()
	var re *rpc.Error
	if !errors.As(err, &re) && ferr != nil {
		if fe := <-ferr; fe != nil {
			return nil, fe
		}
	}
	return nil, err
}

var cmdMCP = &command{
	name: "mcp", summary: "a Model Context Protocol server on stdio: the methods as tools",
	help: `Serves the Model Context Protocol on stdin/stdout: read, readBytes, page, exec, grep,
find, ls, the process tools (process_wait, process_read, process_write, process_kill,
process_list) and stats as tools, their results rendered as text for a model (numbered
lines, what was left out and the call that reads it). Each MCP session is a toold
session; its spools go when it ends.

A result must reach the model whole, and clients set long ones aside (Claude Code saves
one over ~50 KB to a file), so a call that gives no size in bytes of its own is answered
in at most 24 KB of text: exec and the process tools show at most 10 KB of each stream, read,
readBytes and page 16 KB, grep 12 KB of lines, find and ls 250 entries, and a result
still longer gives up lines (named, with the page call that reads them), cut once by the
daemon. A call that gives maxBytes (find and ls: limit) gets what it asks for; a line or
match count alone (read's limit, exec's maxLines, grep's limit) asks for more lines, not
more bytes, and keeps the budget. The limit flags (--read.limit, --exec.timeout, ...) set
the session's defaults instead, and turn this budget off.

By default tools declare no outputSchema and results carry no structuredContent: some
clients give the model the JSON in place of the text (codex), others append it to the
text. --structured turns both on, for clients that want the JSON result.

Without --remote the daemon runs in this process. With --remote=auto the session lives
on the shared daemon of this build (started if none answers), so every agent on the
machine shares one daemon and one line-index cache; --remote=SOCKET names the socket.

--root DIR (repeatable) confines read, readBytes, grep, find and ls to those directories
(page reads only this session's spools); the roots the MCP client announces narrow them.
exec is not confined by roots: --sandbox confines the commands. When the session cannot
start (a --root that is not a directory, a sandbox the kernel cannot enforce), toold mcp
still answers its client, and every tool call fails saying why, where the client shows it.

The MCP client's name (from its initialize) names the session in the daemon's log. The
flags can be set once for every client in the config file's [mcp] table (see: toold help).`,
	flags: func(fs *flag.FlagSet, o *options) {
		fs.Var(&o.roots, "root", "confine reading to this directory (repeatable; relative to the working directory)")
		fs.BoolVar(&o.structured, "structured", false, "tools declare their outputSchema and results carry the JSON result as structuredContent beside the text")
		o.limits.define(fs)
		o.box.define(fs)
		remoteFlags(fs, o)
		spoolFlag(fs, o)
		logFlags(fs, o)
	},
	run: func(o *options, args []string) int {
		if len(args) > 0 {
			fmt.Fprintf(os.Stderr, "toold mcp: unexpected argument %q (see: toold help mcp)\n", args[0])
			return 2
		}
		// The session's clientInfo is the MCP client's, from its
		// initialize (mcp.Server names it).
		init, err := initParams(o)
		if err != nil {
			fmt.Fprintln(os.Stderr, "toold mcp:", err)
			return 2
		}
		return withConnect(o, func(ctx context.Context, connect connectFunc) int {
			dial := func(ctx context.Context) (*rpc.Client, error) { return connect(ctx, init) }
			srv := mcp.NewServer(build.Version, dial, slog.Default())
			srv.Init = init
			srv.Structured = o.structured
			if init["limits"] != nil {
				srv.Budget = 0 // the flags' limits are the user's: send them, fit nothing
			}
			// A session the daemon refuses (a --root that is not there)
			// is said where the client shows it: Run answers each tool
			// call with why.
			err := srv.Run(ctx, os.Stdin, os.Stdout)
			if errors.Is(err, mcp.ErrRefused) {
				return 1 // logged when it began
			}
			if err != nil && !errors.Is(err, context.Canceled) {
				slog.Error("mcp", "err", err)
				return 1
			}
			return 0
		})
	},
}

// initParams are the initialize params o's flags give (never nil).
func initParams(o *options) (map[string]any, error) {
	init := map[string]any{}
	if len(o.roots) > 0 {
		init["roots"] = []string(o.roots)
	}
	limits, err := o.limits.params()
	if err != nil {
		return nil, err
	}
	if limits != nil {
		init["limits"] = limits
	}
	box, err := o.box.absParams()
	if err == nil {
		err = lifecycle.CheckSandboxFlags(box)
	}
	if err != nil {
		return nil, err
	}
	if box != nil {
		init["sandbox"] = box
	}
	return init, nil
}

// newLogger logs to stderr, or to file: then stderr itself is redirected
// there too, so that a panic's trace lands in the log.
func newLogger(level, format, file string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	if format != "text" && format != "json" {
		return nil, fmt.Errorf("--log-format: %q is not text or json", format)
	}
	if file != "" {
		f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("--logfile: %w", err)
		}
		err = unix.Dup2(int(f.Fd()), 2)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("--logfile: redirecting stderr: %w", err)
		}
	}
	o := &slog.HandlerOptions{Level: l}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(os.Stderr, o)), nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, o)), nil
}

// printJSON prints v indented on stdout.
func printJSON(v any) {
	out, _ := json.MarshalIndent(v, "", "  ")
	fmt.Println(string(out))
}
