// Command toold is a daemon that gives AI coding agents windows of files and
// of command output that fit a context window: whole lines, exact metadata,
// and nothing lost. See README.md and docs/protocol.md.
//
// Usage:
//
//	toold [flags]                 serve one client on stdin/stdout (= toold serve --stdio)
//	toold serve --stdio [flags]
//	toold serve --listen SOCKET   the shared daemon: a session per connection
//	toold --remote=auto           stdio forwarded to the shared daemon, started if needed
//	toold mcp                     a Model Context Protocol server on stdio
//	toold call METHOD [JSON]      send one request, print the result
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/toold/toold/lifecycle"
	"github.com/toold/toold/mcp"
	"github.com/toold/toold/remote"
	"github.com/toold/toold/rpc"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const usage = `toold: file and command windows for AI coding agents, over JSON-RPC 2.0.

Usage:
  toold [flags]                  serve one client on stdin/stdout (same as: toold serve --stdio)
  toold serve --stdio [flags]    the same, explicitly
  toold serve --listen SOCKET    the shared daemon: every connection to the unix socket is a
                                 client with its own session (socket 0600 in a 0700 directory)
  toold --remote=auto            serve stdio by forwarding it to the shared daemon at the
                                 default socket, starting that daemon when none answers; it
                                 exits after --idle-timeout (default 1m) with no clients
  toold mcp                      a Model Context Protocol server on stdio: the methods as
                                 tools, their results rendered for a model
  toold call METHOD [JSON]       send one request to a daemon of its own, print the
                                 result as JSON on stdout; an error goes to stderr, exit 1

On stdio the framing is detected from the first bytes: Content-Length headers (LSP,
VS Code) or one JSON message per line (scripts). Replies use the same framing. Logs go
to stderr only. Methods: initialize, read, readBytes, page, exec, stats, session/close,
shutdown, exit, $/cancelRequest (see docs/protocol.md).

Example:
  echo '{"jsonrpc":"2.0","id":1,"method":"read","params":{"path":"README.md","limit":5}}' | toold

Flags:
`

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	fs := flag.NewFlagSet("toold", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	showVersion := fs.Bool("version", false, "print the version and exit")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	logFormat := fs.String("log-format", "text", "log format on stderr: text or json")
	stdio := fs.Bool("stdio", true, "serve one client on stdin/stdout")
	listen := fs.String("listen", "", "serve: listen on this unix socket instead of stdio (\"auto\": the default socket, "+lifecycle.DefaultSocket()+")")
	remote := fs.String("remote", "", "forward stdio to the shared daemon: \"auto\" (the default socket, started if needed) or a socket path")
	idle := fs.Duration("idle-timeout", 0, "serve --listen: exit after this long with no clients (0: never; --remote=auto starts its daemon with 1m)")
	spoolRoot := fs.String("spool-root", "", "directory for session spool directories (default $XDG_RUNTIME_DIR/toold-UID or $TMPDIR/toold-UID)")

	// Flags may come before and after the subcommand.
	cmd := "serve"
	if err := fs.Parse(args); err != nil {
		return flagExit(err)
	}
	if fs.NArg() > 0 {
		cmd = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return flagExit(err)
		}
	}
	if *showVersion {
		fmt.Println("toold", version)
		return 0
	}
	logger, err := newLogger(*logLevel, *logFormat)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toold:", err)
		return 2
	}
	slog.SetDefault(logger)
	opts := lifecycle.Options{Version: version, SpoolRoot: *spoolRoot, Logger: logger}

	switch {
	case cmd == "serve" && *remote != "":
		return forward(opts, *remote, *idle, *logLevel)
	case cmd == "serve" && *listen != "":
		return serveSocket(opts, *listen, *idle)
	case cmd == "serve" && !*stdio:
		fmt.Fprintln(os.Stderr, "toold: serve needs --stdio or --listen SOCKET")
		return 2
	}
	switch cmd {
	case "serve":
		return serve(opts)
	case "call":
		return call(opts, fs.Args())
	case "mcp":
		return serveMCP(opts)
	case "help":
		fs.SetOutput(os.Stdout)
		fs.Usage()
		return 0
	}
	fmt.Fprintf(os.Stderr, "toold: unknown command %q (try toold --help)\n", cmd)
	return 2
}

