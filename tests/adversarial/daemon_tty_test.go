package adversarial

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// Terminals (exec's tty) under attack: a command that floods its terminal,
// a session and a daemon asked for more terminals than they give, writes to
// a terminal that is gone, commands that reopen /dev/tty or reach for
// another session's terminal. TestDaemonTTYAsNobody runs them again as uid
// 65534: reading what a command is blocked in (/proc/PID/syscall) and a
// setuid program's password prompt depend on privilege.

// ttyResult is what the cases read of exec's and the process methods'
// results.
type ttyResult struct {
	ExitCode        *int
	Signal          *string
	TimedOut        bool
	Process         *string
	Running         bool
	Reason          string
	WaitingForInput *struct {
		Prompt  string
		SinceMs int64
		Echo    bool
	}
	Stdout struct {
		Head, Tail string
		TotalBytes int64
		Spool      *struct{ Bytes int64 }
	}
	Notice *string
}

// ttyCall calls method and decodes its result; the error when there is one.
func ttyCall(t *testing.T, c *rawClient, id int, method string, params any, d time.Duration) (ttyResult, *struct {
	Code    int64
	Message string
}) {
	t.Helper()
	m := c.call(id, method, params, d)
	if m.Error != nil {
		return ttyResult{}, &struct {
			Code    int64
			Message string
		}{m.Error.Code, m.Error.Message}
	}
	var r ttyResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		t.Fatalf("%s: %v: %s", method, err, m.Result)
	}
	return r, nil
}

// TestDaemonTTYFlood: a command that writes its terminal as fast as it can
// (text, and escape sequences that redraw one line) is read at full speed
// into a capped spool, its preview stays bounded and clean, it is never
// called waiting for input, and another request is answered meanwhile.
// Each floods for 20 s.
func TestDaemonTTYFlood(t *testing.T) {
	// The quick run keeps TestDaemonTooManyTerminals, TestDaemonTTYSetuidPrompt and TestTerminalNotControlling instead.
	skipUnlessLong(t, "a terminal flood")
	t.Parallel()
	p, c := daemonStdio(t)
	const secs = 20
	// least: the bytes a flood writes at the very least in 3 s on a
	// loaded 2-core machine (a shell's printf loop writes a few hundred
	// KB a second there: CI saw 477 KB in 3 s), far past maxBytes.
	for i, tc := range []struct {
		command string
		least   int64
	}{
		{`yes "a line of terminal output that goes on for a while"`, 1 << 20},
		{`while :; do printf '\e[2J\e[H\e[31mredraw\e[0m %s\r' "$RANDOM"; done`, 64 << 10},
	} {
		command := tc.command
		id := 10 * (i + 1)
		if err := c.send(rawRequest(id, "exec", map[string]any{"command": command, "tty": true, "timeoutMs": secs * 1000, "maxBytes": 4096})); err != nil {
			t.Fatal(err)
		}
		time.Sleep(500 * time.Millisecond)
		began := time.Now()
		if m := c.call(id+1, "stats", nil, 10*time.Second); m.Error != nil {
			t.Fatalf("stats beside the flood: %+v", m.Error)
		}
		if took := time.Since(began); took > testenv.Loaded(2*time.Second) {
			t.Errorf("stats took %v beside the flood", took)
		}
		var r ttyResult
		for deadline := time.Now().Add(time.Duration(secs)*time.Second + 30*time.Second); ; {
			m := c.next(time.Until(deadline))
			if string(m.ID) == fmt.Sprint(id) {
				if m.Error != nil {
					t.Fatalf("exec: %+v", m.Error)
				}
				json.Unmarshal(m.Result, &r)
				break
			}
		}
		t.Logf("%s: %d bytes in %d s", command, r.Stdout.TotalBytes, secs)
		if !r.TimedOut || r.Process != nil || r.WaitingForInput != nil || r.Stdout.TotalBytes < tc.least || r.Stdout.Spool == nil {
			t.Errorf("%s: timedOut %v, process %v, waiting %v, %d bytes", command, r.TimedOut, r.Process, r.WaitingForInput, r.Stdout.TotalBytes)
		}
		if shown := r.Stdout.Head + r.Stdout.Tail; len(shown) > 8192 || strings.Contains(shown, "\x1b") {
			t.Errorf("%s: preview of %d bytes: %q", command, len(shown), daemonTail(shown, 300))
		}
	}
	if rss := p.peakRSS(t); rss > 400<<20 {
		t.Errorf("peak RSS %d MiB", rss>>20)
	}
}

