package adversarial

// Terminals: a daemon must not take one for its controlling terminal, and
// a user at one must be able to stop it.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/toold/toold/internal/testenv"
)

// daemonSessionLeader starts `toold serve` on stdio as the shared daemon
// runs: the leader of a session of its own (setsid), with no controlling
// terminal.
func daemonSessionLeader(t *testing.T) (*daemonProc, *rawClient) {
	t.Helper()
	p := daemonStart(t, 0, "serve", "--spool-root", filepath.Join(t.TempDir(), "spool"))
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return p, p.serve(t)
}

// TestTerminalNotControlling: the next of item 9's class, a special file
// opened by path. A read of a terminal (a pty's slave, by its /dev/pts
// path, or a symlink to it in a tree) was opened without O_NOCTTY: the
// daemon, a session leader without a controlling terminal, took it for
// its own, and when the terminal hung up the kernel sent it SIGHUP, which
// ended it and every session it served. Now it is refused as not a
// regular file and the daemon lives on.
func TestTerminalNotControlling(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	for _, via := range []string{"path", "symlink"} {
		t.Run(via, func(t *testing.T) {
			t.Parallel()
			p, c := daemonSessionLeader(t)
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skip("no pseudo-terminal:", err)
			}
			path := tty.Name()
			tty.Close()
			if via == "symlink" {
				path = filepath.Join(t.TempDir(), "tty")
				if err := os.Symlink(tty.Name(), path); err != nil {
					t.Fatal(err)
				}
			}
			if m := c.call(1, "read", map[string]any{"path": path}, 10*time.Second); m.Error == nil {
				t.Errorf("a terminal read as a file: %s", m.Result)
			}
			ptmx.Close() // the terminal hangs up
			if code := p.wait(500 * time.Millisecond); code >= 0 {
				t.Fatalf("the daemon ended (status %d) when the terminal it read hung up", code)
			}
			if m := c.call(2, "stats", map[string]any{}, 10*time.Second); m.Error != nil {
				t.Fatalf("stats: %s", m.Error.Message)
			}
		})
	}
}

// sharedEnv gives p a runtime directory of the test's, for the shared
// daemon a --remote=auto mode starts, and kills that daemon when the test
// ends. It returns the directory of the daemon's socket.
func sharedEnv(t *testing.T, p *daemonProc) string {
	t.Helper()
	runtimeDir := daemonPrivateDir(t)
	p.cmd.Env = append(os.Environ(), "TOOLD_RUNTIME_DIR="+runtimeDir)
	root := filepath.Join(runtimeDir, "toold-"+strconv.Itoa(os.Geteuid()))
	t.Cleanup(func() { daemonKillShared(root) })
	return root
}

// daemonOnTerminal starts the binary with args as a shell starts it in a
// terminal: stdin a pty's slave, the controlling terminal of the session
// it leads. The client writes to the pty's master (typed input, a line
// at a time) and reads the replies on a pipe.
func daemonOnTerminal(t *testing.T, args ...string) (*daemonProc, *rawClient, string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal:", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	go io.Copy(io.Discard, ptmx) // the echo of what is typed; ends when ptmx is closed
	p := daemonStart(t, 0, args...)
	var shared string
	if slices.Contains(args, "--remote=auto") {
		shared = sharedEnv(t, p)
	}
	p.cmd.Stdin = tty
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	p.afterStart = append(p.afterStart, tty)
	out := p.stdout(t)
	p.run(t)
	return p, newRawClient(t, ptmx, out), shared
}

// waitSharedSocket waits until a socket is in dir: the shared daemon that
// --remote=auto started listens, and the forwarder, connected, reads its
// stdin.
func waitSharedSocket(t *testing.T, dir string) {
	t.Helper()
	testenv.WaitFor(t, 20*time.Second, "the shared daemon's socket", func() bool {
		socks, _ := filepath.Glob(filepath.Join(dir, "*.sock"))
		return len(socks) > 0
	})
	time.Sleep(50 * time.Millisecond) // the dial, then the read
}

// mcpInit is an MCP client's initialize.
var mcpInit = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "adversarial", "version": "1"}}

