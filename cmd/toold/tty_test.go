package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/protocol"
)

// Commands that wait for input (PROTOCOL.md, "Commands that wait for
// input"), end to end in every mode and framing, with real programs.

// detectWithin is the contract's bound: a prompt is noticed within 2 s,
// on a machine with a core to spare. The command needs a CPU between its
// prompt and its read, so on a shared machine the bound grows with the
// load average per core (at 19 on 2 cores the first prompts came 2.3 s
// late). BenchmarkPromptToReply measures the latency itself.
func detectWithin() int64 {
	return testenv.Loaded(2 * time.Second).Milliseconds()
}

// needProgram skips t without program.
func needProgram(t testing.TB, program string) {
	t.Helper()
	if _, err := exec.LookPath(program); err != nil {
		t.Skipf("%s is not installed", program)
	}
}

// python3 is the command that starts the python3 interpreter itself
// (testenv.Python), quoted for the shell, or the test is skipped: where
// PATH's python3 is a version manager's shim, each start through it cost
// 0.8 CPU-seconds of shell and pyenv before the interpreter ran.
func python3(t testing.TB) string {
	t.Helper()
	py, err := testenv.Python()
	if err != nil {
		t.Skip(err)
	}
	return "'" + strings.ReplaceAll(py, "'", `'\''`) + "'"
}

// execWaiting runs params as exec and checks that it returned because the
// command waits for input: a process id, no exit code, waitingForInput
// within detectWithin of the prompt, and a notice that names the write
// method and the id.
func execWaiting(t *testing.T, p *peer, params map[string]any) protocol.ExecResult {
	t.Helper()
	var r protocol.ExecResult
	p.mustCall("exec", params, &r)
	if r.Process == nil || r.ExitCode != nil || r.Signal != nil || r.WaitingForInput == nil {
		t.Fatalf("exec did not return waiting for input: %+v stdout %q", r, r.Stdout.Head+r.Stdout.Tail)
	}
	if w, bound := r.WaitingForInput, detectWithin(); w.SinceMs < 0 || w.SinceMs > bound {
		t.Errorf("noticed %d ms after the prompt, past %d", w.SinceMs, bound)
	}
	if r.Notice == nil || !strings.Contains(*r.Notice, "process/write id="+*r.Process) {
		t.Errorf("notice: %v", r.Notice)
	}
	return r
}

// answer writes stdin to process id, then waits for its exit (at most 30
// s), and returns the wait's result.
func answer(t *testing.T, p *peer, id, stdin string) protocol.ProcessOutput {
	t.Helper()
	var wr protocol.ProcessWriteResult
	p.mustCall("process/write", map[string]any{"id": id, "stdin": stdin}, &wr)
	if wr.Written != len(stdin) {
		t.Fatalf("write: %+v", wr)
	}
	return waitExit(t, p, id)
}

// waitExit waits up to 30 s for process id to exit. A wait that ends for
// input is waited again: what was just typed is echoed by the terminal
// while the program may still sit in its read (a Ctrl-C's "^C" comes
// before bash takes the SIGINT), which a loaded machine shows as waiting.
func waitExit(t *testing.T, p *peer, id string) protocol.ProcessOutput {
	t.Helper()
	var w protocol.ProcessOutput
	testenv.Until(30*time.Second, func() bool {
		head := w.Stdout.Head
		w = protocol.ProcessOutput{}
		p.mustCall("process/wait", map[string]any{"id": id, "timeoutMs": 30000}, &w)
		w.Stdout.Head = head + w.Stdout.Head // the output of every wait, for the callers' checks
		return w.Reason != protocol.ReasonInput
	})
	if w.Reason != protocol.ReasonExit || w.Running {
		t.Fatalf("wait: reason %q, running %v: %q %v", w.Reason, w.Running, w.Stdout.Head+w.Stdout.Tail, w.Notice)
	}
	return w
}