// TestDaemonTooManyTerminals: a session past its terminals gets -32602
// naming tty, whatever else it runs goes on, and a terminal freed by an
// exit can be had again. With TOOLD_LONG=1, sessions on the shared socket
// past the daemon's own bound (256) get -32005, and every pty is given
// back when they close.
func TestDaemonTooManyTerminals(t *testing.T) {
	t.Parallel()
	_, c := daemonStdio(t)
	var ids []string
	for i := range 8 {
		r, e := ttyCall(t, c, 100+i, "exec", map[string]any{"command": "sleep 60", "tty": true, "background": true}, 20*time.Second)
		if e != nil || r.Process == nil {
			t.Fatalf("terminal %d: %+v %v", i+1, e, r)
		}
		ids = append(ids, *r.Process)
	}
	if _, e := ttyCall(t, c, 200, "exec", map[string]any{"command": "sleep 60", "tty": true, "background": true}, 20*time.Second); e == nil ||
		e.Code != -32602 || !strings.Contains(e.Message, "tty: too many terminals") {
		t.Fatalf("the 9th terminal: %+v", e)
	}
	if r, e := ttyCall(t, c, 201, "exec", map[string]any{"command": "echo still"}, 20*time.Second); e != nil || r.Stdout.Head != "still\n" {
		t.Fatalf("a plain exec: %+v %+v", e, r)
	}
	ttyCall(t, c, 202, "process/kill", map[string]any{"id": ids[0], "signal": "SIGKILL"}, 20*time.Second)
	if r, e := ttyCall(t, c, 203, "exec", map[string]any{"command": "tty", "tty": true}, 20*time.Second); e != nil || !strings.HasPrefix(r.Stdout.Head, "/dev/pts/") {
		t.Fatalf("a terminal after one ended: %+v %+v", e, r)
	}
	if !daemonLong() {
		return
	}
	// The daemon's bound: 33 sessions of 8.
	_, sock := daemonShared(t, 0)
	var conns []*rawClient
	refused := 0
	for s := range 33 {
		sc := daemonDial(t, sock)
		conns = append(conns, sc)
		for i := range 8 {
			_, e := ttyCall(t, sc, i+1, "exec", map[string]any{"command": "sleep 120", "tty": true, "background": true}, 30*time.Second)
			if e != nil {
				if e.Code != -32005 || !strings.Contains(e.Message, "too many terminals open in this daemon") {
					t.Fatalf("session %d terminal %d: %+v", s, i, e)
				}
				refused++
			}
		}
	}
	if refused != 33*8-256 {
		t.Errorf("%d terminals refused, want %d", refused, 33*8-256)
	}
	for _, sc := range conns {
		sc.w.Close()
	}
	if !testenv.Until(30*time.Second, func() bool {
		m := daemonDial(t, sock).call(1, "stats", nil, 10*time.Second)
		return strings.Contains(string(m.Result), `"terminals":0`)
	}) {
		t.Error("terminals still open after their sessions closed")
	}
}

