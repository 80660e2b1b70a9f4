package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/mcp"
	"github.com/toold/toold/notice"
)

// runBin runs the built toold with args in dir (the test's cwd when "")
// and env, and returns its stdout, stderr and exit status.
func runBin(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return runExe(t, binPath, dir, env, args...)
}

func runExe(t *testing.T, exe, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	for try := 0; ; try++ {
		cmd := exec.Command(exe, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if errors.Is(err, syscall.ETXTBSY) && try < 50 {
			// A copy of the binary (copyBinary) was open for writing
			// while another test forked: the child holds that fd until
			// its exec (golang.org/issue/22315). It is gone soon.
			time.Sleep(20 * time.Millisecond)
			continue
		}
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatalf("toold %v: %v", args, err)
		}
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}
}

// runParsed runs toold with args in this process as far as parseArgs goes,
// and returns what it wrote to stdout and stderr and its exit status: for
// args that name no command to run (--help, a refused flag), whose parse is
// what is checked; a run of the -race binary costs a process start (25 ms
// of CPU, 4,300 page faults). It fails t if args name a command to run.
func runParsed(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	if c, _, _, code := parseArgs(args, &out, &errb); c == nil {
		return out.String(), errb.String(), code
	}
	t.Fatalf("toold %v: parsed as a command to run", args)
	return "", "", 0
}

// runArgs is runBin with TOOLD_LONG=1 and runParsed in the quick run, for
// the checks of the parse that the quick run makes in this process.
func runArgs(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	if testenv.Long() {
		return runBin(t, "", nil, args...)
	}
	return runParsed(t, args...)
}

func TestVersion(t *testing.T) {
	t.Parallel()
	out, _, code := runBin(t, "", nil, "version")
	if code != 0 || !strings.HasPrefix(out, "toold ") || !strings.Contains(out, "module    github.com/toold/toold\n") ||
		!strings.Contains(out, "go        go1.") {
		t.Errorf("toold version: %d %q", code, out)
	}
	// The quick run has one of the spellings (the others are parsed alike).
	for _, args := range testenv.Size([][]string{{"serve", "--version"}}, [][]string{{"--version"}, {"-version"}, {"serve", "--version"}}) {
		if o, _, c := runBin(t, "", nil, args...); c != 0 || o != out {
			t.Errorf("toold %v: %d %q, want what toold version prints", args, c, o)
		}
	}
	// A release build: the version set at link time is the one reported,
	// here and in initialize's serverInfo. It is a build of its own (a link
	// of the -race binary in a cold cache): in the quick run buildinfo's
	// TestRead holds Override.
	if !testenv.Long() {
		return
	}
	exe, err := testenv.Build(testenv.Race, "-X github.com/toold/toold/internal/buildinfo.Override=v9.8.7")
	if err != nil {
		t.Fatal(err)
	}
	if out, _, _ := runExe(t, exe, "", nil, "version"); !strings.HasPrefix(out, "toold v9.8.7\n") {
		t.Errorf("release build: %q", out)
	}
	out, _, _ = runExe(t, exe, "", nil, "--spool-root", filepath.Join(t.TempDir(), "spool"), "call", "initialize")
	var init struct {
		ServerInfo struct{ Name, Version string }
	}
	if json.Unmarshal([]byte(out), &init) != nil || init.ServerInfo.Version != "v9.8.7" {
		t.Errorf("serverInfo: %s", out)
	}
}

// The flags each command takes: its help lists them, and no other.
var commandFlags = map[string][]string{
	"serve":   {"version", "stdio", "listen", "remote", "idle-timeout", "spool-root", "log-level", "log-format", "logfile", "rpc.trace"},
	"mcp":     {"root", "structured", "read.limit", "read.max-bytes", "read.max-line-chars", "readbytes.max-bytes", "exec.max-lines", "exec.max-bytes", "exec.timeout", "remote", "idle-timeout", "spool-root", "log-level", "log-format", "logfile", "rpc.trace"},
	"call":    {"remote", "idle-timeout", "spool-root", "log-level", "log-format", "logfile", "rpc.trace"},
	"status":  {"remote", "json"},
	"stop":    {"remote"},
	"version": nil,
	"schema":  nil,
	"help":    nil,
}

