package methods

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/process"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// callErr calls m and returns its error as an *rpc.Error.
func callErr(t testing.TB, m Method, s *Session, params any) *rpc.Error {
	t.Helper()
	b, _ := json.Marshal(params)
	_, err := m(context.Background(), s, b)
	var re *rpc.Error
	if !errors.As(err, &re) {
		t.Fatalf("%s: error %v, want an rpc error", b, err)
	}
	return re
}

// TestExecYield: a command that ends within its yield answers as exec does
// (no process, no spool for output shown whole); one that runs on becomes a
// process whose output so far is in the result and is not read again.
func TestExecYield(t *testing.T) {
	svc, s := newExecService(t, nil)
	r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "echo quick; exit 3", "yieldMs": 5000})
	if r.Process != nil || r.ExitCode == nil || *r.ExitCode != 3 || r.Stdout.Head != "quick\n" || r.Stdout.Spool != nil {
		t.Fatalf("quick command: %+v", r)
	}
	if l := call[[]protocol.ProcessInfo](t, svc.ProcessList, s, nil); len(l) != 0 {
		t.Fatalf("a command that ended within its yield is listed: %+v", l)
	}
	// Output shown whole writes no file: the spool the process wrote for
	// a reader is deleted.
	if ents, _ := os.ReadDir(s.Spool.Path()); len(ents) != 0 {
		t.Fatalf("spool files left: %v", ents)
	}

	r = call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "echo first; sleep 0.3; echo second; sleep 30", "yieldMs": 150})
	if r.Process == nil || r.ExitCode != nil || r.Stdout.Head != "first\n" || r.Notice == nil || !strings.Contains(*r.Notice, *r.Process) {
		t.Fatalf("yielded: %+v notice %v", r, r.Notice)
	}
	id := *r.Process
	w := call[protocol.ProcessOutput](t, svc.ProcessWait, s, map[string]any{"id": id, "until": map[string]any{"pattern": "^sec"}})
	if w.Reason != protocol.ReasonPattern || w.Stdout.Head != "second\n" || !w.Running || w.Cursor != "13:0" {
		t.Fatalf("wait: %+v", w)
	}
	k := call[protocol.ProcessInfo](t, svc.ProcessKill, s, map[string]any{"id": id})
	if k.Running || k.Signal == nil || *k.Signal != "SIGTERM" {
		t.Fatalf("kill: %+v", k)
	}
	rd := call[protocol.ProcessOutput](t, svc.ProcessRead, s, map[string]any{"id": id, "since": "0:0"})
	if rd.Running || rd.Stdout.Head != "first\nsecond\n" || rd.Signal == nil || rd.Since != "0:0" {
		t.Fatalf("read from 0 after kill: %+v", rd)
	}
}

// TestBackgroundPaging: a long output read while it runs is previewed with
// the spool's own line numbers, so the notice's page call reads the lines
// it left out.
func TestBackgroundPaging(t *testing.T) {
	svc, s := newExecService(t, nil)
	// The rest comes once the first wait has returned: a sleep between them
	// was outwaited on a loaded machine, the first wait took all 5000 lines
	// and the second waited 30 s for more.
	r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "seq 1 10; read x; seq 11 5000; sleep 30", "background": true})
	id := *r.Process
	if !strings.HasSuffix(r.Stdout.Head+r.Stdout.Tail, "\n10\n") {
		call[protocol.ProcessOutput](t, svc.ProcessWait, s, map[string]any{"id": id, "until": map[string]any{"pattern": "^10$"}})
	}
	call[protocol.ProcessWriteResult](t, svc.ProcessWrite, s, map[string]any{"id": id, "stdin": "go\n"})
	// The first wait returned lines 1-10 (maybe fewer, if it came early):
	// read up to the end, then read the rest in one preview.
	w := call[protocol.ProcessOutput](t, svc.ProcessWait, s, map[string]any{"id": id, "until": map[string]any{"pattern": "^5000$"}, "maxLines": 20})
	o := w.Stdout.Omitted
	if o == nil || w.Stdout.Spool == nil || o.ToLine != 4990 || !strings.HasPrefix(w.Stdout.Head, "11\n") && !strings.HasPrefix(w.Stdout.Head, "1\n") {
		t.Fatalf("wait: omitted %+v head %q", o, w.Stdout.Head[:min(20, len(w.Stdout.Head))])
	}
	pg := call[protocol.Window](t, svc.Page, s, map[string]any{"spool": w.Stdout.Spool.ID, "offset": o.FromLine, "limit": 2})
	if want := fmt.Sprintf("%d\n%d\n", o.FromLine, o.FromLine+1); pg.Content != want {
		t.Fatalf("page of the omitted lines at %d: %q, want %q", o.FromLine, pg.Content, want)
	}
	if !strings.Contains(*w.Notice, fmt.Sprintf("page spool=%s offset=%d", w.Stdout.Spool.ID, o.FromLine)) {
		t.Fatalf("notice %q", *w.Notice)
	}
}