// TestDaemonTTYClosedTerminal: writes to a terminal whose command has
// exited fail at once (-32602), as do a resize and a write after the
// session closed (-32001); a command that closes every fd of its terminal
// but runs on leaves the daemon answering, its output ended, and a write to
// it answered within process/write's bound.
func TestDaemonTTYClosedTerminal(t *testing.T) {
	// The quick run keeps TestDaemonTooManyTerminals, TestDaemonTTYSetuidPrompt and TestTerminalNotControlling instead.
	skipUnlessLong(t, "a closed terminal")
	t.Parallel()
	_, c := daemonStdio(t)
	r, e := ttyCall(t, c, 1, "exec", map[string]any{"command": "echo bye", "tty": true, "background": true}, 20*time.Second)
	if e != nil {
		t.Fatal(e)
	}
	id := *r.Process
	ttyCall(t, c, 2, "process/wait", map[string]any{"id": id, "timeoutMs": 20000}, 30*time.Second)
	for i, params := range []map[string]any{{"id": id, "stdin": "late\n"}, {"id": id, "cols": 100, "rows": 20}, {"id": id, "close": true}} {
		if _, e := ttyCall(t, c, 3+i, "process/write", params, 10*time.Second); e == nil || e.Code != -32602 || !strings.Contains(e.Message, "exited") {
			t.Errorf("write %v to an exited terminal: %+v", params, e)
		}
	}
	// Every fd of the terminal closed, the command runs on.
	r, e = ttyCall(t, c, 10, "exec", map[string]any{"command": "echo closing; exec 0<&- 1>&- 2>&-; sleep 60", "tty": true, "yieldMs": 1500}, 20*time.Second)
	if e != nil || r.Process == nil || r.WaitingForInput != nil {
		t.Fatalf("closer: %+v %+v", e, r)
	}
	began := time.Now()
	if _, e := ttyCall(t, c, 11, "process/write", map[string]any{"id": *r.Process, "stdin": strings.Repeat("x", 64<<10)}, 20*time.Second); e != nil && e.Code != -32602 {
		t.Errorf("write to a terminal nobody reads: %+v", e)
	}
	if took := time.Since(began); took > 15*time.Second {
		t.Errorf("the write took %v", took)
	}
	if r, e := ttyCall(t, c, 12, "exec", map[string]any{"command": "echo alive"}, 20*time.Second); e != nil || r.Stdout.Head != "alive\n" {
		t.Fatalf("after: %+v %+v", e, r)
	}
	bg := *r.Process
	ttyCall(t, c, 13, "session/close", nil, 20*time.Second)
	if _, e := ttyCall(t, c, 14, "process/write", map[string]any{"id": bg, "stdin": "x"}, 10*time.Second); e == nil || e.Code != -32001 {
		t.Errorf("write after session/close: %+v", e)
	}
}

// TestDaemonTTYReopen: a command that reopens /dev/tty gets its own
// terminal (and is found waiting on it); without tty, /dev/tty fails at
// once (ENXIO) with the notice, never a hang; a command that leaves its
// session (setsid) has no terminal to reopen; a sandboxed command cannot
// open another session's terminal by its /dev/pts path.
func TestDaemonTTYReopen(t *testing.T) {
	// The quick run keeps TestDaemonTooManyTerminals, TestDaemonTTYSetuidPrompt and TestTerminalNotControlling instead.
	skipUnlessLong(t, "a terminal reopened")
	t.Parallel()
	_, c := daemonStdio(t)
	r, e := ttyCall(t, c, 1, "exec", map[string]any{"command": `exec </dev/tty >/dev/tty 2>&1; read -p "again: " x; echo "got $x"; tty`, "tty": true}, 20*time.Second)
	if e != nil || r.WaitingForInput == nil || r.WaitingForInput.Prompt != "again: " {
		t.Fatalf("reopened: %+v %+v", e, r)
	}
	id := *r.Process
	ttyCall(t, c, 2, "process/write", map[string]any{"id": id, "stdin": "yes\n"}, 20*time.Second)
	w, _ := ttyCall(t, c, 3, "process/wait", map[string]any{"id": id, "timeoutMs": 20000}, 30*time.Second)
	// Its stdin is /dev/tty now, which tty names so.
	if !strings.Contains(w.Stdout.Head, "got yes\n/dev/tty\n") {
		t.Errorf("after the answer: %q", w.Stdout.Head)
	}
	r, e = ttyCall(t, c, 4, "exec", map[string]any{"command": `read x < /dev/tty`, "timeoutMs": 10000}, 20*time.Second)
	if e != nil || r.TimedOut || r.Notice == nil || !strings.Contains(*r.Notice, "tty: true") {
		t.Errorf("without a terminal: %+v %+v", e, r)
	}
	if _, err := exec.LookPath("setsid"); err == nil {
		r, e = ttyCall(t, c, 5, "exec", map[string]any{"command": `setsid -w bash -c 'read x < /dev/tty'`, "tty": true, "timeoutMs": 10000}, 20*time.Second)
		if e != nil || r.TimedOut || r.ExitCode == nil || *r.ExitCode == 0 {
			t.Errorf("setsid: %+v %+v", e, r)
		}
	}
	// Another session's terminal, from a sandboxed command.
	r, e = ttyCall(t, c, 6, "exec", map[string]any{"command": `tty; sleep 60`, "tty": true, "yieldMs": 1000}, 20*time.Second)
	pts := strings.TrimSpace(r.Stdout.Head)
	if e != nil || !regexp.MustCompile(`^/dev/pts/\d+$`).MatchString(pts) {
		t.Fatalf("a terminal: %+v %q", e, pts)
	}
	_, boxed := daemonStdio(t)
	proj := t.TempDir()
	if m := boxed.call(1, "initialize", map[string]any{"cwd": proj, "sandbox": map[string]any{"mode": "workspace-write", "bestEffort": true}}, 20*time.Second); m.Error != nil {
		t.Skipf("no sandbox here: %+v", m.Error)
	}
	r, e = ttyCall(t, boxed, 2, "exec", map[string]any{"command": "echo injected > " + pts}, 20*time.Second)
	if e != nil || r.ExitCode == nil || *r.ExitCode == 0 {
		t.Errorf("a sandboxed command wrote to %s: %+v %+v", pts, e, r)
	}
}