// TestHelpPerCommand: each command's help lists the flags it takes and no
// other, and says what is true. Each `toold help COMMAND` runs the binary
// once with TOOLD_LONG=1, its text checked for all (it ran twice, 9 more
// starts of the -race binary).
func TestHelpPerCommand(t *testing.T) {
	t.Parallel()
	overview, _, code := runBin(t, "", nil, "help")
	if code != 0 {
		t.Fatalf("toold help: %d", code)
	}
	// The quick run has one of the spellings (the other is parsed alike).
	for _, args := range testenv.Size([][]string{{"-h"}}, [][]string{{"--help"}, {"-h"}}) {
		if o, _, c := runBin(t, "", nil, args...); c != 0 || o != overview {
			t.Errorf("toold %v: %d, not the overview", args, c)
		}
	}
	all := map[string]bool{}
	for _, flags := range commandFlags {
		for _, f := range flags {
			all[f] = true
		}
	}
	helps := map[string]string{}
	for name, flags := range commandFlags {
		if !strings.Contains(overview, "\n  "+name+" ") {
			t.Errorf("the overview does not list %s", name)
		}
		// The quick run has the binary print toold mcp's help (the
		// longest, which names the tools), and the rest as `toold
		// COMMAND --help` parsed in this process.
		help, _, code := runArgs(t, name, "--help")
		if testenv.Long() || name == "mcp" {
			help, _, code = runBin(t, "", nil, "help", name)
		}
		helps[name] = help
		if code != 0 || !strings.HasPrefix(help, "Usage: toold "+name) {
			t.Errorf("toold help %s: %d %q", name, code, help)
			continue
		}
		if name != "help" && (testenv.Long() || name == "mcp") {
			if o, _, c := runArgs(t, name, "--help"); c != 0 || o != help {
				t.Errorf("toold %s --help: %d, differs from toold help %s:\n%s", name, c, name, o)
			}
		}
		takes := map[string]bool{}
		for _, f := range flags {
			takes[f] = true
			if !strings.Contains(help, "\n  -"+f+" ") && !strings.Contains(help, "\n  -"+f+"\n") {
				t.Errorf("toold help %s does not list -%s", name, f)
			}
		}
		for f := range all {
			if !takes[f] && (strings.Contains(help, "\n  -"+f+" ") || strings.Contains(help, "\n  -"+f+"\n")) {
				t.Errorf("toold help %s lists -%s, which it does not take", name, f)
			}
		}
	}
	// What the help says is true: no sentinel shown as a default, [flags]
	// only where there are some, toold mcp's tools all named, and what
	// --root confines.
	for name, flags := range commandFlags {
		help := helps[name]
		if strings.Contains(help, "(default -1") || strings.Contains(help, "$TMPDIR/toold") {
			t.Errorf("toold help %s shows a sentinel or an old default:\n%s", name, help)
		}
		if usage, _, _ := strings.Cut(help, "\n"); strings.HasSuffix(usage, "[flags]") != (len(flags) > 0) {
			t.Errorf("toold help %s: %q", name, usage)
		}
	}
	help := helps["mcp"]
	for _, tool := range mcp.ToolNames() {
		if !regexp.MustCompile(`\b` + tool + `\b`).MatchString(help) {
			t.Errorf("toold help mcp does not name the tool %s", tool)
		}
	}
	if !strings.Contains(help, "--root DIR (repeatable) confines read, readBytes, grep, find and ls") {
		t.Errorf("toold help mcp on --root:\n%s", help)
	}
	if _, e, code := runBin(t, "", nil, "help", "frob"); code != 2 || !strings.Contains(e, `unknown command "frob"`) {
		t.Errorf("toold help frob: %d %q", code, e)
	}
}

