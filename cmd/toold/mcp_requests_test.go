package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/protocol"
)

// traced counts the daemon requests in a --rpc.trace log, the session's
// initialize left out (toold mcp sends it as the session starts, and again
// with the client's name and roots).
func traced(log string) int {
	b, _ := os.ReadFile(log)
	n := 0
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "msg=rpc method=") && !strings.Contains(l, "method=initialize ") {
			n++
		}
	}
	return n
}

// TestMCPOneDaemonRequest: each tools/call of toold mcp is one daemon
// request (counted with --rpc.trace), including the calls whose result is
// cut to toold mcp's budget (the daemon fits it, toold mcp only renders),
// a read of a large file (answered with its outline and first lines) and a
// read with ifChanged (the session saw exactly the lines it was shown).
func TestMCPOneDaemonRequest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "d.log")
	p := startMCPProc(t, nil, "counter", "--rpc.trace", "--logfile", log)
	// Error lines all through: highlight groups the budget cannot all hold.
	// awk writes them (a shell loop's 20,000 turns cost 0.2 CPU-seconds a
	// run, three runs).
	const noisy = `seq 1 20000 | awk '{print "line " $1} $1 % 97 == 0 {print "error: failure " $1 " in module m" $1}'`
	// 400 files of 150-byte names: 250 of them (toold mcp's limit) pass
	// the budget, which the daemon fits them to.
	tree := filepath.Join(dir, "tree")
	if err := os.Mkdir(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 400 {
		if err := os.WriteFile(filepath.Join(tree, fmt.Sprintf("%03d-%s", i, strings.Repeat("n", 146))), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Matches under a long path: grep -n's prefixes pass the budget that
	// the lines alone fit.
	deep := filepath.Join(dir, strings.Repeat("d", 200), strings.Repeat("e", 200))
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(deep, "f.txt"), []byte(strings.Repeat("match "+strings.Repeat("x", 90)+"\n", 2000)), 0o644); err != nil {
		t.Fatal(err)
	}
	// 8,000 short lines: their numbers pass the budget that the bytes fit.
	short := filepath.Join(dir, "short.txt")
	if err := os.WriteFile(short, []byte(strings.Repeat("x\n", 8000)), 0o644); err != nil {
		t.Fatal(err)
	}
	// A Go file over MCPOutlineBytes.
	var src strings.Builder
	src.WriteString("package big\n")
	for i := 0; src.Len() <= protocol.MCPOutlineBytes; i++ {
		fmt.Fprintf(&src, "\n// F%d does little.\nfunc F%d() int {\n\treturn %d\n}\n", i, i, i)
	}
	big := filepath.Join(dir, "big.go")
	if err := os.WriteFile(big, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	procRe := regexp.MustCompile(`^still running as process (\S+)`)
	spoolRe := regexp.MustCompile(`page spool=(\S+) `)
	var proc, spool string
	cases := []struct {
		name string
		tool string
		args func() map[string]any
		cut  bool // the result is cut to the budget
		want string
	}{
		{"exec, small", "exec", func() map[string]any { return map[string]any{"command": "echo hi"} }, false, "hi"},
		{"exec, over the budget", "exec", func() map[string]any { return map[string]any{"command": noisy} }, true, "error: failure"},
		{"page, over the budget", "page", func() map[string]any { return map[string]any{"spool": spool} }, false, "line 1\n"},
		{"page by bytes", "page", func() map[string]any { return map[string]any{"spool": spool, "startByte": 0} }, false, "line 1\n"},
		{"read, small", "read", func() map[string]any { return map[string]any{"path": filepath.Join(deep, "f.txt"), "limit": 3} }, false, "match x"},
		{"read, numbers over the budget", "read", func() map[string]any { return map[string]any{"path": short} }, false, "offset="},
		{"read again, ifChanged", "read", func() map[string]any { return map[string]any{"path": short, "ifChanged": true} }, false, "unchanged"},
		{"readBytes, numbers over the budget", "readBytes", func() map[string]any { return map[string]any{"path": short} }, false, "startByte="},
		{"read, a large file", "read", func() map[string]any { return map[string]any{"path": big} }, false, "above are its outline"},
		{"read, a large file's lines", "read", func() map[string]any { return map[string]any{"path": big, "offset": 1, "ifChanged": true} }, false, "F0"},
		{"exec in the background", "exec", func() map[string]any {
			return map[string]any{"command": noisy + "; sleep 0.2; " + noisy, "yieldMs": 50}
		}, false, "still running"},
		{"process_wait, over the budget", "process_wait", func() map[string]any { return map[string]any{"id": proc} }, true, "error: failure"},
		{"process_read", "process_read", func() map[string]any { return map[string]any{"id": proc} }, false, ""},
		{"find, over the budget", "find", func() map[string]any { return map[string]any{"path": tree, "pattern": "*"} }, false, "000-"},
		{"grep, over the budget", "grep", func() map[string]any {
			return map[string]any{"path": filepath.Join(deep, "f.txt"), "pattern": "match"}
		}, false, "match x"},
		{"ls, over the budget", "ls", func() map[string]any { return map[string]any{"path": tree} }, false, "000-"},
	}
	for _, tc := range cases {
		before := traced(log)
		var res toolResult
		p.mustCall("tools/call", map[string]any{"name": tc.tool, "arguments": tc.args()}, &res)
		if res.IsError || len(res.Content) != 1 {
			t.Fatalf("%s: isError %v, %d contents: %+v", tc.name, res.IsError, len(res.Content), res.Content)
		}
		text := res.Content[0].Text
		if m := procRe.FindStringSubmatch(text); m != nil && proc == "" {
			proc = m[1]
		}
		if m := spoolRe.FindStringSubmatch(text); m != nil && spool == "" {
			spool = m[1]
		}
		if !strings.Contains(text, tc.want) {
			t.Errorf("%s: no %q in:\n%.2000s", tc.name, tc.want, text)
		}
		if len(text) > protocol.MCPResultBytes || strings.Contains(text, "so that it reaches you whole") != tc.cut {
			t.Errorf("%s: %d bytes of text (cut expected: %v):\n%.2000s", tc.name, len(text), tc.cut, text)
		}
		if (tc.tool == "find" || tc.tool == "ls") && !strings.Contains(text, " limit reached (400 in all)") ||
			tc.tool == "grep" && !strings.Contains(text, " matches limit reached") {
			t.Errorf("%s: not cut to the budget:\n%.500s", tc.name, text)
		}
		// The reply is traced as it is sent: wait for it.

		testenv.WaitFor(t, 15*time.Second, tc.name+"'s trace", func() bool { return traced(log) > before })
		if n := traced(log) - before; n != 1 {
			b, _ := os.ReadFile(log)
			t.Errorf("%s: %d daemon requests, want 1:\n%s", tc.name, n, bytes.TrimSpace(b))
		}
	}
	if proc == "" {
		t.Fatal("no process was started")
	}
}