// TestDaemonTTYSetuidPrompt: a setuid program's password prompt (su),
// whose system calls /proc keeps from a user who is not root, is found
// waiting by the terminal's mode (canonical, no echo), and Ctrl-C ends
// it. As root it is found by its system call like any other.
func TestDaemonTTYSetuidPrompt(t *testing.T) {
	t.Parallel()
	su, err := exec.LookPath("su")
	if err != nil {
		t.Skip("su is not installed")
	}
	if fi, err := os.Stat(su); err != nil || fi.Mode()&os.ModeSetuid == 0 {
		t.Skip("su is not setuid")
	}
	if os.Geteuid() == 0 {
		t.Skip("as root su asks for no password (TestDaemonTTYAsNobody runs this case as uid 65534)")
	}
	_, c := daemonStdio(t)
	r, e := ttyCall(t, c, 1, "exec", map[string]any{"command": "su -c true root", "tty": true, "timeoutMs": 30000}, 40*time.Second)
	if e != nil || r.WaitingForInput == nil || r.WaitingForInput.Echo || !strings.Contains(r.WaitingForInput.Prompt, "assword") {
		t.Fatalf("su's prompt: %+v %+v", e, r)
	}
	ttyCall(t, c, 2, "process/write", map[string]any{"id": *r.Process, "stdin": "\u0003"}, 20*time.Second)
	if w, _ := ttyCall(t, c, 3, "process/wait", map[string]any{"id": *r.Process, "timeoutMs": 20000}, 30*time.Second); w.Running {
		t.Errorf("su after Ctrl-C: %+v", w)
	}
}

// TestDaemonTTYAsNobody runs the terminal cases again as uid 65534 when the
// suite runs as root: /proc/PID/syscall is read without privilege, and su
// asks for a password.
func TestDaemonTTYAsNobody(t *testing.T) {
	// The quick run keeps TestSandboxAsNobody as uid 65534 instead.
	skipUnlessLong(t, "the terminal cases as uid 65534")
	t.Parallel()
	run := "^TestDaemon(TTYReopen|TTYClosedTerminal|TTYSetuidPrompt|TooManyTerminals)$"
	out, err := testenv.AsNobody(t, run, func(dir string) []string {
		return []string{"TOOLD_ADVERSARIAL_BIN=" + filepath.Join(dir, filepath.Base(daemonBinary(t)))}
	}, daemonBinary(t))
	passed := len(regexp.MustCompile(`--- PASS: TestDaemon\w+ `).FindAllString(out, -1))
	t.Logf("as uid 65534: %d cases passed", passed)
	if err != nil || passed < 3 {
		t.Fatalf("as uid 65534: %v\n%s", err, daemonTail(out, 6000))
	}
}
