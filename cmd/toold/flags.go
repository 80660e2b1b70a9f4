package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toold/toold/index"
	"github.com/toold/toold/protocol"
)

// options are every command's flags; a command defines the ones it takes.
type options struct {
	version   bool
	logLevel  string
	logFormat string
	logFile   string
	trace     bool

	stdio     bool
	listen    string
	remote    string
	idle      time.Duration
	spoolRoot string

	sessionQuota, daemonQuota int64
	index                     string // "on" or "off"
	indexQuota                int64
	writeTimeout              time.Duration
	maxConns                  int

	roots      stringList
	limits     limitFlags
	box        sandboxFlags
	json       bool
	structured bool

	given []string // the flags set on the command line, by name
}

// logFlags are the flags of the commands that log.
func logFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	fs.StringVar(&o.logFormat, "log-format", "text", "log format: text or json")
	fs.StringVar(&o.logFile, "logfile", "", "append logs to this file instead of stderr (stderr itself goes there too, so a crash's trace is kept)")
	fs.BoolVar(&o.trace, "rpc.trace", false, "log every request and its reply: method, id, duration and error code (with --remote, this client's requests, timed from this side; a daemon it starts traces too)")
}

// spoolFlag are the flags of the commands that may run a daemon.
func spoolFlag(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.spoolRoot, "spool-root", "", "directory for session spool directories (default $XDG_RUNTIME_DIR/toold-UID or $TMPDIR/toold-UID)")
	fs.Int64Var(&o.sessionQuota, "spool-session-quota", protocol.DefaultSessionQuota, "bytes of spooled output a session keeps; past it its oldest spools are evicted")
	fs.Int64Var(&o.daemonQuota, "spool-daemon-quota", protocol.DefaultDaemonQuota, "bytes of spooled output the daemon keeps over all sessions; past it the writing session's oldest spools are evicted")
	fs.StringVar(&o.index, "index", "on", `the search index: "on" (a trigram index of each tree grepped, built in the background, kept in $XDG_CACHE_HOME/toold/index) or "off" (every grep scans)`)
	fs.Int64Var(&o.indexQuota, "index-quota", index.DefaultQuota, "bytes of search index files on disk over all trees; past it the least recently used tree's is removed")
}

// connFlags are the flags of a daemon's connections: the serve command's.
func connFlags(fs *flag.FlagSet, o *options) {
	fs.DurationVar(&o.writeTimeout, "write-timeout", 0, "end a connection whose client has not read a reply for this long (default 1m)")
	fs.IntVar(&o.maxConns, "max-conns", 0, "serve --listen: connections of one uid served at once; more are refused with -32006 (default 1024, at most half the open-files limit)")
}

// remoteFlags are the flags of the commands that can use the shared daemon.
func remoteFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.remote, "remote", "", `use the shared daemon: "auto" (the socket of this build, `+defaultSocketHint()+`, started if none answers) or a socket path`)
	fs.DurationVar(&o.idle, "idle-timeout", 0, "the shared daemon exits after this long with no clients (0: 1m for a daemon --remote=auto starts, else never)")
}

// sandboxFlags are initialize's sandbox as flags (serve's default for its
// sessions, mcp's for its one).
type sandboxFlags struct {
	mode       string
	writable   stringList
	network    bool
	bestEffort bool
}

func (b *sandboxFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&b.mode, "sandbox", "", "confine commands with the kernel: read-only, workspace-write or off (the default)")
	fs.Var(&b.writable, "writable", "with --sandbox=workspace-write, also allow writes beneath this directory (repeatable)")
	fs.BoolVar(&b.network, "network", false, "with --sandbox, allow sockets beyond loopback")
	fs.BoolVar(&b.bestEffort, "sandbox-best-effort", false, "with --sandbox, start even where the kernel cannot enforce all of it (initialize's notice says what is not)")
}