// TestTTYPrompt: a `read -p` prompt on a terminal is found waiting, shown,
// answered through the terminal, and the command ends as it would at a
// keyboard. process/read and process/list say it waits meanwhile.
func TestTTYPrompt(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		r := execWaiting(t, p, map[string]any{"command": `read -p "Name: " name; echo "hello $name"; [ -t 0 ] && echo on-a-tty`, "tty": true})
		id := *r.Process
		if r.WaitingForInput.Prompt != "Name: " || !r.WaitingForInput.Echo || !strings.Contains(r.Stdout.Head, "Name: ") {
			t.Errorf("waiting %+v, stdout %q", r.WaitingForInput, r.Stdout.Head)
		}
		var rd protocol.ProcessOutput
		p.mustCall("process/read", map[string]any{"id": id}, &rd)
		if rd.WaitingForInput == nil || rd.WaitingForInput.Prompt != "Name: " || !strings.Contains(*rd.Notice, "waits for input") {
			t.Errorf("read: %+v %v", rd.WaitingForInput, rd.Notice)
		}
		var list []protocol.ProcessInfo
		p.mustCall("process/list", nil, &list)
		if len(list) != 1 || !list[0].TTY || list[0].WaitingForInput == nil {
			t.Errorf("list: %+v", list)
		}
		// A wait, with a pattern or not, returns at once: it waits for input.
		var w protocol.ProcessOutput
		p.mustCall("process/wait", map[string]any{"id": id, "timeoutMs": 20000, "until": map[string]any{"pattern": "never"}}, &w)
		if w.Reason != protocol.ReasonInput || w.WaitingForInput == nil {
			t.Errorf("wait: %q %+v", w.Reason, w.WaitingForInput)
		}
		w = answer(t, p, id, "bob\n")
		out := w.Stdout.Head + w.Stdout.Tail
		if !strings.Contains(out, "hello bob\n") || !strings.Contains(out, "on-a-tty") || w.ExitCode == nil || *w.ExitCode != 0 || w.WaitingForInput != nil {
			t.Errorf("after the answer: exit %v, %q", w.ExitCode, out)
		}
		p.mustCall("process/list", nil, &list)
		if len(list) != 1 || list[0].Running || list[0].WaitingForInput != nil {
			t.Errorf("list after the exit: %+v", list)
		}
	})
}

// TestTTYPromptsInTurn: a command that asks twice is found waiting at each
// prompt, and a tty exec that never waits answers as a plain exec does.
func TestTTYPromptsInTurn(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		r := execWaiting(t, p, map[string]any{"command": `read -p "first? " a; read -p "second? " b; echo "$a+$b"`, "tty": true})
		id := *r.Process
		p.mustCall("process/write", map[string]any{"id": id, "stdin": "1\n"}, nil)
		var w protocol.ProcessOutput
		p.mustCall("process/wait", map[string]any{"id": id, "timeoutMs": 20000}, &w)
		if w.Reason != protocol.ReasonInput || w.WaitingForInput == nil || w.WaitingForInput.Prompt != "second? " {
			t.Fatalf("second prompt: %q %+v %q", w.Reason, w.WaitingForInput, w.Stdout.Head)
		}
		if w = answer(t, p, id, "2\n"); !strings.Contains(w.Stdout.Head, "1+2") {
			t.Errorf("%q", w.Stdout.Head)
		}
		// No prompt: the reply comes at the exit, as a plain exec's does.
		var plain protocol.ExecResult
		p.mustCall("exec", map[string]any{"command": "echo plain; tty", "tty": true}, &plain)
		if plain.Process != nil || plain.ExitCode == nil || *plain.ExitCode != 0 || !strings.HasPrefix(plain.Stdout.Head, "plain\n/dev/pts/") {
			t.Errorf("plain: %+v", plain)
		}
	})
}

