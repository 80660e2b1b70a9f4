package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toold/toold/internal/peercred"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// daemonFlags are status's and stop's: which daemon.
func daemonFlags(fs *flag.FlagSet, o *options) {
	fs.StringVar(&o.remote, "remote", "auto", `the daemon's socket: "auto" (the socket of this build, `+defaultSocketHint()+`) or a path`)
}

var cmdStatus = &command{
	name: "status", summary: "the shared daemon's state: socket, pid, version, sessions, cache, log",
	help: `Asks the shared daemon of this build (or the one on --remote=SOCKET) for its state:
socket, pid, version, uptime, sessions, running commands, line-index cache, spool bytes
and where it logs. Exit status 1 when no daemon answers. It never starts one.`,
	flags: func(fs *flag.FlagSet, o *options) {
		daemonFlags(fs, o)
		fs.BoolVar(&o.json, "json", false, "print the state as JSON")
	},
	run: runStatus,
}

var cmdStop = &command{
	name: "stop", summary: "stop the shared daemon gracefully",
	help: `Stops the shared daemon of this build (or the one on --remote=SOCKET) as SIGTERM does:
it cancels every session's commands, deletes their spools and removes its socket. Waits
up to 10s for it to exit. Exit status 1 when no daemon answers.`,
	flags: daemonFlags,
	run:   runStop,
}

// daemonState is what status prints.
type daemonState struct {
	Socket       string `json:"socket"`
	Pid          int    `json:"pid"`
	Version      string `json:"version"`
	UptimeMs     int64  `json:"uptimeMs"`
	Sessions     int    `json:"sessions"` // not counting status's own
	ExecsRunning int    `json:"execsRunning"`
	Cache        struct {
		Entries       int64 `json:"entries"`
		Hits          int64 `json:"hits"`
		Misses        int64 `json:"misses"`
		Invalidations int64 `json:"invalidations"`
		IndexBytes    int64 `json:"indexBytes"`
	} `json:"cache"`
	SpoolBytes int64                    `json:"spoolBytes"`
	LogFile    string                   `json:"logFile"` // "" when unknown
	Daemon     protocol.DaemonSettings  `json:"daemon"`  // what it was started with
	Sandbox    *protocol.SandboxSupport `json:"sandbox"`
}

func runStatus(o *options, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(os.Stderr, "toold status: unexpected argument %q\n", args[0])
		return 2
	}
	socket := socketOf(o.remote)
	st, err := queryDaemon(socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toold status:", err)
		if others := otherSockets(socket); len(others) > 0 {
			fmt.Fprintf(os.Stderr, "toold status: sockets of other builds (toold status --remote=SOCKET): %s\n", strings.Join(others, " "))
		}
		return 1
	}
	if o.json {
		printJSON(st)
		return 0
	}
	log := st.LogFile
	if log == "" {
		log = "unknown"
	}
	fmt.Printf(`toold daemon
  socket    %s
  pid       %d
  version   %s
  uptime    %s
  sessions  %d
  running   %s
  cache     %d files indexed (%s), %d hits, %d misses, %d invalidations
  spool     %s
  log       %s
  flags     %s
  sandbox   %s
`, st.Socket, st.Pid, st.Version, (time.Duration(st.UptimeMs) * time.Millisecond).Round(time.Second),
		st.Sessions, count(st.ExecsRunning, "command", "commands"), st.Cache.Entries, notice.Size(st.Cache.IndexBytes), st.Cache.Hits,
		st.Cache.Misses, st.Cache.Invalidations, notice.Size(st.SpoolBytes), log, startedWith(&st.Daemon), sandboxLine(st.Sandbox))
	return 0
}

// count is n with the noun it takes: "1 command", "2 commands".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// sandboxLine says what the daemon's system enforces of a sandbox.
func sandboxLine(s *protocol.SandboxSupport) string {
	switch {
	case s == nil:
		return "unknown"
	case s.OS != "linux":
		return "none: the sandbox needs Linux, this is " + s.OS
	}
	userns := "user namespaces"
	if !s.UserNamespaces {
		userns = "no user namespaces (" + s.UserNamespacesError + ")"
	}
	yes := map[bool]string{true: "", false: "no "}
	return fmt.Sprintf("Landlock ABI %d, %s, %sseccomp, %scgroups", s.LandlockABI, userns, yes[s.Seccomp], yes[s.Cgroups])
}

// queryDaemon asks the daemon on socket for its state, in a session of its
// own that ends when it returns.
func queryDaemon(socket string) (*daemonState, error) {
	conn, pid, err := dialDaemon(socket)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := rpc.NewClient(ctx, conn, rpc.FramingLines)
	defer c.Close()
	var init protocol.InitializeResult
	if err := c.Call(ctx, "initialize", map[string]any{"clientInfo": map[string]string{"name": "toold status"}}, &init); err != nil {
		return nil, fmt.Errorf("%s: %w", socket, err)
	}
	st := &daemonState{Socket: socket, Pid: pid, Version: init.ServerInfo.Version, LogFile: stderrOf(pid)}
	if err := c.Call(ctx, "stats", map[string]bool{"sandbox": true}, st); err != nil {
		return nil, fmt.Errorf("%s: %w", socket, err)
	}
	st.Sessions-- // status's own
	return st, nil
}

// otherSockets lists the other toold sockets beside socket: daemons of
// other builds, which this one never talks to unless told to.
func otherSockets(socket string) []string {
	all, _ := filepath.Glob(filepath.Join(filepath.Dir(socket), "toold-*.sock"))
	var others []string
	for _, s := range all {
		if s != socket {
			others = append(others, s)
		}
	}
	return others
}

// dialDaemon connects to socket and learns the daemon's pid from the
// socket's peer credentials, which the kernel vouches for.
func dialDaemon(socket string) (*net.UnixConn, int, error) {
	c, err := net.Dial("unix", socket)
	if err != nil {
		return nil, 0, fmt.Errorf("no daemon answers on %s", socket)
	}
	conn := c.(*net.UnixConn)
	pid, err := peercred.Pid(conn)
	if err != nil {
		conn.Close()
		return nil, 0, fmt.Errorf("%s: the daemon's pid: %w", socket, err)
	}
	return conn, pid, nil
}

// stderrOf is where process pid's stderr goes, which is where a daemon
// logs (--logfile redirects stderr too); "" when that is not a file.
func stderrOf(pid int) string {
	p, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/fd/2")
	if err != nil || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "/dev/") {
		return ""
	}
	return p
}

func runStop(o *options, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(os.Stderr, "toold stop: unexpected argument %q\n", args[0])
		return 2
	}
	socket := socketOf(o.remote)
	conn, pid, err := dialDaemon(socket)
	if err != nil {
		fmt.Fprintln(os.Stderr, "toold stop:", err)
		return 1
	}
	conn.Close()
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		fmt.Fprintf(os.Stderr, "toold stop: signalling pid %d: %v\n", pid, err)
		return 1
	}
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			fmt.Fprintf(os.Stderr, "toold stop: pid %d (%s) has not exited after 10s\n", pid, socket)
			return 1
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Printf("stopped the toold daemon, pid %d, on %s\n", pid, socket)
	return 0
}

// alive reports whether pid is a process that has not exited (a zombie,
// waiting for its parent to reap it, has).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	// pid (comm) STATE ...: comm may hold spaces and parentheses.
	if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) {
		return b[i+2] != 'Z'
	}
	return true
}
