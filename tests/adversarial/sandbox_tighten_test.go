package adversarial

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// The sandbox's review: a session's sandbox never
// gets looser, and the daemon's --sandbox is a floor.

// sandboxRefused asserts that initialize with params is -32602 naming
// sandbox.
func sandboxRefused(t *testing.T, c *rawClient, id int, params map[string]any) {
	t.Helper()
	m := c.call(id, "initialize", params, 30*time.Second)
	if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(string(m.Error.Data), `"field":"sandbox"`) {
		t.Errorf("initialize %v: want -32602 naming sandbox, got %+v %s", params, m.Error, m.Result)
	}
}

// sandboxMode is the mode of the sandbox initialize with params reports.
func sandboxMode(t *testing.T, c *rawClient, id int, params map[string]any) string {
	t.Helper()
	var res struct{ Sandbox *struct{ Mode string } }
	sandboxCall(t, c, id, "initialize", params, &res)
	if res.Sandbox == nil {
		return "off"
	}
	return res.Sandbox.Mode
}

// sandboxStillConfined asserts that the session's commands still cannot
// write in the project nor outside.
func sandboxStillConfined(t *testing.T, c *rawClient, id int, w *sandboxWorld) {
	t.Helper()
	before := snapshot(t, w.out)
	r := sandboxExec(t, c, id, w, "echo x > "+w.out+"/loose; echo x > loose.txt")
	if r.ExitCode == nil || *r.ExitCode == 0 || !strings.Contains(r.output(), "Permission denied") {
		t.Errorf("a write after the refused re-initialize: exit %s %q", deref2(r.ExitCode), r.output())
	}
	unchanged(t, w.out, before, "after a looser initialize")
}

// TestSandboxReinitializeNeverLooser: on every transport, a re-initialize
// that would loosen the session's sandbox (off, in any spelling, a looser
// mode, the network) is -32602 naming sandbox and the sandbox stays; one
// that names no sandbox keeps it; a stricter one is taken.
func TestSandboxReinitializeNeverLooser(t *testing.T) {
	// The quick run keeps TestSandboxWritableNotDropped instead.
	skipUnlessLong(t, "a re-initialize that loosens the sandbox")
	t.Parallel() // daemons and files of its own: it waits beside the others
	transports, _ := sandboxTransports(t)
	for name, open := range transports {
		t.Run(name, func(t *testing.T) {
			w := newSandboxWorld(t)
			c := open(t)
			base := map[string]any{"cwd": w.proj, "roots": []string{w.proj}}
			with := func(box any) map[string]any {
				m := map[string]any{"sandbox": box}
				for k, v := range base {
					m[k] = v
				}
				return m
			}
			sandboxInit(t, c, 1, w, "workspace-write")
			if got := sandboxMode(t, c, 2, with(map[string]any{"mode": "read-only"})); got != "read-only" {
				t.Errorf("tightened to read-only: got %s", got)
			}
			for i, box := range []any{
				map[string]any{"mode": "off"},
				json.RawMessage(`{"Mode":"off"}`),
				map[string]any{"mode": "workspace-write"},
				map[string]any{"mode": "read-only", "network": true},
			} {
				sandboxRefused(t, c, 10+i, with(box))
			}
			if got := sandboxMode(t, c, 20, base); got != "read-only" {
				t.Errorf("a re-initialize without sandbox: %s, want the session's read-only", got)
			}
			sandboxStillConfined(t, c, 21, w)
		})
	}
}

// TestSandboxFlagIsAFloor: with serve's --sandbox=read-only (stdio and
// the shared socket), a client asking for off or workspace-write is
// -32602 naming sandbox, and its commands stay confined.
func TestSandboxFlagIsAFloor(t *testing.T) {
	// The quick run keeps TestSandboxWritableNotDropped instead.
	skipUnlessLong(t, "--sandbox as a floor")
	t.Parallel() // daemons and files of its own: it waits beside the others
	_, sock := daemonShared(t, 0, "--sandbox=read-only")
	for name, open := range map[string]func() *rawClient{
		"stdio":  func() *rawClient { _, c := daemonStdio(t, "--sandbox=read-only"); return c },
		"socket": func() *rawClient { return daemonServed(t, sock) },
	} {
		t.Run(name, func(t *testing.T) {
			w := newSandboxWorld(t)
			c := open()
			for i, mode := range []string{"off", "workspace-write"} {
				sandboxRefused(t, c, 1+i, map[string]any{"cwd": w.proj, "sandbox": map[string]any{"mode": mode}})
			}
			if got := sandboxMode(t, c, 5, map[string]any{"cwd": w.proj}); got != "read-only" {
				t.Errorf("no sandbox asked: %s, want the floor", got)
			}
			sandboxStillConfined(t, c, 6, w)
		})
	}
}

// TestSandboxWritableNotDropped: writable dirs with a mode that does not
// write beneath them (read-only, off, no mode) are -32602 naming
// sandbox.writable, not dropped without a word, on every transport.
// The quick run takes stdio only (sandboxTransportsIn).
func TestSandboxWritableNotDropped(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	transports := sandboxTransportsIn(t, "stdio")
	for name, open := range transports {
		t.Run(name, func(t *testing.T) {
			w := newSandboxWorld(t)
			c := open(t)
			for i, box := range []map[string]any{
				{"mode": "read-only", "writable": []string{w.out}},
				{"mode": "off", "writable": []string{w.out}},
				{"writable": []string{w.out}},
			} {
				m := c.call(1+i, "initialize", map[string]any{"cwd": w.proj, "sandbox": box}, 30*time.Second)
				if m.Error == nil || m.Error.Code != -32602 || !strings.Contains(string(m.Error.Data), `"field":"sandbox.writable"`) {
					t.Errorf("sandbox %v: want -32602 naming sandbox.writable, got %+v %s", box, m.Error, m.Result)
				}
			}
		})
	}
}