// Every flag a command does not take is refused, before or after the
// command, with one line that names it.
func TestRefusedFlags(t *testing.T) {
	t.Parallel()
	// Every command with every flag of the others it does not take: through
	// the binary with TOOLD_LONG=1; in the quick run in this process
	// (runArgs), and through the binary toold mcp with the first such flag
	// and the three cases below.
	pairs, runs := 0, 0
	for _, name := range slices.Sorted(maps.Keys(commandFlags)) {
		for i, f := range refusedFlags(name) {
			v := "1"
			if f == "exec.timeout" || f == "idle-timeout" {
				v = "1s"
			}
			args := []string{name, "--" + f + "=" + v}
			if name == "serve" {
				args = args[1:] // toold --listen=1 alone is serve
			}
			_, e, code := runArgs(t, args...)
			wantRefused(t, args, name, f, e, code)
			if i == 0 && name == "mcp" && !testenv.Long() {
				_, e, code = runBin(t, "", nil, args...)
				wantRefused(t, args, name, f, e, code)
				runs++
			}
			pairs++
		}
	}
	if testenv.Long() {
		runs = pairs
	}
	t.Logf("%d flags refused, %d through the binary", pairs, runs)
	// Before the command too.
	if _, e, code := runBin(t, "", nil, "--listen=x", "mcp"); code != 2 || e != "toold mcp: does not take --listen (see: toold help mcp)\n" {
		t.Errorf("toold --listen=x mcp: %d %q", code, e)
	}
	// An unknown flag and an unknown command: parsed in this process in
	// the quick run (runArgs), as the other refused flags are; the binary
	// refuses toold --listen=x mcp above, and toold help frob
	// (TestHelpPerCommand).
	if _, e, code := runArgs(t, "--frob"); code != 2 || strings.Count(e, "\n") != 1 {
		t.Errorf("toold --frob: %d %q", code, e)
	}
	if _, e, code := runArgs(t, "frob"); code != 2 || !strings.Contains(e, `unknown command "frob"`) {
		t.Errorf("toold frob: %d %q", code, e)
	}
}

// wantRefused fails t unless toold with args, for command name, exited
// with status 2 and one line of stderr that refuses flag f.
func wantRefused(t *testing.T, args []string, name, f, stderr string, code int) {
	t.Helper()
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "toold "+name+": does not take --"+f) {
		t.Errorf("toold %v: status %d, stderr %q", args, code, stderr)
	}
}

// refusedFlags returns the flags of the other commands that command does
// not take, sorted.
func refusedFlags(command string) []string {
	refused := map[string]bool{}
	for _, f := range slices.Concat(slices.Collect(maps.Values(commandFlags))...) {
		refused[f] = !slices.Contains(commandFlags[command], f)
	}
	var flags []string
	for f, r := range refused {
		if r {
			flags = append(flags, f)
		}
	}
	slices.Sort(flags)
	return flags
}

