package main

import (
	"log/slog"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/toold/toold/protocol"
)

// daemonFlag is a flag that only a daemon's start takes: given to a client
// of a daemon that runs already, it does nothing.
type daemonFlag struct {
	name string
	// want is the flag's value as o gives it, running the daemon's: the
	// same form, so that they compare; "" when o leaves it to the daemon.
	want, running func(o *options, d *protocol.DaemonSettings) string
}

var startFlags = []daemonFlag{
	{"idle-timeout", func(o *options, _ *protocol.DaemonSettings) string { return idleOf(o).String() },
		func(_ *options, d *protocol.DaemonSettings) string { return ms(d.IdleTimeoutMs) }},
	{"index", func(o *options, _ *protocol.DaemonSettings) string { return o.index },
		func(_ *options, d *protocol.DaemonSettings) string { return d.Index }},
	{"index-quota", func(o *options, _ *protocol.DaemonSettings) string { return strconv.FormatInt(o.indexQuota, 10) },
		func(_ *options, d *protocol.DaemonSettings) string { return strconv.FormatInt(d.IndexQuota, 10) }},
	{"spool-root", func(o *options, _ *protocol.DaemonSettings) string { abs, _ := filepath.Abs(o.spoolRoot); return abs },
		func(_ *options, d *protocol.DaemonSettings) string { return d.SpoolRoot }},
	{"spool-session-quota", func(o *options, _ *protocol.DaemonSettings) string { return strconv.FormatInt(o.sessionQuota, 10) },
		func(_ *options, d *protocol.DaemonSettings) string { return strconv.FormatInt(d.SpoolSessionQuota, 10) }},
	{"spool-daemon-quota", func(o *options, _ *protocol.DaemonSettings) string { return strconv.FormatInt(o.daemonQuota, 10) },
		func(_ *options, d *protocol.DaemonSettings) string { return strconv.FormatInt(d.SpoolDaemonQuota, 10) }},
	{"write-timeout", func(o *options, d *protocol.DaemonSettings) string {
		if o.writeTimeout == 0 { // the daemon's default
			return ms(d.WriteTimeoutMs)
		}
		return o.writeTimeout.String()
	}, func(_ *options, d *protocol.DaemonSettings) string { return ms(d.WriteTimeoutMs) }},
	{"max-conns", func(o *options, d *protocol.DaemonSettings) string {
		if o.maxConns == 0 {
			return strconv.Itoa(d.MaxConns)
		}
		return strconv.Itoa(o.maxConns)
	}, func(_ *options, d *protocol.DaemonSettings) string { return strconv.Itoa(d.MaxConns) }},
}

// autoIdle is the idle timeout of a daemon --remote=auto starts, when
// --idle-timeout gives none.
const autoIdle = time.Minute

// idleOf is the idle timeout a daemon that o starts gets.
func idleOf(o *options) time.Duration {
	if o.idle == 0 {
		return autoIdle
	}
	return o.idle
}

func ms(n int64) string { return (time.Duration(n) * time.Millisecond).String() }

// warnRunningDaemon warns, when o gives daemon flags (on the command line
// or in the config file) and a daemon already answers on socket, which of
// them do not apply: that daemon was started with other values. A client
// of a running daemon is not refused for them: its sessions work, and a
// config shared by several clients may name values for the daemon that
// whichever client comes first starts; the user learns which ones lost.
func warnRunningDaemon(o *options, socket string, log *slog.Logger) {
	var given []daemonFlag
	for _, f := range startFlags {
		if slices.Contains(o.given, f.name) || slices.Contains(o.configured, f.name) {
			given = append(given, f)
		}
	}
	if len(given) == 0 {
		return
	}
	d, err := runningSettings(socket)
	if err != nil {
		return // none runs: the forwarder starts one with these flags
	}
	var yours, theirs []string
	for _, f := range given {
		if w, r := f.want(o, d), f.running(o, d); w != r {
			yours = append(yours, "--"+f.name+"="+w)
			theirs = append(theirs, "--"+f.name+"="+r)
		}
	}
	if len(yours) == 0 {
		return
	}
	log.Warn("these flags do not apply: the shared daemon runs already, with other values; "+
		"toold stop ends it, and the next client starts one with its own",
		"flags", strings.Join(yours, " "), "daemon", strings.Join(theirs, " "), "socket", socket)
}

// runningSettings asks the daemon on socket, if one answers, what it was
// started with.
func runningSettings(socket string) (*protocol.DaemonSettings, error) {
	st, err := queryDaemon(socket)
	if err != nil {
		return nil, err
	}
	return &st.Daemon, nil
}

// startedWith is the daemon's start flags, as toold serve takes them.
func startedWith(d *protocol.DaemonSettings) string {
	var flags []string
	for _, f := range startFlags {
		flags = append(flags, "--"+f.name+"="+f.running(nil, d))
	}
	return strings.Join(flags, " ")
}
