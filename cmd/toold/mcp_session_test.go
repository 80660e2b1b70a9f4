package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// mcpProc is toold mcp with args on pipes, initialized as an MCP client
// named client would; stderr is its log.
type mcpProc struct {
	*peer
	cmd    *exec.Cmd
	stderr *bytes.Buffer
	stdin  interface{ Close() error }
}

func startMCPProc(t *testing.T, env []string, client string, args ...string) *mcpProc {
	t.Helper()
	cmd := exec.Command(binPath, append([]string{"mcp"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	p := &mcpProc{cmd: cmd, stderr: new(bytes.Buffer), stdin: in}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	p.peer = newPeer(t, in, out, false)
	p.mustCall("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": client, "version": "9.9"}}, nil)
	p.notify("notifications/initialized", nil)
	return p
}

// end closes toold mcp's stdin, as a client that quits does, and returns
// its exit status.
func (p *mcpProc) end(t *testing.T) int {
	t.Helper()
	p.stdin.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		p.cmd.Process.Kill()
		t.Fatal("toold mcp did not exit after its input ended")
	}
	return p.cmd.ProcessState.ExitCode()
}

// toold mcp logs one INFO line a session, naming the agent from its MCP
// initialize: in its own log with the daemon in its process, in the shared
// daemon's with --remote. The MCP SDK's lines (a session's connecting,
// initialized, disconnected, ended) and the sweep of a dead daemon's TMPDIR
// at a first run are DEBUG.
func TestMCPLogNamesTheClient(t *testing.T) {
	t.Parallel()
	daemonLog := filepath.Join(t.TempDir(), "d.log")
	sock, _ := startSocketDaemon(t, "--logfile", daemonLog)
	for _, tc := range []struct {
		name   string
		args   []string
		shared bool // the INFO line is in the daemon's log
	}{
		{"in-process", []string{"--spool-root", filepath.Join(t.TempDir(), "spool")}, false},
		{"--remote", []string{"--remote", sock}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir() // with a TMPDIR a daemon that died left
			dead := filepath.Join(tmp, "toold-tmp-1-dead")
			os.Mkdir(dead, 0o700)
			p := startMCPProc(t, []string{"TMPDIR=" + tmp}, "claude-code", tc.args...)
			var res toolResult
			p.mustCall("tools/call", map[string]any{"name": "ls", "arguments": map[string]any{"path": tmp}}, &res)
			if res.IsError {
				t.Fatalf("ls: %+v", res)
			}
			if code := p.end(t); code != 0 {
				t.Errorf("exit %d", code)
			}
			log := p.stderr.String()
			if !tc.shared {
				if _, err := os.Stat(dead); err == nil {
					t.Errorf("the dead daemon's TMPDIR was not swept")
				}
			} else {
				b, _ := os.ReadFile(daemonLog)
				if !strings.Contains(string(b), `msg="client initialized" client=claude-code version=9.9`) {
					t.Errorf("the daemon's log does not name the client:\n%s", b)
				}
			}
			var info []string
			for _, l := range strings.Split(strings.TrimSpace(log), "\n") {
				if strings.Contains(l, "level=INFO") {
					info = append(info, l)
				}
			}
			if tc.shared && len(info) != 0 || !tc.shared && (len(info) != 1 || !strings.Contains(info[0], `msg="client initialized" client=claude-code version=9.9`)) {
				t.Errorf("INFO lines %q; log:\n%s", info, log)
			}
		})
	}
}

// A --root that is not there: toold mcp still answers the MCP client, and
// says why in each tool call's error (where the client shows it to the
// model, and the user), not only in a log line before it exits; then exits
// 1 when the client goes.
func TestMCPMissingRoot(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "missing")
	for _, args := range [][]string{
		{"--spool-root", filepath.Join(t.TempDir(), "spool"), "--root", missing},
		{"--remote", mustSocket(t), "--root", missing},
	} {
		p := startMCPProc(t, nil, "codex-mcp-client", args...)
		var list struct{ Tools []struct{ Name string } }
		p.mustCall("tools/list", map[string]any{}, &list)
		if len(list.Tools) != 13 {
			t.Errorf("%v: %d tools", args, len(list.Tools))
		}
		var res toolResult
		p.mustCall("tools/call", map[string]any{"name": "read", "arguments": map[string]any{"path": "go.mod"}}, &res)
		if !res.IsError || len(res.Content) != 1 || !strings.Contains(res.Content[0].Text, "roots[0]: lstat "+missing+": no such file or directory") ||
			!strings.Contains(res.Content[0].Text, "toold mcp's configuration") {
			t.Errorf("%v: read: %+v", args, res)
		}
		if code := p.end(t); code != 1 {
			t.Errorf("%v: exit %d, want 1", args, code)
		}
		if n := strings.Count(p.stderr.String(), "level=ERROR"); n != 1 {
			t.Errorf("%v: %d ERROR lines:\n%s", args, n, p.stderr.String())
		}
	}
}

func mustSocket(t *testing.T) string {
	return plainSocket(t)
}
