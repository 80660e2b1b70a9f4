package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/protocol"
)

// TestBackgroundServer: a dev server started in the background, waited for
// with a pattern, read, written to and killed, in every mode and framing.
func TestBackgroundServer(t *testing.T) {
	py := python3(t)
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		var r protocol.ExecResult
		p.mustCall("exec", map[string]any{"command": py + " -u -m http.server 0 --bind 127.0.0.1", "cwd": t.TempDir(), "background": true}, &r)
		if r.Process == nil || r.ExitCode != nil {
			t.Fatalf("exec: %+v", r)
		}
		id := *r.Process
		var w protocol.ProcessOutput
		p.mustCall("process/wait", map[string]any{"id": id, "timeoutMs": 20000, "until": map[string]any{"pattern": `Serving HTTP on \S+ port \d+`}}, &w)
		m := regexp.MustCompile(`port (\d+)`).FindStringSubmatch(r.Stdout.Head + w.Stdout.Head)
		if w.Reason != protocol.ReasonPattern || m == nil || !w.Running {
			t.Fatalf("wait: %+v", w)
		}
		resp, err := http.Get("http://127.0.0.1:" + m[1] + "/")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		// The server logs the request on stderr.
		p.mustCall("process/wait", map[string]any{"id": id, "timeoutMs": 20000, "until": map[string]any{"pattern": `"GET / HTTP/1.1" 200`}}, &w)
		if w.Reason != protocol.ReasonPattern || !strings.Contains(w.Stderr.Head, `"GET / HTTP/1.1" 200`) {
			t.Fatalf("wait for the request: %+v", w)
		}
		var rd protocol.ProcessOutput
		p.mustCall("process/read", map[string]any{"id": id}, &rd)
		if rd.Since != w.Cursor || !rd.Running {
			t.Fatalf("read after wait: since %s, want %s: %+v", rd.Since, w.Cursor, rd)
		}
		var wr protocol.ProcessWriteResult
		p.mustCall("process/write", map[string]any{"id": id, "stdin": "ignored\n"}, &wr)
		if wr.Written != 8 {
			t.Fatalf("write: %+v", wr)
		}
		var list []protocol.ProcessInfo
		p.mustCall("process/list", nil, &list)
		if len(list) != 1 || list[0].ID != id || !list[0].Running || !strings.Contains(list[0].Command, "http.server") {
			t.Fatalf("list: %+v", list)
		}
		var k protocol.ProcessInfo
		p.mustCall("process/kill", map[string]any{"id": id}, &k)
		if k.Running || (k.Signal == nil && k.ExitCode == nil) {
			t.Fatalf("kill: %+v", k)
		}
		if _, err := http.Get("http://127.0.0.1:" + m[1] + "/"); err == nil {
			t.Fatal("the server still answers after the kill")
		}
		// Unknown ids and another connection's ids are -32001.
		if e := p.call("process/read", map[string]any{"id": "p00"}, nil); e == nil || e.Code != protocol.CodeNoSuchFile {
			t.Fatalf("unknown id: %v", e)
		}
	})
}

// TestSignalEndsProcesses: SIGTERM to a stdio daemon ends its background
// processes and their children, and removes their spools.
func TestSignalEndsProcesses(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "spool")
	cmd := exec.Command(binPath, "--spool-root", root)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	p := newPeer(t, in, out, false)
	// As many processes as a session may have, started at once (one after
	// another they took 16 yields of 300 ms: 5 s); each prints its pids and
	// past the preview (3,000 lines, over its 2,000), so that it has a
	// spool, within its yield: 2 s, the 16 at once, grown with the load (at
	// a load of 12 a CPU one had printed only its pids after 4 s).
	yield := testenv.Loaded(2 * time.Second).Milliseconds()
	// The quick run has 4: the same code ends each.
	replies := make([]chan message, testenv.Size(4, protocol.MaxProcesses))
	for i := range replies {
		_, replies[i] = p.start("exec", map[string]any{"command": `sleep 300 & echo $$ $!; seq 1 3000; sleep 300`, "yieldMs": yield})
	}
	var pids []int
	for _, reply := range replies {
		m := p.await(reply)
		var r protocol.ExecResult
		var a, b int
		if m.Error != nil || json.Unmarshal(m.Result, &r) != nil {
			t.Fatalf("exec: %v %s", m.Error, m.Result)
		}
		if _, err := fmt.Sscan(r.Stdout.Head, &a, &b); err != nil || r.Process == nil || r.Stdout.Spool == nil {
			t.Fatalf("exec: %+v", r)
		}
		pids = append(pids, a, b)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the daemon did not exit on SIGTERM")
	}
	testenv.Until(10*time.Second, func() bool { return !slices.ContainsFunc(pids, testenv.Alive) })
	for _, pid := range pids {
		if testenv.Alive(pid) {
			t.Errorf("process %d outlived the daemon", pid)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(root, "*", "*")); len(files) != 0 {
		t.Errorf("spool files left: %v", files)
	}
}