// TestTTYGetpass: a getpass prompt (echo off) is found waiting with echo
// false; the secret typed in is in no reply nor notification, and the
// program got it.
func TestTTYGetpass(t *testing.T) {
	py := python3(t)
	const secret = "hunter2-Zq8v"
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		var raw []string
		call := func(method string, params any, out any) {
			t.Helper()
			_, reply := p.start(method, params)
			m := p.await(reply)
			if m.Error != nil {
				t.Fatalf("%s: %v", method, m.Error)
			}
			raw = append(raw, string(m.Result))
			if out != nil {
				json.Unmarshal(m.Result, out)
			}
		}
		var r protocol.ExecResult
		call("exec", map[string]any{"command": py + ` -c 'import getpass; s = getpass.getpass("Password: "); print("length", len(s))'`,
			"tty": true, "workDoneToken": "t1"}, &r)
		if r.WaitingForInput == nil || r.WaitingForInput.Echo || !strings.Contains(r.WaitingForInput.Prompt, "Password:") {
			t.Fatalf("exec: %+v %q", r.WaitingForInput, r.Stdout.Head)
		}
		if r.Notice == nil || !strings.Contains(*r.Notice, "does not echo") {
			t.Errorf("notice: %v", r.Notice)
		}
		id := *r.Process
		call("process/write", map[string]any{"id": id, "stdin": secret + "\n"}, nil)
		var w protocol.ProcessOutput
		call("process/wait", map[string]any{"id": id, "timeoutMs": 30000, "workDoneToken": "t2"}, &w)
		call("process/read", map[string]any{"id": id, "since": "0:0"}, nil)
		call("process/list", nil, nil)
		if w.Reason != protocol.ReasonExit || !strings.Contains(w.Stdout.Head, fmt.Sprintf("length %d", len(secret))) {
			t.Fatalf("wait: %q %q", w.Reason, w.Stdout.Head)
		}
		p.mu.Lock()
		for _, n := range p.notes {
			raw = append(raw, string(n.Params))
		}
		p.mu.Unlock()
		for _, s := range raw {
			if strings.Contains(s, secret) {
				t.Fatalf("the secret is repeated: %s", s)
			}
		}
	})
}

// TestInputOnPipe: input() on a background process's stdin pipe (no tty)
// is found waiting within 2 s of its prompt, long before the yield ends.
func TestInputOnPipe(t *testing.T) {
	py := python3(t)
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		began := time.Now()
		r := execWaiting(t, p, map[string]any{"command": py + ` -c 'print("got", input("name: "))'`, "yieldMs": 60000})
		if took := time.Since(began); took > 30*time.Second {
			t.Errorf("exec took %v: the yield, not the prompt, ended it", took)
		}
		if r.WaitingForInput.Prompt != "name: " || !r.WaitingForInput.Echo {
			t.Errorf("waiting: %+v", r.WaitingForInput)
		}
		if w := answer(t, p, *r.Process, "ada\n"); !strings.Contains(w.Stdout.Head, "got ada") {
			t.Errorf("%q", w.Stdout.Head)
		}
	})
}

// TestTTYLess: less on a long text is found waiting at its prompt, and q
// quits it.
func TestTTYLess(t *testing.T) {
	needProgram(t, "less")
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		text := filepath.Join(t.TempDir(), "long.txt")
		var b strings.Builder
		for i := range 5000 {
			fmt.Fprintf(&b, "line %d of a long text\n", i+1)
		}
		if err := os.WriteFile(text, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		r := execWaiting(t, p, map[string]any{"command": "less " + text, "tty": true, "rows": 24})
		if !strings.Contains(r.Stdout.Head, "line 1 of a long text") || strings.Contains(r.Stdout.Head, "line 100 of") {
			t.Errorf("less's first screen: %q", r.Stdout.Head)
		}
		if strings.Contains(r.Stdout.Head, "\x1b") {
			t.Errorf("escape sequences in the preview: %q", r.Stdout.Head)
		}
		w := answer(t, p, *r.Process, "q")
		if w.ExitCode == nil || *w.ExitCode != 0 {
			t.Errorf("less after q: %+v", w)
		}
	})
}