// startSocketDaemon runs toold serve --listen on a socket of its own, with
// args, and returns the socket and the process.
func startSocketDaemon(t *testing.T, args ...string) (string, *exec.Cmd) {
	sock := filepath.Join(t.TempDir(), "private", "d.sock") // Listen makes the directory, 0700
	cmd := exec.Command(binPath, append([]string{"serve", "--listen", sock, "--spool-root", filepath.Join(t.TempDir(), "spool")}, args...)...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	testenv.WaitFor(t, 15*time.Second, "the daemon to listen", func() bool { _, err := os.Stat(sock); return err == nil })
	return sock, cmd
}

// shared is the quick run's plain socket daemon (plainSocket); TestMain
// ends it.
var shared struct {
	once sync.Once
	sock string
	dir  string
	cmd  *exec.Cmd
	err  error
}

// plainSocket returns the socket of a toold serve --listen started with no
// flags but its spool root, for a test that asks nothing of the daemon's
// state (its sessions, its log): with TOOLD_LONG=1 the test's own, in the
// quick run one that the package's tests share, a start of the -race
// binary saved per test.
func plainSocket(t *testing.T) string {
	t.Helper()
	if testenv.Long() {
		sock, _ := startSocketDaemon(t)
		return sock
	}
	shared.once.Do(func() {
		if shared.dir, shared.err = os.MkdirTemp("", "toold-shared-"); shared.err != nil {
			return
		}
		shared.sock = filepath.Join(shared.dir, "private", "d.sock")
		shared.cmd = exec.Command(binPath, "serve", "--listen", shared.sock, "--spool-root", filepath.Join(shared.dir, "spool"))
		shared.err = shared.cmd.Start()
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	testenv.WaitFor(t, 15*time.Second, "the shared daemon to listen", func() bool { _, err := os.Stat(shared.sock); return err == nil })
	return shared.sock
}

// endPlainSocket ends plainSocket's shared daemon, if it started.
func endPlainSocket() {
	if shared.cmd != nil && shared.cmd.Process != nil {
		shared.cmd.Process.Kill()
		shared.cmd.Wait()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}

func TestStatusStop(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "d.log")
	sock, cmd := startSocketDaemon(t, "--logfile", log)
	status := func() (daemonState, int) {
		out, e, code := runBin(t, "", nil, "status", "--remote", sock, "--json")
		var st daemonState
		if code == 0 {
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatalf("status --json: %v: %q", err, out)
			}
		} else if !strings.Contains(e, "no daemon answers on "+sock) {
			t.Errorf("status with no daemon: %q", e)
		}
		return st, code
	}
	// query is status's query made in this process: the quick run asks it
	// for the facts after the first (status --json prints what it
	// returns), a start of the -race binary saved per fact and per poll.
	query := func() daemonState {
		if testenv.Long() {
			st, _ := status()
			return st
		}
		st, err := queryDaemon(sock)
		if err != nil {
			t.Fatalf("status: %v", err)
		}
		return *st
	}
	st, code := status()
	if code != 0 || st.Pid != cmd.Process.Pid || st.Socket != sock || st.LogFile != log || st.Sessions != 0 || st.Version != "devel" {
		t.Errorf("status: %d %+v (pid %d)", code, st, cmd.Process.Pid)
	}
	// A client's session counts; status's own does not. The client is a
	// forwarder with TOOLD_LONG=1, in the quick run a connection of this
	// process (the forwarder's own tests are forEachMode's forwarded mode).
	p, closeClient := socketClient(t, sock)
	p.mustCall("read", map[string]any{"path": testdata("read/utf8.txt")}, nil)
	if st = query(); st.Sessions != 1 || st.Cache.Entries != 1 || st.Cache.Misses != 1 || st.UptimeMs <= 0 {
		t.Errorf("status with a client: %+v", st)
	}
	p.start("exec", map[string]any{"command": "sleep 30"}) // cancelled by stop
	testenv.WaitFor(t, 15*time.Second, "the exec to run", func() bool { return query().ExecsRunning == 1 })
	text, _, _ := runBin(t, "", nil, "status", "--remote", sock)
	for _, want := range []string{"socket    " + sock, "pid       " + strconv.Itoa(cmd.Process.Pid), "sessions  1", "running   1 command\n", "log       " + log} {
		if !strings.Contains(text, want) {
			t.Errorf("status lacks %q:\n%s", want, text)
		}
	}
	// stop ends the daemon as SIGTERM does: the client's connection ends,
	// the daemon exits 0 and its socket goes.
	o, e, code := runBin(t, "", nil, "stop", "--remote", sock)
	if code != 0 || !strings.Contains(o, "stopped the toold daemon, pid "+strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("stop: %d %q %q", code, o, e)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("the daemon exited with %v", err)
	}
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		t.Errorf("the client's connection did not end with the daemon")
	}
	closeClient()
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("socket left: %v", err)
	}
	if _, code := status(); code != 1 {
		t.Errorf("status after stop: %d", code)
	}
	if _, e, code := runBin(t, "", nil, "stop", "--remote", sock); code != 1 || !strings.Contains(e, "no daemon answers") {
		t.Errorf("stop with no daemon: %d %q", code, e)
	}
	logged, _ := os.ReadFile(log)
	if !strings.Contains(string(logged), "listening") {
		t.Errorf("the log file lacks the daemon's log:\n%s", logged)
	}
}

// socketClient is a client of the daemon on sock: with TOOLD_LONG=1 a
// forwarder (toold --remote SOCK), in the quick run a connection of this
// process, which saves a start of the -race binary. close ends it.
func socketClient(t *testing.T, sock string) (p *peer, close func()) {
	t.Helper()
	if !testenv.Long() {
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return newPeer(t, conn, conn, false), func() { conn.Close() }
	}
	client := exec.Command(binPath, "--remote", sock)
	in, _ := client.StdinPipe()
	out, _ := client.StdoutPipe()
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); client.Wait() })
	return newPeer(t, in, out, false), func() { in.Close(); client.Wait() }
}