// params are the sandbox the flags give, shaped as initialize's param; nil
// when --sandbox is not given.
func (b *sandboxFlags) params() (*protocol.SandboxParams, error) {
	if b.mode == "" {
		if len(b.writable) > 0 || b.network || b.bestEffort {
			return nil, fmt.Errorf("--writable, --network and --sandbox-best-effort need --sandbox")
		}
		return nil, nil
	}
	if !slices.Contains(protocol.SandboxModes, b.mode) {
		return nil, fmt.Errorf("--sandbox: %q is not one of %s", b.mode, strings.Join(protocol.SandboxModes, ", "))
	}
	if len(b.writable) > 0 && b.mode != protocol.SandboxWorkspaceWrite {
		return nil, fmt.Errorf("--writable needs --sandbox=%s: --sandbox=%s would drop it", protocol.SandboxWorkspaceWrite, b.mode)
	}
	return &protocol.SandboxParams{Mode: b.mode, Writable: b.writable, Network: b.network, BestEffort: b.bestEffort}, nil
}

// absParams are params with the writable dirs made absolute: a daemon
// leaves the cwd they are relative to.
func (b *sandboxFlags) absParams() (*protocol.SandboxParams, error) {
	p, err := b.params()
	if p == nil || err != nil {
		return p, err
	}
	for i, w := range p.Writable {
		if p.Writable[i], err = filepath.Abs(w); err != nil {
			return nil, fmt.Errorf("--writable %s: %w", w, err)
		}
	}
	return p, nil
}

// stringList is a repeatable flag.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(s string) error {
	*l = append(*l, s)
	return nil
}

// limitFlags are initialize's limits as flags; a flag not given is left to
// the daemon's default (-1 here).
type limitFlags struct {
	readLimit, readMaxBytes, readMaxLineChars int
	readBytesMaxBytes                         int
	execMaxLines, execMaxBytes                int
	execTimeout                               time.Duration
}

func (l *limitFlags) define(fs *flag.FlagSet) {
	fs.IntVar(&l.readLimit, "read.limit", -1, "read: default lines per window (daemon default 2000)")
	fs.IntVar(&l.readMaxBytes, "read.max-bytes", -1, "read: default bytes per window (daemon default 51200, cap 262144)")
	fs.IntVar(&l.readMaxLineChars, "read.max-line-chars", -1, "read: lines longer than this are clipped (daemon default 2000; 0: never)")
	fs.IntVar(&l.readBytesMaxBytes, "readbytes.max-bytes", -1, "readBytes: default bytes per window (daemon default 65536, cap 262144)")
	fs.IntVar(&l.execMaxLines, "exec.max-lines", -1, "exec: lines shown per stream (daemon default 2000)")
	fs.IntVar(&l.execMaxBytes, "exec.max-bytes", -1, "exec: bytes shown per stream (daemon default 51200, cap 262144)")
	fs.DurationVar(&l.execTimeout, "exec.timeout", -1, "exec: default timeout (daemon default 2m; 0: none)")
}

// params are the limits given, shaped as initialize's limits param; nil
// when none is.
func (l *limitFlags) params() (map[string]any, error) {
	out := map[string]any{}
	set := func(group, field, flagName string, v int) error {
		if v == -1 {
			return nil
		}
		if v < 0 {
			return fmt.Errorf("--%s: %d is negative", flagName, v)
		}
		g, _ := out[group].(map[string]any)
		if g == nil {
			g = map[string]any{}
			out[group] = g
		}
		g[field] = v
		return nil
	}
	timeout := -1
	if l.execTimeout != -1 {
		timeout = int(l.execTimeout.Milliseconds())
	}
	for _, e := range []error{
		set("read", "limit", "read.limit", l.readLimit),
		set("read", "maxBytes", "read.max-bytes", l.readMaxBytes),
		set("read", "maxLineChars", "read.max-line-chars", l.readMaxLineChars),
		set("readBytes", "maxBytes", "readbytes.max-bytes", l.readBytesMaxBytes),
		set("exec", "maxLines", "exec.max-lines", l.execMaxLines),
		set("exec", "maxBytes", "exec.max-bytes", l.execMaxBytes),
		set("exec", "timeoutMs", "exec.timeout", timeout),
	} {
		if e != nil {
			return nil, e
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}