// TestTTYNeverWaiting: a sleep, a busy loop, `sleep | cat` and a network
// wait are never called waiting, on a terminal or on a pipe: exec returns
// at its yield and a wait at its timeout. 10 s with TOOLD_LONG=1.
func TestTTYNeverWaiting(t *testing.T) {
	cases := map[string]string{
		"sleep":      "sleep 60",
		"busy loop":  "while :; do :; done",
		"sleep|cat":  "sleep 60 | cat",
		"network":    python3(t) + ` -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(); print("listening", flush=True); s.accept()'`,
		"quiet echo": `echo started; sleep 60`,
	}
	yield := testenv.Size(2500, 10000)
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		type call struct {
			name  string
			reply chan message
		}
		var calls []call
		// The quick run has each case on one of the two, in turn (the busy
		// loop burns a core for the yield).
		for i, name := range slices.Sorted(maps.Keys(cases)) {
			command := cases[name]
			for _, tty := range testenv.Size([]bool{i%2 == 0}, []bool{true, false}) {
				_, reply := p.start("exec", map[string]any{"command": command, "tty": tty, "yieldMs": yield})
				calls = append(calls, call{fmt.Sprintf("%s tty=%v", name, tty), reply})
			}
		}
		for _, c := range calls {
			m := p.await(c.reply)
			var r protocol.ExecResult
			if m.Error != nil || json.Unmarshal(m.Result, &r) != nil || r.Process == nil {
				t.Fatalf("%s: %v %s", c.name, m.Error, m.Result)
			}
			if r.WaitingForInput != nil || r.DurationMs < int64(yield)-100 {
				t.Errorf("%s: returned after %d ms of %d, waiting %+v", c.name, r.DurationMs, yield, r.WaitingForInput)
			}
			var w protocol.ProcessOutput
			p.mustCall("process/wait", map[string]any{"id": *r.Process, "timeoutMs": 300}, &w)
			if w.Reason != protocol.ReasonTimeout || w.WaitingForInput != nil {
				t.Errorf("%s: wait %q %+v", c.name, w.Reason, w.WaitingForInput)
			}
			p.mustCall("process/kill", map[string]any{"id": *r.Process, "signal": "SIGKILL"}, nil)
		}
	})
}

// TestTTYPromptAfterOutput: a prompt after 5,000 lines of output is found,
// shown as the prompt, and the output's middle is spooled as usual.
func TestTTYPromptAfterOutput(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		r := execWaiting(t, p, map[string]any{"command": `seq 1 5000; read -p "continue? [y/N] " a; echo "answer $a"`, "tty": true})
		if r.WaitingForInput.Prompt != "continue? [y/N] " || r.Stdout.Spool == nil || !strings.HasSuffix(r.Stdout.Tail, "5000\ncontinue? [y/N] ") {
			t.Errorf("waiting %+v, tail %q", r.WaitingForInput, r.Stdout.Tail)
		}
		if w := answer(t, p, *r.Process, "y\n"); !strings.Contains(w.Stdout.Head+w.Stdout.Tail, "answer y") {
			t.Errorf("%q", w.Stdout.Head)
		}
	})
}

// TestPromptInGrandchild: a prompt read by a grandchild (the shells above
// it wait for their children) is found, on a terminal and on a pipe.
func TestPromptInGrandchild(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		for _, tty := range []bool{true, false} {
			params := map[string]any{"command": `bash -c 'bash -c "read -p \"who? \" x; echo hi \$x"; echo child-done'; echo done`, "tty": tty}
			if !tty {
				params["yieldMs"] = 60000
			}
			r := execWaiting(t, p, params)
			if tty && r.WaitingForInput.Prompt != "who? " {
				t.Errorf("prompt %+v", r.WaitingForInput)
			}
			if w := answer(t, p, *r.Process, "you\n"); !strings.Contains(w.Stdout.Head, "hi you\nchild-done\ndone") {
				t.Errorf("tty=%v: %q", tty, w.Stdout.Head)
			}
		}
	})
}