// Two builds of toold never share a daemon: each --remote=auto reaches the
// daemon of its own build, on a socket named for it.
func TestVersionNamedSockets(t *testing.T) {
	t.Parallel()
	runtime := t.TempDir()
	env := []string{"TOOLD_RUNTIME_DIR=" + runtime}
	root := filepath.Join(runtime, "toold-"+strconv.Itoa(os.Geteuid()))
	other := copyBinary(t)
	pids := map[int]string{}
	for _, exe := range []string{binPath, other, binPath} {
		if _, e, code := runExe(t, exe, "", env, "call", "--remote=auto", "stats"); code != 0 {
			t.Fatalf("%s call --remote=auto: %d %s", exe, code, e)
		}
		out, e, code := runExe(t, exe, "", env, "status", "--json")
		var st daemonState
		if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
			t.Fatalf("%s status: %d %s %s", exe, code, out, e)
		}
		if !strings.HasPrefix(filepath.Base(st.Socket), "toold-devel-") || filepath.Dir(st.Socket) != root {
			t.Errorf("socket %s", st.Socket)
		}
		if st.LogFile != strings.TrimSuffix(st.Socket, ".sock")+".log" {
			t.Errorf("log %q beside socket %s", st.LogFile, st.Socket)
		}
		if s, ok := pids[st.Pid]; ok && (s != st.Socket || exe == other) {
			t.Errorf("%s reached the daemon of another build (pid %d on %s)", exe, st.Pid, s)
		}
		pids[st.Pid] = st.Socket
	}
	if len(pids) != 2 {
		t.Errorf("daemons %v, want one per build", pids)
	}
	socks, _ := filepath.Glob(filepath.Join(root, "toold-*.sock"))
	if len(socks) != 2 {
		t.Errorf("sockets %v", socks)
	}
	// status with no daemon of its own build names the others'.
	third := copyBinary(t)
	if _, e, code := runExe(t, third, "", env, "status"); code != 1 || !strings.Contains(e, "sockets of other builds") ||
		!strings.Contains(e, socks[0]) || !strings.Contains(e, socks[1]) {
		t.Errorf("status of a third build: %d %q", code, e)
	}
	// toold stop of each build with TOOLD_LONG=1; the quick run sends
	// the SIGTERM that stop's request amounts to (TestStatusStop holds
	// stop), two starts of the -race binary saved.
	for _, exe := range []string{binPath, other} {
		if testenv.Long() {
			runExe(t, exe, "", env, "stop")
		}
	}
	if !testenv.Long() {
		for pid := range pids {
			syscall.Kill(pid, syscall.SIGTERM)
		}
	}
	for pid := range pids {
		testenv.Until(15*time.Second, func() bool { return !alive(pid) }) // stop waited 10 s of it
		if alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("daemon %d not stopped", pid)
		}
	}
}

// stopShared stops the shared daemon of the runtime dir runtime
// (TOOLD_RUNTIME_DIR): with TOOLD_LONG=1 by toold stop; in the quick run
// by the SIGTERM that stop's request amounts to (TestStatusStop holds
// stop), sent to the pid its lock file names, a start of the -race binary
// saved. Either way it waits, as stop does, for the daemon to exit (its
// socket and lock go with it, before t's TempDir is removed).
func stopShared(t *testing.T, runtime string) {
	t.Helper()
	if testenv.Long() {
		runBin(t, "", []string{"TOOLD_RUNTIME_DIR=" + runtime}, "stop")
		return
	}
	locks, _ := filepath.Glob(filepath.Join(runtime, "toold-"+strconv.Itoa(os.Geteuid()), "*.lock"))
	for _, l := range locks {
		if pid, _ := strconv.Atoi(strings.TrimSuffix(filepath.Base(l), ".lock")); pid > 0 {
			syscall.Kill(pid, syscall.SIGTERM)
			if !testenv.Until(10*time.Second, func() bool { return !alive(pid) }) {
				t.Errorf("the shared daemon %d did not exit on SIGTERM", pid)
			}
		}
	}
}

// copyBinary copies the built toold to a new file, another build as far as
// the socket's name goes (its path and modification time differ). The
// kernel copies it (io.Copy between files is copy_file_range): the 20 MB
// read into the -race test process and written back cost 90,000 page
// faults.
func copyBinary(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "toold")
	in, err := os.Open(binPath)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// toold call never names a spool that is gone once it exits.
func TestCallDropsSpools(t *testing.T) {
	t.Parallel()
	runtime := t.TempDir()
	env := []string{"TOOLD_RUNTIME_DIR=" + runtime}
	t.Cleanup(func() { stopShared(t, runtime) })
	for _, remote := range []string{"", "--remote=auto"} {
		args := []string{"call", "exec", `{"command":"seq 1 3000; seq 1 3 | od -c >&2; printf '\\0\\1' >&2; head -c 300000 /dev/zero >&2","maxLines":4}`}
		if remote != "" {
			args = append(args, remote)
		}
		out, e, code := runBin(t, "", env, args...)
		var r struct {
			Stdout, Stderr struct {
				Spool   any
				Omitted *struct{ FromLine int }
				Binary  bool
			}
			Notice string
		}
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("call %s: %d %s %s", remote, code, out, e)
		}
		if r.Stdout.Spool != nil || r.Stderr.Spool != nil || r.Stdout.Omitted == nil || !r.Stderr.Binary {
			t.Errorf("call %s: %s", remote, out)
		}
		if strings.Contains(r.Notice, "spool=") || strings.Contains(r.Notice, runtime) || strings.Count(r.Notice, notice.SpoolNotKept) != 2 {
			t.Errorf("call %s: notice %q", remote, r.Notice)
		}
	}
}

