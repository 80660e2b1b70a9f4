package adversarial

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Exec abuse: commands must run as they would in a shell, and what they
// do must not outlive their exec or their daemon.

// daemonExec runs command on c and returns the result's stdout head,
// stderr head and exit code.
// sigStatus prints the process's blocked and ignored signal masks.
const sigStatus = `grep -E '^Sig(Ign|Blk):' /proc/self/status`

// shellSignals is what sigStatus prints in a shell this test starts: the
// masks a command of toold's must have. Nothing blocked, and nothing ignored
// unless the test was itself started with signals ignored (nohup).
func shellSignals(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("bash", "-c", sigStatus).Output()
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	if !strings.HasPrefix(string(out), "SigBlk:\t0000000000000000\n") {
		t.Fatalf("the test's own shell starts with signals blocked: %q", out)
	}
	return string(out)
}

func daemonExec(t *testing.T, c *rawClient, id int, params map[string]any) (stdout, stderr string, code *int) {
	t.Helper()
	m := c.call(id, "exec", params, 30*time.Second)
	if m.Error != nil {
		t.Fatalf("exec %v: %+v", params, m.Error)
	}
	var res struct {
		ExitCode *int
		Stdout   struct{ Head string }
		Stderr   struct{ Head string }
	}
	if err := json.Unmarshal(m.Result, &res); err != nil {
		t.Fatal(err)
	}
	return res.Stdout.Head, res.Stderr.Head, res.ExitCode
}

// TestDaemonExecSignals: commands start with the signal
// dispositions a shell gives them: SIGPIPE at its default, so `yes | head
// -c1` ends quietly with yes killed by SIGPIPE (141), nothing ignored or
// blocked. The original ignored SIGPIPE in the daemon, and commands
// inherited it: "yes: standard output: Broken pipe". Nothing ignored means
// nothing a shell the test starts itself does not ignore: under nohup both
// inherit SIGHUP ignored, which no process may undo for a shell.
func TestDaemonExecSignals(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	cases := []struct {
		name, command, stdout, stderr string
	}{
		{"yes | head", `yes | head -c1; echo " ${PIPESTATUS[*]}"`, "y 141 0\n", ""},
		{"nothing ignored", sigStatus, shellSignals(t), ""},
		{"seq | head, in a pipeline with pipefail", `set -o pipefail; seq 1000000 | head -n1; echo $?`, "1\n141\n", ""},
		{"a loop writing to a closed pipe", `(sleep 0.1; for i in $(seq 1000); do echo x; done) | true; echo ${PIPESTATUS[0]}`, "141\n", ""},
	}
	// The quick run keeps a daemon the test starts (stdio) and one that a
	// forwarder starts (forwarded: it inherits the forwarder's
	// dispositions); TOOLD_LONG=1 adds a shared daemon the test starts
	// (socket), whose dispositions are stdio's.
	_, stdio := daemonStdio(t)
	_, forwarded := daemonForwarded(t)
	clients := map[string]*rawClient{"stdio": stdio, "forwarded": forwarded}
	if long() {
		_, sock := daemonShared(t, 0)
		clients["socket"] = daemonServed(t, sock)
	}
	for mode, c := range clients {
		for i, tc := range cases {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				out, errOut, _ := daemonExec(t, c, 100+i, map[string]any{"command": tc.command})
				if out != tc.stdout || errOut != tc.stderr {
					t.Errorf("stdout %q, stderr %q; want %q, %q", out, errOut, tc.stdout, tc.stderr)
				}
			})
		}
	}
}

// TestDaemonEscapedDescendants: children that leave the
// command's process group (setsid, set -m, a double fork) are ended with
// their exec, whether it exits, times out or is cancelled: the daemon is
// their subreaper and finds them by the marker in their environment. The
// original left them running forever.
func TestDaemonEscapedDescendants(t *testing.T) {
	// The quick run keeps TestDaemonExecSignals instead.
	skipUnlessLong(t, "descendants that leave their process group")
	t.Parallel() // daemons and files of its own: it waits beside the others
	// %s is the sleep's marker; the escaped process touches %f once it runs,
	// and the command waits for that (%w) so that it has escaped by the end.
	const wait = `while [ ! -e %f ]; do sleep 0.01; done`
	cases := []struct {
		name, command string
		params        map[string]any
	}{
		{"setsid, the exec exits", "setsid sh -c 'touch %f; exec sleep %s' & %w; echo started", nil},
		{"set -m, the exec exits", "set -m; sh -c 'touch %f; exec sleep %s' & %w; echo started", nil},
		{"double fork under setsid", "setsid sh -c '(touch %f; exec sleep %s) & sleep %s' & %w; echo started", nil},
		{"setsid, the exec times out", "setsid sh -c 'touch %f; exec sleep %s' & %w; sleep 30", map[string]any{"timeoutMs": 1000}},
		{"escaped and holding stdout", "setsid sh -c 'touch %f; exec sleep %s' & %w; sleep 0.1", nil},
	}
	_, c := daemonStdio(t)
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			marker := daemonMarker()
			t.Cleanup(func() {
				for _, pid := range daemonPidsOf(marker) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			ready := filepath.Join(t.TempDir(), "ready")
			command := strings.NewReplacer("%w", wait).Replace(tc.command)
			command = strings.NewReplacer("%s", marker, "%f", ready).Replace(command)
			params := map[string]any{"command": command}
			maps.Copy(params, tc.params)
			start := time.Now()
			daemonExec(t, c, i+1, params)
			if _, err := os.Stat(ready); err != nil {
				t.Fatalf("the escaped process never ran: %v", err)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("the exec answered after %v", d)
			}
			if left := waitGone(marker, 5*time.Second); len(left) > 0 {
				for _, pid := range left {
					st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
					env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
					t.Logf("%d: %s\nmarker in env: %v", pid, st, strings.Contains(string(env), "TOOLD_EXEC="))
				}
				t.Errorf("processes %v that left the group outlive their exec", left)
			}
		})
	}
}