// TestTerminalSignal: a user who runs toold in a
// terminal stops it with Ctrl-C or kill. main's stdio daemon read its
// terminal's stdin with a blocking read(0), which nothing interrupts, and
// rpc's server waits for its reader: it ignored both until Enter was
// pressed; `toold --remote=auto` until Ctrl-D. Each mode, once it has
// answered a request typed at the terminal and waits for the next, must
// exit within a second of the signal.
func TestTerminalSignal(t *testing.T) {
	// The quick run keeps TestDaemonTooManyTerminals, TestDaemonTTYSetuidPrompt and TestTerminalNotControlling instead.
	skipUnlessLong(t, "a terminal's signals")
	t.Parallel() // daemons of its own: it waits beside the others
	modes := []struct {
		name   string
		args   []string
		method string
		params any
	}{
		{"stdio", []string{"serve", "--spool-root", ""}, "initialize", map[string]any{}},
		{"remote", []string{"--remote=auto"}, "initialize", map[string]any{}},
		{"remote, nothing typed", []string{"--remote=auto"}, "", nil}, // main's forwarder: until Ctrl-D
		{"mcp", []string{"mcp", "--spool-root", ""}, "initialize", mcpInit},
	}
	for _, m := range modes {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			t.Run(m.name+"/"+sig.String(), func(t *testing.T) {
				t.Parallel()
				args := slices.Clone(m.args)
				if i := slices.Index(args, ""); i >= 0 {
					args[i] = filepath.Join(t.TempDir(), "spool")
				}
				p, c, shared := daemonOnTerminal(t, args...)
				if m.method == "" {
					waitSharedSocket(t, shared)
				} else if r := c.call(1, m.method, m.params, 20*time.Second); r.Error != nil {
					t.Fatalf("%s: %s", m.method, r.Error.Message)
				}
				// Now it reads the terminal for the next line.
				time.Sleep(50 * time.Millisecond)
				if err := p.cmd.Process.Signal(sig); err != nil {
					t.Fatal(err)
				}
				if bound := testenv.Loaded(time.Second); p.wait(bound) < 0 {
					t.Fatalf("still running %v after %v", bound, sig)
				}
			})
		}
	}
}

// TestMCPRepliesBeforeEOF: `printf
// 'initialize\ntools/list\n' | toold mcp` answered nothing, since the SDK
// ends a session at the end of its input at once, cancelling what is in
// flight. The replies to the calls sent before the end must be written,
// and then toold mcp exits. A client that declares roots and ends its
// input gets no answer to the server's roots/list: toold mcp must not
// wait for it for ever.
func TestMCPRepliesBeforeEOF(t *testing.T) {
	// The quick run keeps TestTerminalNotControlling instead.
	skipUnlessLong(t, "toold mcp's replies before EOF")
	t.Parallel() // daemons of its own: it waits beside the others
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("hello\n"), 0o644)
	initialized := map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}
	withRoots := map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"roots": map[string]any{}},
		"clientInfo": map[string]any{"name": "adversarial", "version": "1"}}
	cases := []struct {
		name string
		msgs []any
		want []int // the ids that must be answered
	}{
		{"initialize, tools/list", []any{rawRequest(1, "initialize", mcpInit), rawRequest(2, "tools/list", nil)}, []int{1, 2}},
		{"a tool call", []any{rawRequest(1, "initialize", mcpInit), initialized,
			rawRequest(2, "tools/call", map[string]any{"name": "ls", "arguments": map[string]any{"path": dir}}),
			rawRequest(3, "tools/call", map[string]any{"name": "read", "arguments": map[string]any{"path": filepath.Join(dir, "f.txt")}})}, []int{1, 2, 3}},
		{"roots asked after the end", []any{rawRequest(1, "initialize", withRoots), initialized,
			rawRequest(2, "tools/call", map[string]any{"name": "ls", "arguments": map[string]any{"path": dir}})}, []int{1}},
	}
	for _, remote := range []bool{false, true} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("remote=%v/%s", remote, tc.name), func(t *testing.T) {
				t.Parallel()
				args := []string{"mcp", "--spool-root", filepath.Join(t.TempDir(), "spool")}
				if remote {
					args = []string{"mcp", "--remote=auto"}
				}
				p := daemonStart(t, 0, args...)
				if remote {
					sharedEnv(t, p)
				}
				in, err := p.cmd.StdinPipe()
				if err != nil {
					t.Fatal(err)
				}
				out := p.stdout(t)
				p.run(t)
				c := newRawClient(t, in, out)
				for _, m := range tc.msgs {
					if err := c.send(m); err != nil {
						t.Fatal(err)
					}
				}
				in.Close()
				got := map[string]bool{}
				for {
					m, err := c.tryNext(20 * time.Second)
					if err != nil {
						break // the end of its output: it exited
					}
					if m.Method == "" { // not the server's roots/list
						got[string(m.ID)] = true
					}
				}
				for _, id := range tc.want {
					if !got[strconv.Itoa(id)] {
						t.Errorf("no reply to id %d (replies: %v)", id, got)
					}
				}
				if p.wait(testenv.Loaded(5*time.Second)) < 0 {
					t.Error("toold mcp did not exit after the end of its input")
				}
			})
		}
	}
}