// --rpc.trace logs every request with its method, id, duration and error code.
func TestRPCTrace(t *testing.T) {
	t.Parallel()
	log := filepath.Join(t.TempDir(), "d.log")
	sock, _ := startSocketDaemon(t, "--logfile", log, "--rpc.trace")
	runBin(t, "", nil, "call", "--remote", sock, "read", `{"path":"/nonexistent"}`)
	// A request that succeeds is traced as initialize is: the quick run
	// has initialize's, a start of the -race binary saved.
	last, wants := "method=read", []string{
		`msg=rpc method=initialize durationMs=`,
		`msg=rpc method=read durationMs=`,
		`id=2 code=-32001 err="no such file`,
	}
	if testenv.Long() {
		runBin(t, "", nil, "call", "--remote", sock, "stats")
		last, wants = "method=stats", append(wants, `msg=rpc method=stats durationMs=`)
	}
	var logged []byte
	testenv.WaitFor(t, 15*time.Second, "the trace", func() bool {
		logged, _ = os.ReadFile(log)
		return bytes.Contains(logged, []byte(last))
	})
	for _, want := range wants {
		if !bytes.Contains(logged, []byte(want)) {
			t.Errorf("the trace lacks %q:\n%s", want, logged)
		}
	}
}

// With --remote, --rpc.trace traces the client's requests on its own side,
// whatever the shared daemon was started with: the forwarder, toold call
// and toold mcp all forward through one remote.Forward.
func TestRPCTraceForwarded(t *testing.T) {
	t.Parallel()
	sock := plainSocket(t) // no --rpc.trace
	cases := []struct {
		name  string
		stdin string
		args  []string
		want  []string
		n     int // requests traced
	}{
		{"forwarder", `{"jsonrpc":"2.0","id":"r1","method":"read","params":{"path":"/nonexistent"}}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"stats"}` + "\n" + `{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":9}}` + "\n",
			[]string{"--remote=" + sock, "--rpc.trace"},
			[]string{`msg=rpc method=read id="\"r1\"" durationMs=`, " code=-32001\n", `msg=rpc method=stats id=2 durationMs=`}, 2},
		{"call", "", []string{"call", "--remote", sock, "--rpc.trace", "read", `{"path":"/nonexistent"}`},
			[]string{`msg=rpc method=initialize id=1 durationMs=`, `msg=rpc method=read id=2 durationMs=`, " code=-32001\n"}, 2},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(binPath, tt.args...)
			cmd.Stdin = strings.NewReader(tt.stdin)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			cmd.Run()
			for _, w := range tt.want {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("the trace lacks %q:\n%s", w, stderr.String())
				}
			}
			if n := strings.Count(stderr.String(), "msg=rpc "); n != tt.n {
				t.Errorf("%d traced requests, want %d:\n%s", n, tt.n, stderr.String())
			}
		})
	}
}

// A cwd that cannot be used is refused with what is wrong with it.
func TestInitializeCwdErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o644)
	for i, tt := range []struct{ cwd, want string }{
		{"rel/dir", `"rel/dir" is not an absolute path`},
		{filepath.Join(dir, "missing"), `: no such directory`},
		{file, `is not a directory`},
	} {
		// The daemon's answer, in this process; and through toold call
		// (its exit status and stderr) for the first with TOOLD_LONG=1
		// for all, a start of the -race binary each.
		p := startInProcess(t, false)
		if err := p.call("initialize", map[string]string{"cwd": tt.cwd}, nil); err == nil || err.Code != -32602 || !strings.Contains(err.Message, tt.want) {
			t.Errorf("cwd %q: %v, want -32602 %q", tt.cwd, err, tt.want)
		}
		if i > 0 && !testenv.Long() {
			continue
		}
		params, _ := json.Marshal(map[string]string{"cwd": tt.cwd})
		_, e, code := runBin(t, "", nil, "--spool-root", filepath.Join(t.TempDir(), "spool"), "call", "initialize", string(params))
		var werr wireError
		if code != 1 || json.Unmarshal([]byte(e), &werr) != nil || werr.Code != -32602 || !strings.Contains(werr.Message, tt.want) {
			t.Errorf("cwd %q: %d %s, want -32602 %q", tt.cwd, code, e, tt.want)
		}
	}
}