// withDaemon starts a daemon, runs f with a context that SIGINT and SIGTERM
// cancel, and stops the daemon, so that every way out cleans up.
func withDaemon(opts lifecycle.Options, f func(ctx context.Context, d *lifecycle.Daemon) int) int {
	ctx, stop := lifecycle.NotifyContext(context.Background())
	defer stop()
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

func serve(opts lifecycle.Options) int {
	return withDaemon(opts, func(ctx context.Context, d *lifecycle.Daemon) int { return d.ServeStdio(ctx) })
}

func serveSocket(opts lifecycle.Options, socket string, idle time.Duration) int {
	if socket == "auto" {
		socket = lifecycle.DefaultSocket()
	}
	return withDaemon(opts, func(ctx context.Context, d *lifecycle.Daemon) int {
		if err := d.Listen(ctx, socket, idle); err != nil {
			opts.Logger.Error("listening", "socket", socket, "err", err)
			return 1
		}
		return 0
	})
}

func forward(opts lifecycle.Options, to string, idle time.Duration, logLevel string) int {
	socket := to
	if to == "auto" {
		socket = lifecycle.DefaultSocket()
	}
	if idle == 0 {
		idle = time.Minute
	}
	start := func() error {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		args := []string{"serve", "--listen", socket, "--idle-timeout", idle.String(), "--log-level", logLevel}
		if opts.SpoolRoot != "" {
			args = append(args, "--spool-root", opts.SpoolRoot)
		}
		return remote.StartDaemon(exe, args, filepath.Join(filepath.Dir(socket), "toold.log"))
	}
	if to != "auto" {
		start = nil // a named socket is someone else's to start
	}
	ctx, stop := lifecycle.NotifyContext(context.Background())
	defer stop()
	code, err := remote.Forward(ctx, os.Stdin, os.Stdout, remote.Options{Socket: socket, Start: start})
	if err != nil {
		opts.Logger.Error("forwarding", "socket", socket, "err", err)
		return 1
	}
	return code
}

// serveMCP serves the Model Context Protocol on stdio; each MCP session is a
// connection, and so a session, of an in-process daemon.
func serveMCP(opts lifecycle.Options) int {
	return withDaemon(opts, func(ctx context.Context, d *lifecycle.Daemon) int {
		var conns sync.WaitGroup
		defer conns.Wait()
		connect := func(ctx context.Context) (*rpc.Client, error) {
			server, client := net.Pipe()
			conns.Go(func() { d.ServeConn(ctx, server) })
			return rpc.NewClient(ctx, client, rpc.FramingLines), nil
		}
		if err := mcp.NewServer(version, connect, opts.Logger).Run(ctx, os.Stdin, os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
			opts.Logger.Error("mcp", "err", err)
			return 1
		}
		return 0
	})
}

// call runs one request against an in-process daemon over a pipe, as a
// client would, and prints the result.
func call(opts lifecycle.Options, args []string) int {
	if len(args) < 1 || len(args) > 2 {
		fmt.Fprintln(os.Stderr, "usage: toold call METHOD [JSON]")
		return 2
	}
	method := args[0]
	var params json.RawMessage
	if len(args) == 2 {
		params = json.RawMessage(args[1])
		if !json.Valid(params) {
			fmt.Fprintf(os.Stderr, "toold call: params are not valid JSON: %s\n", args[1])
			return 1
		}
	}
	return withDaemon(opts, func(ctx context.Context, d *lifecycle.Daemon) int {
		server, conn := net.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			d.ServeConn(ctx, server)
		}()
		client := rpc.NewClient(ctx, conn, rpc.FramingLines)
		var result json.RawMessage
		err := client.Call(ctx, method, params, &result)
		client.Close()
		<-done
		if err != nil {
			var rerr *rpc.Error
			if errors.As(err, &rerr) {
				b, _ := json.Marshal(map[string]any{"code": rerr.Code, "message": rerr.Message, "data": rerr.Data})
				fmt.Fprintln(os.Stderr, string(b))
			} else {
				fmt.Fprintln(os.Stderr, "toold call:", err)
			}
			return 1
		}
		out, _ := json.MarshalIndent(result, "", "  ")
		fmt.Println(string(out))
		return 0
	})
}

func flagExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

func newLogger(level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	o := &slog.HandlerOptions{Level: l}
	var w io.Writer = os.Stderr
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, o)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, o)), nil
	}
	return nil, fmt.Errorf("--log-format: %q is not text or json", format)
}
