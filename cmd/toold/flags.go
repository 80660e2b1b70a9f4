package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toold/toold/index"
	"github.com/toold/toold/lifecycle"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/spool"
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

	given      []string // the flags set on the command line, by name
	configured []string // the flags the config file set
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
	fs.StringVar(&o.spoolRoot, "spool-root", "", "directory for session spool directories (default: toold-UID in /run/user/UID, else in $XDG_RUNTIME_DIR, else in the temporary directory; here "+spool.DefaultRoot()+")")
	fs.Int64Var(&o.sessionQuota, "spool-session-quota", protocol.DefaultSessionQuota, "bytes of spooled output a session keeps; past it its oldest spools are evicted")
	fs.Int64Var(&o.daemonQuota, "spool-daemon-quota", protocol.DefaultDaemonQuota, "bytes of spooled output the daemon keeps over all sessions; past it the writing session's oldest spools are evicted")
	fs.StringVar(&o.index, "index", "on", `the search index: "on" (a trigram index of each tree grepped, built in the background, kept in $XDG_CACHE_HOME/toold/index) or "off" (every grep scans)`)
	fs.Int64Var(&o.indexQuota, "index-quota", index.DefaultQuota, "bytes of search index files on disk over all trees; past it the least recently used tree's is removed")
}

// connFlags are the flags of a daemon's connections: the serve command's.
func connFlags(fs *flag.FlagSet, o *options) {
	fs.DurationVar(&o.writeTimeout, "write-timeout", 0, "end a connection whose client has not read a reply for this long (default "+shortDuration(rpc.DefaultWriteTimeout)+")")
	fs.IntVar(&o.maxConns, "max-conns", 0, fmt.Sprintf("serve --listen: connections of one uid served at once; more are refused with %d (default %d, at most half the open-files limit)",
		protocol.CodeTooManyConnections, lifecycle.DefaultMaxConnsPerUID))
}

// remoteFlags are the flags of the commands that can use the shared daemon.
func remoteFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.remote, "remote", "", `use the shared daemon: "auto" (the socket of this build, `+defaultSocketHint()+`, started if none answers) or a socket path`)
	fs.DurationVar(&o.idle, "idle-timeout", 0, "the shared daemon exits after this long with no clients (0: "+shortDuration(autoIdle)+" for a daemon --remote=auto starts, else never)")
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
// the daemon's default.
type limitFlags struct {
	readLimit, readMaxBytes, readMaxLineChars optInt
	readBytesMaxBytes                         optInt
	execMaxLines, execMaxBytes                optInt
	execTimeout                               optDuration
}

func (l *limitFlags) define(fs *flag.FlagSet) {
	d := protocol.DefaultLimits
	fs.Var(&l.readLimit, "read.limit", fmt.Sprintf("read: default `lines` per window (daemon default %d)", d.Read.Limit))
	fs.Var(&l.readMaxBytes, "read.max-bytes", fmt.Sprintf("read: default `bytes` per window (daemon default %d, cap %d)", d.Read.MaxBytes, protocol.MaxWindowBytes))
	fs.Var(&l.readMaxLineChars, "read.max-line-chars", fmt.Sprintf("read: lines longer than this many `chars` are clipped (daemon default %d; 0: never)", d.Read.MaxLineChars))
	fs.Var(&l.readBytesMaxBytes, "readbytes.max-bytes", fmt.Sprintf("readBytes: default `bytes` per window (daemon default %d, cap %d)", d.ReadBytes.MaxBytes, protocol.MaxWindowBytes))
	fs.Var(&l.execMaxLines, "exec.max-lines", fmt.Sprintf("exec: `lines` shown per stream (daemon default %d)", d.Exec.MaxLines))
	fs.Var(&l.execMaxBytes, "exec.max-bytes", fmt.Sprintf("exec: `bytes` shown per stream (daemon default %d, cap %d)", d.Exec.MaxBytes, protocol.MaxExecBytes))
	fs.Var(&l.execTimeout, "exec.timeout", "exec: default timeout, a `duration` such as 5m (daemon default "+
		shortDuration(time.Duration(d.Exec.TimeoutMs)*time.Millisecond)+"; 0: none)")
}

// shortDuration is d as help writes it: 1m, not 1m0s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// params are the limits given, as initialize's limits param; nil when
// none is.
func (l *limitFlags) params() (*protocol.LimitsParams, error) {
	if l.execTimeout.v < 0 {
		return nil, fmt.Errorf("--exec.timeout: %s is negative", l.execTimeout.v)
	}
	timeout := optInt{v: int(l.execTimeout.v.Milliseconds()), set: l.execTimeout.set}
	var p protocol.LimitsParams
	read, readBytes, exec := &protocol.ReadLimitsParams{}, &protocol.ReadBytesLimitsParams{}, &protocol.ExecLimitsParams{}
	given := false
	for _, f := range []struct {
		dst  **protocol.Num
		name string
		v    optInt
	}{
		{&read.Limit, "read.limit", l.readLimit},
		{&read.MaxBytes, "read.max-bytes", l.readMaxBytes},
		{&read.MaxLineChars, "read.max-line-chars", l.readMaxLineChars},
		{&readBytes.MaxBytes, "readbytes.max-bytes", l.readBytesMaxBytes},
		{&exec.MaxLines, "exec.max-lines", l.execMaxLines},
		{&exec.MaxBytes, "exec.max-bytes", l.execMaxBytes},
		{&exec.TimeoutMs, "exec.timeout", timeout},
	} {
		if !f.v.set {
			continue
		}
		if f.v.v < 0 {
			return nil, fmt.Errorf("--%s: %d is negative", f.name, f.v.v)
		}
		n := protocol.Num(f.v.v)
		*f.dst, given = &n, true
	}
	if !given {
		return nil, nil
	}
	if *read != (protocol.ReadLimitsParams{}) {
		p.Read = read
	}
	if *readBytes != (protocol.ReadBytesLimitsParams{}) {
		p.ReadBytes = readBytes
	}
	if *exec != (protocol.ExecLimitsParams{}) {
		p.Exec = exec
	}
	return &p, nil
}

// optInt is an int flag that knows whether it was given: its default is
// the daemon's, which help names, not a sentinel it would print.
type optInt struct {
	v   int
	set bool
}

func (o *optInt) String() string {
	if o == nil || !o.set {
		return ""
	}
	return strconv.Itoa(o.v)
}

func (o *optInt) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		return errors.New("not a whole number")
	}
	o.v, o.set = int(v), true
	return nil
}

// optDuration is optInt for a duration.
type optDuration struct {
	v   time.Duration
	set bool
}

func (o *optDuration) String() string {
	if o == nil || !o.set {
		return ""
	}
	return o.v.String()
}

func (o *optDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration (such as 90s or 5m)")
	}
	o.v, o.set = v, true
	return nil
}