// startMCP runs toold mcp with args and returns an initialized MCP peer.
func startMCP(t *testing.T, env []string, args ...string) *peer {
	cmd := exec.Command(binPath, append([]string{"mcp"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
		if t.Failed() {
			t.Logf("toold mcp stderr:\n%s", stderr.String())
		}
	})
	p := newPeer(t, in, out, false)
	p.mustCall("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "test", "version": "1"}}, nil)
	p.notify("notifications/initialized", nil)
	return p
}

type toolResult struct {
	Content []struct{ Type, Text string } `json:"content"`
	IsError bool                          `json:"isError"`
	Data    json.RawMessage               `json:"structuredContent"`
}

// toold mcp --remote=SOCKET: its session lives on the shared daemon, with
// the roots and limits its flags give.
func TestMCPRemoteRootsLimits(t *testing.T) {
	t.Parallel()
	sock, _ := startSocketDaemon(t)
	inside, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(inside, "in.txt"), []byte("1\n2\n3\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "out.txt"), []byte("x\n"), 0o644)
	p := startMCP(t, nil, "--remote", sock, "--root", inside, "--read.limit", "2")
	var res toolResult
	p.mustCall("tools/call", map[string]any{"name": "read", "arguments": map[string]any{"path": filepath.Join(inside, "in.txt")}}, &res)
	if res.IsError || len(res.Content) != 1 || res.Content[0].Text != "     1\t1\n     2\t2\n[Showing lines 1-2 of 3. Use offset=3 to continue]" {
		t.Errorf("read inside the root with --read.limit 2: %+v", res)
	}
	p.mustCall("tools/call", map[string]any{"name": "read", "arguments": map[string]any{"path": filepath.Join(outside, "out.txt")}}, &res)
	if !res.IsError || !strings.HasPrefix(res.Content[0].Text, "error -32002: ") {
		t.Errorf("read outside the root: %+v", res)
	}
	// Its session is on the daemon: status counts it (status's query in
	// this process in the quick run: TestStatusStop has the binary print
	// it; a start of the -race binary saved).
	var st daemonState
	var out string
	if testenv.Long() {
		out, _, _ = runBin(t, "", nil, "status", "--remote", sock, "--json")
		json.Unmarshal([]byte(out), &st)
	} else if q, err := queryDaemon(sock); err == nil {
		st = *q
		b, _ := json.Marshal(q)
		out = string(b)
	} else {
		out = err.Error()
	}
	if st.Sessions != 1 || st.Cache.Entries != 1 {
		t.Errorf("status: %s", out)
	}
	// Bad limit flags are refused before anything starts.
	if _, e, code := runBin(t, "", nil, "mcp", "--read.limit", "-5"); code != 2 || !strings.Contains(e, "--read.limit: -5 is negative") {
		t.Errorf("negative limit: %d %q", code, e)
	}
}

// toold mcp gives a model the rendered text once: no outputSchema and no
// structuredContent unless --structured, and at its default limits at most
// 24 KB of text whatever the output (here 20,000 lines, 109 KB, on each
// stream: past both of exec's preview limits, 2,000 lines and 50 KiB, and
// four times the budget; a million with TOOLD_LONG=1), with the daemon in
// its process and on the shared socket.
func TestMCPStructuredAndBudget(t *testing.T) {
	t.Parallel()
	sock := plainSocket(t)
	spool := "--spool-root=" + filepath.Join(t.TempDir(), "spool")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"in-process", []string{spool}},
		{"in-process --structured", []string{spool, "--structured"}},
		{"--remote", []string{"--remote", sock}},
		{"--remote --structured", []string{"--remote", sock, "--structured"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The quick run has each axis once: the daemon in process
			// without --structured, on the socket with it.
			if tc.name == "in-process --structured" || tc.name == "--remote" {
				testenv.SkipUnlessLong(t, "both axes at once")
			}
			structured := slices.Contains(tc.args, "--structured")
			p := startMCP(t, nil, tc.args...)
			var tools struct {
				Tools []struct {
					Name         string
					OutputSchema json.RawMessage `json:"outputSchema"`
				} `json:"tools"`
			}
			p.mustCall("tools/list", nil, &tools)
			for _, tl := range tools.Tools {
				if (tl.OutputSchema != nil) != structured {
					t.Errorf("%s: outputSchema %s", tl.Name, tl.OutputSchema)
				}
			}
			var res toolResult
			n := strconv.Itoa(testenv.Size(20000, 1000000))
			p.mustCall("tools/call", map[string]any{"name": "exec", "arguments": map[string]any{"command": "seq 1 " + n + "; seq 1 " + n + " >&2"}}, &res)
			if res.IsError || len(res.Content) != 1 || (res.Data != nil) != structured {
				t.Fatalf("exec: %d contents, isError %v, structuredContent %.100s", len(res.Content), res.IsError, res.Data)
			}
			if text := res.Content[0].Text; len(text) > 24<<10 || !strings.Contains(text, "\n"+n+"\n--- stderr ---\n1\n") {
				t.Errorf("exec: %d bytes of text:\n%.3000s", len(text), text)
			}
		})
	}
}

// toold mcp's read with ifChanged of a window cut to fit the budget: the
// first read shows its lines (not "unchanged"), a re-read of them is
// unchanged; a read that gives only limit keeps the 24 KB budget; in-process
// and on the shared socket.
func TestMCPIfChangedFitted(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&b, "abcdefghi%d\n", i)
	}
	path := filepath.Join(t.TempDir(), "f.txt")
	os.WriteFile(path, []byte(b.String()), 0o644)
	modes := [][]string{{"--spool-root=" + filepath.Join(t.TempDir(), "spool")}}
	// The quick run has the daemon in process: TestMCPStructuredAndBudget
	// runs toold mcp on the socket.
	if testenv.Long() {
		sock, _ := startSocketDaemon(t)
		modes = append(modes, []string{"--remote", sock})
	}
	for _, args := range modes {
		t.Run(args[0], func(t *testing.T) {
			p := startMCP(t, nil, args...)
			read := func(a map[string]any) string {
				var res toolResult
				a["path"], a["ifChanged"] = path, true
				p.mustCall("tools/call", map[string]any{"name": "read", "arguments": a}, &res)
				if res.IsError || len(res.Content) != 1 || len(res.Content[0].Text) > 24<<10 {
					t.Fatalf("read %v: %+v", a, res)
				}
				return res.Content[0].Text
			}
			text := read(map[string]any{"offset": 1})
			var end int
			if i := strings.Index(text, "[Showing lines 1-"); i < 0 || strings.Contains(text, "unchanged") {
				t.Fatalf("first read: %.200q", text)
			} else {
				fmt.Sscanf(text[i:], "[Showing lines 1-%d", &end)
			}
			if text := read(map[string]any{"offset": 1, "limit": end}); text != fmt.Sprintf("[Lines 1-%d unchanged since your last read]", end) {
				t.Errorf("re-read: %.200q", text)
			}
			// A line count alone asks for lines, not bytes: the budget stays.
			var res toolResult
			p.mustCall("tools/call", map[string]any{"name": "read", "arguments": map[string]any{"path": path, "limit": 3000}}, &res)
			if text := res.Content[0].Text; res.IsError || len(text) > 24<<10 || !strings.Contains(text, "to continue]") {
				t.Errorf("read limit=3000: %d bytes: %.200q", len(text), text)
			}
		})
	}
}