// TestTTYKeys: Ctrl-C interrupts the program at its prompt, Ctrl-D ends
// its input (and close: true types it), a resize reaches it as SIGWINCH.
func TestTTYKeys(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		// Ctrl-C: SIGINT to the foreground group; bash ends by it.
		r := execWaiting(t, p, map[string]any{"command": `read -p "Name: " x; echo not-interrupted`, "tty": true})
		if w := answer(t, p, *r.Process, "\u0003"); strings.Contains(w.Stdout.Head, "not-interrupted") || w.Signal == nil && (w.ExitCode == nil || *w.ExitCode == 0) {
			t.Errorf("Ctrl-C: exit %v signal %v %q", w.ExitCode, w.Signal, w.Stdout.Head)
		}
		// Ctrl-D at a line's start: end of input.
		r = execWaiting(t, p, map[string]any{"command": `cat; echo "cat ended $?"`, "tty": true})
		if w := answer(t, p, *r.Process, "typed\n\u0004"); !strings.Contains(w.Stdout.Head, "typed\ntyped\ncat ended 0") {
			t.Errorf("Ctrl-D: %q", w.Stdout.Head)
		}
		r = execWaiting(t, p, map[string]any{"command": `cat; echo "cat ended $?"`, "tty": true})
		p.mustCall("process/write", map[string]any{"id": *r.Process, "close": true}, nil)
		if w := waitExit(t, p, *r.Process); !strings.Contains(w.Stdout.Head, "cat ended 0") {
			t.Errorf("close: %q", w.Stdout.Head)
		}
		// A resize: the terminal's new size, and SIGWINCH.
		r = execWaiting(t, p, map[string]any{"command": `trap 'echo "winch $(stty size)"' WINCH; read -p "go? " x; stty size`, "tty": true, "cols": 100, "rows": 30})
		p.mustCall("process/write", map[string]any{"id": *r.Process, "cols": 132, "rows": 43}, nil)
		if w := answer(t, p, *r.Process, "\n"); !strings.Contains(w.Stdout.Head, "43 132") {
			t.Errorf("resize: %q", w.Stdout.Head)
		}
		if e := p.call("process/write", map[string]any{"id": *r.Process, "cols": 80}, nil); e == nil {
			t.Error("resize of an exited process: no error")
		}
	})
}

// TestTTYFullScreen: vi, a full-screen editor, is found waiting, edits a
// file by keys and quits; its screen reaches the preview cleaned. No swap
// file (-n): its fsync on a loaded disk keeps vi busy (state D) for
// seconds, rightly not waiting for input then.
func TestTTYFullScreen(t *testing.T) {
	needProgram(t, "vi")
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		file := filepath.Join(t.TempDir(), "note.txt")
		r := execWaiting(t, p, map[string]any{"command": "vi -u NONE -i NONE -n " + file, "tty": true, "cols": 80, "rows": 24})
		if strings.Contains(r.Stdout.Head, "\x1b") {
			t.Errorf("escape sequences in the preview: %q", r.Stdout.Head)
		}
		w := answer(t, p, *r.Process, "ihello from vi\u001b:wq\n")
		if b, _ := os.ReadFile(file); string(b) != "hello from vi\n" || w.ExitCode == nil || *w.ExitCode != 0 {
			t.Errorf("file %q, exit %v", b, w.ExitCode)
		}
	})
}

