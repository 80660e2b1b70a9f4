package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// Flags that only a daemon's start takes, given to a client of a daemon
// that runs already, are named in a warning with the running daemon's
// values, in every command that reaches the shared daemon; values that
// agree with it, or no such flags, warn of nothing. status says what the
// daemon was started with.
func TestDaemonFlagsOfARunningDaemon(t *testing.T) {
	t.Parallel()
	runtime := t.TempDir()
	env := []string{"TOOLD_RUNTIME_DIR=" + runtime}
	if _, e, code := runBin(t, "", env, "call", "--remote=auto", "--idle-timeout=10m", "stats"); code != 0 || e != "" {
		t.Fatalf("starting the daemon: %d %q", code, e)
	}
	t.Cleanup(func() { stopShared(t, runtime) })
	request := `{"jsonrpc":"2.0","id":1,"method":"stats"}` + "\n"
	mcpInit := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		warn  string // "" for none
	}{
		{"call", "", []string{"call", "--remote=auto", "--index=off", "--idle-timeout=5s", "stats"},
			`flags="--idle-timeout=5s --index=off" daemon="--idle-timeout=10m0s --index=on"`},
		{"call, as running", "", []string{"call", "--remote=auto", "--index=on", "--idle-timeout=10m", "stats"}, ""},
		{"call, none", "", []string{"call", "--remote=auto", "stats"}, ""},
		{"call, in process", "", []string{"call", "--index=off", "--spool-root", t.TempDir(), "stats"}, ""},
		{"forwarder", request, []string{"--remote=auto", "--spool-session-quota=1000", "--max-conns=7"},
			`flags="--spool-session-quota=1000 --max-conns=7" daemon="--spool-session-quota=1073741824 --max-conns=`},
		{"mcp", mcpInit, []string{"mcp", "--remote=auto", "--index-quota=5000"},
			`flags="--index-quota=5000" daemon="--index-quota=2147483648"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(binPath, tc.args...)
			cmd.Env = append(os.Environ(), env...)
			cmd.Stdin = strings.NewReader(tc.stdin)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil && tc.name != "mcp" { // mcp: the input ends before its reply
				t.Fatalf("%v: %v\n%s", tc.args, err, stderr.String())
			}
			got := stderr.String()
			switch {
			case tc.warn == "" && strings.Contains(got, "level=WARN"):
				t.Errorf("a warning for nothing:\n%s", got)
			case tc.warn != "" && (!strings.Contains(got, "these flags do not apply: the shared daemon runs already") || !strings.Contains(got, tc.warn)):
				t.Errorf("stderr lacks %q:\n%s", tc.warn, got)
			}
		})
	}
	out, _, _ := runBin(t, "", env, "status")
	if !strings.Contains(out, "  flags     --idle-timeout=10m0s --index=on --index-quota=2147483648 --spool-root=") {
		t.Errorf("status:\n%s", out)
	}
	// status --json's daemon settings: in the quick run its query made in
	// this process (TestStatusStop has the binary print --json), a start
	// of the -race binary saved.
	var st daemonState
	if testenv.Long() {
		out, _, _ = runBin(t, "", env, "status", "--json")
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Errorf("status --json: %v: %s", err, out)
		}
	} else {
		socks, _ := filepath.Glob(filepath.Join(runtime, "toold-"+strconv.Itoa(os.Geteuid()), "toold-*.sock"))
		if len(socks) != 1 {
			t.Fatalf("sockets %v, want one", socks)
		}
		q, err := queryDaemon(socks[0])
		if err != nil {
			t.Fatal(err)
		}
		st = *q
		b, _ := json.Marshal(st)
		out = string(b)
	}
	if st.Daemon.IdleTimeoutMs != 600000 || st.Daemon.Index != "on" {
		t.Errorf("status --json: %s", out)
	}
}