// toold mcp's text names the tools (process_wait), not the JSON-RPC
// methods (process/wait), and process_list is a line a process.
func TestMCPProcessText(t *testing.T) {
	t.Parallel()
	p := startMCP(t, nil, "--spool-root="+filepath.Join(t.TempDir(), "spool"))
	call := func(name string, args map[string]any) string {
		var res toolResult
		p.mustCall("tools/call", map[string]any{"name": name, "arguments": args}, &res)
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: %+v", name, res)
		}
		return res.Content[0].Text
	}
	text := call("exec", map[string]any{"command": "echo up; sleep 30", "yieldMs": 300})
	var id string
	if i := strings.Index(text, "as process "); i < 0 || strings.Contains(text, "process/") || !strings.Contains(text, "process_wait waits") {
		t.Fatalf("exec: %q", text)
	} else {
		id = strings.TrimRight(strings.Fields(text[i+len("as process "):])[0], ":")
	}
	if text := call("process_read", map[string]any{"id": id}); strings.Contains(text, "process/") || !strings.Contains(text, "process_read or process_wait again") {
		t.Errorf("process_read: %q", text)
	}
	if text := call("process_list", nil); !strings.HasPrefix(text, id+"  running  started ") || !strings.HasSuffix(text, "echo up; sleep 30") {
		t.Errorf("process_list: %q", text)
	}
	call("process_kill", map[string]any{"id": id})
}
