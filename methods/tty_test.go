package methods

import (
	"strings"
	"testing"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// TestTTYParams: a terminal's size is clamped to its caps, 0 is the
// default, a negative one and a size without tty are -32602; the
// environment's defaults apply where neither the session nor the call
// sets the variable.
func TestTTYParams(t *testing.T) {
	svc, s := newExecService(t, nil)
	s.Env["PAGER"] = "less" // the session says so: kept
	r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"tty": true, "cols": 5000, "rows": 0,
		"command": `stty size; echo "$TERM $PAGER $GIT_PAGER $EDITOR $GIT_EDITOR $MANPAGER"`, "env": map[string]string{"EDITOR": "nano"}})
	if r.Stdout.Head != "40 1000\nxterm-256color less cat nano true cat\n" {
		t.Errorf("stdout %q", r.Stdout.Head)
	}
	r = call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": `echo "${GIT_PAGER-unset} ${EDITOR-unset}"`})
	if r.Stdout.Head != "unset unset\n" {
		t.Errorf("without tty: %q", r.Stdout.Head)
	}
	for _, c := range []struct {
		params map[string]any
		field  string
	}{
		{map[string]any{"command": "true", "tty": true, "cols": -1}, "cols"},
		{map[string]any{"command": "true", "rows": 30}, "rows"},
		{map[string]any{"command": "true", "cols": 30}, "cols"},
	} {
		e := callErr(t, svc.Exec, s, c.params)
		if e.Code != rpc.CodeInvalidParams || !strings.Contains(e.Message, c.field) {
			t.Errorf("%v: %v", c.params, e)
		}
	}
	// A resize of a process without a terminal is -32602 too.
	bg := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "sleep 30", "background": true})
	if e := callErr(t, svc.ProcessWrite, s, map[string]any{"id": *bg.Process, "cols": 100}); e.Code != rpc.CodeInvalidParams {
		t.Errorf("resize without a terminal: %v", e)
	}
}

// TestTerminalLimit: past protocol.MaxTerminals terminals a tty exec is
// -32602 naming tty, and the others go on.
func TestTerminalLimit(t *testing.T) {
	svc, s := newExecService(t, nil)
	for range protocol.MaxTerminals {
		call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "sleep 30", "tty": true, "background": true})
	}
	e := callErr(t, svc.Exec, s, map[string]any{"command": "sleep 30", "tty": true, "background": true})
	if e.Code != rpc.CodeInvalidParams || !strings.Contains(e.Message, "tty: too many terminals") {
		t.Errorf("past the limit: %v", e)
	}
	if r := call[protocol.ExecResult](t, svc.Exec, s, map[string]any{"command": "echo fine"}); r.Stdout.Head != "fine\n" {
		t.Errorf("a plain exec past the limit: %+v", r)
	}
}

// TestNeedsTerminal: the lines of programs that wanted a terminal are
// found; a warning only when the command failed; never on a terminal.
func TestNeedsTerminal(t *testing.T) {
	cases := []struct {
		out    string
		failed bool
		want   bool
	}{
		{"bash: line 1: /dev/tty: No such device or address\n", false, true},
		{"fatal: could not read Username for 'https://github.com': No such device or address\n", true, true},
		{"fatal: could not read Password for 'https://x@github.com': terminal prompts disabled\n", true, true},
		{"stty: 'standard input': Inappropriate ioctl for device\n", true, true},
		{"sudo: a terminal is required to read the password; either use the -S option\n", true, true},
		{"sudo: no tty present and no askpass program specified\n", true, true},
		{"the input device is not a TTY\n", true, true},
		{"Pseudo-terminal will not be allocated because stdin is not a terminal.\n", false, false},
		{"Pseudo-terminal will not be allocated because stdin is not a terminal.\n", true, true},
		{"Vim: Warning: Input is not from a terminal\n", true, true},
		{"mesg: ttyname failed: Inappropriate ioctl for device\n", false, true},
		{"all good\n", true, false},
		{"error: not found\n", true, false},
	}
	for _, c := range cases {
		s := protocol.Stream{Head: "first line\n" + c.out}
		got := needsTerminal(false, c.failed, &protocol.Stream{}, &s)
		if (got != "") != c.want || c.want && got != strings.TrimSpace(c.out) {
			t.Errorf("%q (failed %v): %q", c.out, c.failed, got)
		}
		if needsTerminal(true, c.failed, &s) != "" {
			t.Errorf("%q on a terminal: a notice", c.out)
		}
	}
}