func TestProcessErrors(t *testing.T) {
	svc, s := newExecService(t, nil)
	r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "sleep 30", "background": true})
	id := *r.Process
	cases := []struct {
		m      Method
		params any
		code   int64
		field  string
	}{
		{svc.ProcessRead, map[string]any{"id": "pnope"}, protocol.CodeNoSuchFile, ""},
		{svc.ProcessRead, map[string]any{}, rpc.CodeInvalidParams, "id"},
		{svc.ProcessRead, map[string]any{"id": id, "since": "x"}, rpc.CodeInvalidParams, "since"},
		{svc.ProcessRead, map[string]any{"id": id, "since": "99:0"}, rpc.CodeInvalidParams, "since"},
		{svc.ProcessWait, map[string]any{"id": id, "until": map[string]any{"pattern": "("}}, rpc.CodeInvalidParams, "until.pattern"},
		{svc.ProcessWait, map[string]any{"id": id, "timeoutMs": -1}, rpc.CodeInvalidParams, "timeoutMs"},
		{svc.ProcessKill, map[string]any{"id": id, "signal": "SIGNOPE"}, rpc.CodeInvalidParams, "signal"},
		{svc.Exec, map[string]any{"command": "true", "yieldMs": -5}, rpc.CodeInvalidParams, "yieldMs"},
		{svc.Exec, map[string]any{"argv": []string{"/no/such"}, "background": true}, protocol.CodeStartFailed, ""},
	}
	for _, c := range cases {
		e := callErr(t, c.m, s, c.params)
		if e.Code != c.code || c.field != "" && !strings.Contains(e.Message, c.field) {
			t.Errorf("%v: error %d %q, want %d naming %q", c.params, e.Code, e.Message, c.code, c.field)
		}
	}
	// Another session knows nothing of the id.
	_, other := newExecService(t, nil)
	if e := callErr(t, svc.ProcessRead, other, map[string]any{"id": id}); e.Code != protocol.CodeNoSuchFile {
		t.Errorf("another session: %v", e)
	}
	// The process past the session's limit is refused, the error naming
	// it: at a limit of 2 in the quick run (the daemon's 16 is
	// process.TestLimit's and lifecycle's; 16 sleeps under -race were half
	// this test), at protocol.MaxProcesses with TOOLD_LONG=1.
	limit := testenv.Size(2, protocol.MaxProcesses)
	full := *s
	full.Procs = process.NewTable(svc.Runner, limit)
	t.Cleanup(full.Procs.Close)
	for range limit {
		call[protocol.ExecResult](t, svc.Exec, &full, map[string]any{"command": "sleep 30", "background": true})
	}
	if e := callErr(t, svc.Exec, &full, map[string]any{"command": "sleep 30", "background": true}); e.Code != rpc.CodeInvalidParams || !strings.Contains(e.Message, fmt.Sprintf("%d of %d run", limit, limit)) {
		t.Errorf("process %d of a limit of %d: %v", limit+1, limit, e)
	}
}