// TestTTYSandboxed: a tty command under the sandbox runs through the
// sandbox's launcher on its terminal: found waiting, answered, confined.
func TestTTYSandboxed(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		proj, out := t.TempDir(), t.TempDir()
		p := start(t)
		p.mustCall("initialize", map[string]any{"cwd": proj, "roots": []string{proj}, "sandbox": map[string]any{"mode": "workspace-write"}}, nil)
		r := execWaiting(t, p, map[string]any{"command": `read -p "Name: " x < /dev/tty; echo "$x" > in.txt; echo "$x" > ` + out + `/x; tty`, "tty": true})
		w := answer(t, p, *r.Process, "boxed\n")
		if !strings.Contains(w.Stdout.Head, "Permission denied") || !strings.Contains(w.Stdout.Head, "/dev/pts/") {
			t.Errorf("sandboxed: %q", w.Stdout.Head)
		}
		if b, _ := os.ReadFile(filepath.Join(proj, "in.txt")); string(b) != "boxed\n" {
			t.Errorf("inside: %q", b)
		}
		if _, err := os.Stat(filepath.Join(out, "x")); err == nil {
			t.Error("written outside")
		}
	})
}

// TestNeedsTerminal: a command that fails for want of a terminal gets a
// notice that says to run it with tty: true; one on a terminal does not.
func TestNeedsTerminal(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		cases := []map[string]any{
			{"command": "read x < /dev/tty"},
			{"command": "stty size"},
		}
		if _, err := exec.LookPath("git"); err == nil {
			// git asks for credentials on /dev/tty.
			cases = append(cases, map[string]any{"command": "git -c credential.helper= credential fill",
				"stdin": "protocol=https\nhost=example.com\n\n",
				"env":   map[string]string{"GIT_TERMINAL_PROMPT": "1", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}})
		}
		for _, params := range cases {
			var r protocol.ExecResult
			p.mustCall("exec", params, &r)
			if r.Notice == nil || !strings.Contains(*r.Notice, "run it again with tty: true") {
				t.Errorf("%s: %v %q", params["command"], r.Notice, r.Stderr.Head+r.Stdout.Head)
			}
		}
		var r protocol.ExecResult
		p.mustCall("exec", map[string]any{"command": "stty size", "tty": true}, &r)
		if r.Notice != nil && strings.Contains(*r.Notice, "tty: true") || r.ExitCode == nil || *r.ExitCode != 0 {
			t.Errorf("on a terminal: %+v", r)
		}
	})
}

// TestTTYSessionsLeaveNothing: 50 sessions (15 in the quick run), each
// with a terminal whose command and its child read it at a prompt, closed
// in turn: no process,
// no fd and no pty of theirs is left in the daemon.
func TestTTYSessionsLeaveNothing(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		p := start(t)
		p.mustCall("stats", nil, nil) // the daemon runs: a forwarder's is found
		// A first command starts what stays for the daemon's life (the
		// session cgroups' guard holds a pipe).
		p.mustCall("exec", map[string]any{"command": "true"}, nil)
		pid := daemonProcess(t, p)
		before := fdCount(pid)
		var pids []int
		for range testenv.Size(15, 50) {
			// Its child reads the terminal too: a sleeping one would keep
			// the group from waiting for input.
			var r protocol.ExecResult
			p.mustCall("exec", map[string]any{"command": `bash -c 'read y < /dev/tty' & echo "pids $$ $!"; read -p "x? " x`, "tty": true, "background": true}, &r)
			// Until the prompt: a wait may also end on the child alone
			// seen reading the terminal before its parent wrote (CI saw
			// one end with no output).
			out, reasons := r.Stdout.Head, ""
			for end := time.Now().Add(20 * time.Second); !strings.Contains(out, "x? ") && time.Now().Before(end); {
				var w protocol.ProcessOutput
				p.mustCall("process/wait", map[string]any{"id": *r.Process, "timeoutMs": 20000, "until": map[string]any{"pattern": `x\? `}}, &w)
				out, reasons = out+w.Stdout.Head, reasons+" "+w.Reason
				if !w.Running {
					break
				}
			}
			var a, b int
			if _, err := fmt.Sscanf(out, "pids %d %d", &a, &b); err != nil {
				t.Fatalf("%q (waits ended on%s): %v", out, reasons, err)
			}
			pids = append(pids, a, b)
			if pid != os.Getpid() && ptys(pid) == 0 {
				t.Fatal("the daemon holds no terminal while one is open")
			}
			p.mustCall("session/close", nil, nil)
		}
		testenv.Until(20*time.Second, func() bool { return !slices.ContainsFunc(pids, alive) })
		for _, c := range pids {
			if alive(c) {
				t.Errorf("process %d outlived its session", c)
			}
		}
		var st protocol.Stats
		testenv.Until(20*time.Second, func() bool { p.mustCall("stats", nil, &st); return st.Terminals == 0 })
		if st.Terminals != 0 || st.ExecsRunning != 0 {
			t.Errorf("stats after the sessions: %d terminals, %d commands running", st.Terminals, st.ExecsRunning)
		}
		// In process, the test binary's other daemons open files and
		// terminals too: stats alone says what this one holds.
		if pid != os.Getpid() {
			if n := ptys(pid); n != 0 {
				t.Errorf("%d terminals left open in the daemon", n)
			}
			testenv.Until(20*time.Second, func() bool { return fdCount(pid) <= before })
			if n := fdCount(pid); n > before {
				t.Errorf("%d fds in the daemon, %d before", n, before)
			}
		}
	})
}