func TestProcessWrite(t *testing.T) {
	svc, s := newExecService(t, nil)
	r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": `read a; echo "got $a"; cat`, "background": true, "stdin": "one\n"})
	id := *r.Process
	// The exec's reply may hold the line already (the shell was quick: a
	// wait for "got" from there timed out once under load); else a wait
	// brings it, or its end.
	head := r.Stdout.Head
	if !strings.Contains(head, "\n") {
		w := call[protocol.ProcessOutput](t, svc.ProcessWait, s, map[string]any{"id": id, "until": map[string]any{"pattern": "one"}})
		head += w.Stdout.Head
	}
	if head != "got one\n" {
		t.Fatalf("stdin given to exec: %q", head)
	}
	if n := call[protocol.ProcessWriteResult](t, svc.ProcessWrite, s, map[string]any{"id": id, "stdin": "two\n", "close": true}); n.Written != 4 {
		t.Fatalf("written %+v", n)
	}
	w := call[protocol.ProcessOutput](t, svc.ProcessWait, s, map[string]any{"id": id})
	if w.Reason != protocol.ReasonExit || w.Stdout.Head != "two\n" || w.ExitCode == nil || *w.ExitCode != 0 {
		t.Fatalf("after close: %+v", w)
	}
	if e := callErr(t, svc.ProcessWrite, s, map[string]any{"id": id, "stdin": "x"}); e.Code != rpc.CodeInvalidParams {
		t.Fatalf("write after exit: %v", e)
	}
}

// TestWaitProgress: a wait reports the process's progress.
func TestWaitProgress(t *testing.T) {
	t.Parallel() // waits on a process of its own
	svc, s := newExecService(t, nil)
	r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": `for i in 1 2 3 4 5 6; do echo $i; sleep 0.1; done`, "background": true})
	ctx, rec := progressCtx(50 * time.Millisecond)
	b, _ := json.Marshal(map[string]any{"id": *r.Process})
	if _, err := svc.ProcessWait(ctx, s, b); err != nil {
		t.Fatal(err)
	}
	if v := rec.done(); len(v) < 3 || !strings.Contains(string(v[len(v)-1]), `"kind":"exec"`) {
		t.Fatalf("progress %s", v)
	}
}

// TestProcessAdversarial: a spool that cannot be written, binary output,
// a wait cancelled by its caller.
func TestProcessAdversarial(t *testing.T) {
	t.Parallel() // waits on processes of its own
	full := func(string, int, os.FileMode) (*os.File, error) { return os.OpenFile("/dev/full", os.O_WRONLY, 0) }
	svc, s := newExecService(t, full)
	r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "echo lost; sleep 30", "background": true})
	// The 200 ms of quiet may pass before the shell's echo on a loaded
	// machine (it failed so at a load of 7): wait again, from the cursor,
	// until the five bytes are counted.
	var w protocol.ProcessOutput
	total, deadline := r.Stdout.TotalBytes, time.Now().Add(20*time.Second)
	for waits := 0; waits == 0 || total < 5; waits++ {
		if time.Now().After(deadline) {
			t.Fatalf("full disk: %d of the 5 bytes counted after %d waits", total, waits)
		}
		w = call[protocol.ProcessOutput](t, svc.ProcessWait, s, map[string]any{"id": *r.Process, "until": map[string]any{"idleMs": 200}})
		if w.Reason != protocol.ReasonIdle || total+w.Stdout.TotalBytes > 5 || w.Stdout.Head != "" ||
			(w.Stdout.TotalBytes > 0 && (w.Notice == nil || !strings.Contains(*w.Notice, "counted, not kept"))) {
			t.Fatalf("full disk: %d bytes before, then %+v %v", total, w, w.Notice)
		}
		total += w.Stdout.TotalBytes
	}

	svc, s = newExecService(t, nil)
	r = call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "sleep 0.2; head -c 20000 /dev/urandom; printf '\\0'; sleep 30", "background": true})
	// Idle for 300 ms may come before the output does on a loaded machine
	// (the command sleeps first), and then at once while it stays silent:
	// wait again until the output has come, up to a deadline (50 waits in
	// a row ran out before it once).
	testenv.Until(20*time.Second, func() bool {
		w = call[protocol.ProcessOutput](t, svc.ProcessWait, s, map[string]any{"id": *r.Process, "until": map[string]any{"idleMs": 300}})
		return w.Reason != protocol.ReasonIdle || w.Stdout.TotalBytes > 0
	})
	if !w.Stdout.Binary || w.Stdout.Head != "" || w.Stdout.Spool == nil || w.Stdout.TotalBytes != 20001 {
		t.Fatalf("binary: %+v, %s", w.Stdout, w.Reason)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	b, _ := json.Marshal(map[string]any{"id": *r.Process})
	if _, err := svc.ProcessWait(ctx, s, b); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled wait: %v", err)
	}
	if l := call[[]protocol.ProcessInfo](t, svc.ProcessList, s, nil); len(l) != 1 || !l[0].Running {
		t.Fatalf("the process must outlive a cancelled wait: %+v", l)
	}
}

// TestBackgroundFastExit: a background command that exits at once still
// reports its status and stderr, whether the exec saw the exit or a later
// wait does.
func TestBackgroundFastExit(t *testing.T) {
	svc, s := newExecService(t, nil)
	// 30 runs with TOOLD_LONG=1: the exit falls before or after exec's
	// answer as the scheduler has it, and repetition meets both; 8 in the
	// quick run, each checked the same (0.6 CPU-s were 30 background
	// starts and waits under -race).
	for i := range testenv.Size(8, 30) {
		r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": fmt.Sprintf("echo err%d >&2; exit 7", i), "background": true})
		code, stderr := r.ExitCode, r.Stderr.Head
		if r.Process != nil {
			w := call[protocol.ProcessOutput](t, svc.ProcessWait, s, map[string]any{"id": *r.Process})
			if w.Reason != protocol.ReasonExit {
				t.Fatalf("wait: %+v", w)
			}
			code, stderr = w.ExitCode, r.Stderr.Head+w.Stderr.Head
		}
		if code == nil || *code != 7 || stderr != fmt.Sprintf("err%d\n", i) {
			t.Fatalf("run %d: exit %v, stderr %q", i, code, stderr)
		}
	}
}

// TestProcessKillSignal: process/kill's signal is a name or a number, as
// its doc and its error say; a JSON number was refused as "must be a
// string".
func TestProcessKillSignal(t *testing.T) {
	svc, s := newExecService(t, nil)
	for _, tc := range []struct {
		signal any
		want   string // the signal that ended it, or "" for -32602
	}{
		{9, "SIGKILL"},
		{"9", "SIGKILL"},
		{"KILL", "SIGKILL"},
		{"SIGINT", "SIGINT"},
		{2.0, "SIGINT"},
		{true, ""},
		{2.5, ""},
		{"nosuch", ""},
	} {
		r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "exec sleep 30", "background": true})
		b, _ := json.Marshal(map[string]any{"id": *r.Process, "signal": tc.signal})
		res, err := svc.ProcessKill(context.Background(), s, b)
		if tc.want == "" {
			var re *rpc.Error
			if !errors.As(err, &re) || re.Code != rpc.CodeInvalidParams || !strings.Contains(re.Message, "signal") {
				t.Errorf("signal %v: want -32602 naming signal, got %v, %v", tc.signal, res, err)
			}
			call[protocol.ProcessInfo](t, svc.ProcessKill, s, map[string]any{"id": *r.Process})
			continue
		}
		if err != nil {
			t.Errorf("signal %v: %v", tc.signal, err)
			continue
		}
		if k := res.(protocol.ProcessInfo); k.Running || k.Signal == nil || *k.Signal != tc.want {
			t.Errorf("signal %v: %+v, want ended by %s", tc.signal, k, tc.want)
		}
	}
}