// daemonProcess is the pid of p's daemon: its own, or a forwarder's shared
// daemon's (named by its lock file).
func daemonProcess(t *testing.T, p *peer) int {
	t.Helper()
	if p.daemonPid != 0 {
		return p.daemonPid
	}
	locks, _ := filepath.Glob(filepath.Join(p.spoolRoot, "*.lock"))
	for _, l := range locks {
		if pid, err := strconv.Atoi(strings.TrimSuffix(filepath.Base(l), ".lock")); err == nil && alive(pid) {
			return pid
		}
	}
	t.Fatalf("no daemon's lock file in %s", p.spoolRoot)
	return 0
}

// fdCount counts the open fds of pid.
func fdCount(pid int) int {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(fds)
}

// ptys counts pid's fds open on a pseudo-terminal (/dev/ptmx, /dev/pts/N).
func ptys(pid int) int {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	n := 0
	for _, fd := range fds {
		l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if l == "/dev/ptmx" || strings.HasPrefix(l, "/dev/pts/") {
			n++
		}
	}
	return n
}

// TestMCPTTY: toold mcp's exec tool with tty: the text shows the prompt
// and names process_write and the process id, which answers it.
func TestMCPTTY(t *testing.T) {
	t.Parallel()
	p := startMCP(t, nil)
	text := func(name string, args map[string]any) string {
		t.Helper()
		var res toolResult
		p.mustCall("tools/call", map[string]any{"name": name, "arguments": args}, &res)
		if res.IsError || len(res.Content) == 0 {
			t.Fatalf("%s: %+v", name, res)
		}
		return res.Content[0].Text
	}
	out := text("exec", map[string]any{"command": `read -p "Your name: " x; echo "hello $x"`, "tty": true})
	id, _, _ := strings.Cut(strings.TrimPrefix(out, "waiting for input as process "), "\n")
	if !strings.HasPrefix(out, "waiting for input as process p") || !strings.Contains(out, `its prompt: "Your name: "`) ||
		!strings.Contains(out, "process_write id="+id) {
		t.Fatalf("exec:\n%s", out)
	}
	text("process_write", map[string]any{"id": id, "stdin": "mcp\n"})
	if out = text("process_wait", map[string]any{"id": id}); !strings.Contains(out, "hello mcp") || !strings.Contains(out, "exited, status 0") {
		t.Fatalf("wait:\n%s", out)
	}
}
