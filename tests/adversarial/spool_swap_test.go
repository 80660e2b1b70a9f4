package adversarial

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// spoolPlants are the ways a command puts something else where its own
// spool file was, given the spool's path and the outside file's; each
// keeps the spool itself (renamed), which the daemon goes on writing.
var spoolPlants = []struct {
	name  string
	plant func(sp, outside string) string
}{
	{"symlink", func(sp, outside string) string {
		return fmt.Sprintf("mv %[1]q %[1]q.old && ln -s %[2]q %[1]q", sp, outside)
	}},
	{"fifo", func(sp, _ string) string { return fmt.Sprintf("mv %[1]q %[1]q.old && mkfifo %[1]q", sp) }},
	{"another file", func(sp, outside string) string {
		return fmt.Sprintf("mv %[1]q %[1]q.old && cp %[2]q %[1]q", sp, outside)
	}},
}

// plantAll is a shell loop that waits for a stdout spool in dir (the
// daemon makes it once it has read enough output) and plants over each.
func plantAll(dir, outside string, plant func(sp, outside string) string) string {
	return fmt.Sprintf("until ls %[1]s/*.stdout.log >/dev/null 2>&1; do sleep 0.01; done; for f in %[1]s/*.stdout.log; do %[2]s; done",
		dir, plant("$f", outside))
}

// spoolSecret writes the outside file: lines that say SECRET, as many as
// the spool's, so that a read of any line range of it shows them.
func spoolSecret(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secret.txt")
	var b strings.Builder
	for i := range 60000 {
		fmt.Fprintf(&b, "SECRET %d\n", i)
	}
	write(t, path, b.String())
	return path
}

// spoolSession starts a daemon on stdio and a session; it returns the
// client and the session's spool directory.
func spoolSession(t *testing.T) (*rawClient, string) {
	t.Helper()
	_, c := daemonStdio(t)
	var res struct{ SpoolDir string }
	sandboxCall(t, c, 1, "initialize", map[string]any{"cwd": t.TempDir()}, &res)
	if res.SpoolDir == "" {
		t.Fatal("no spool directory")
	}
	return c, res.SpoolDir
}

// TestSpoolSwappedBackground: a background command swaps its own spool for
// a symlink to an outside file, a FIFO or another file; process/read and
// process/wait neither show what was planted nor hang (before, they
// opened the spool by path, following the link and blocking on the
// FIFO). What the command printed before and after stays the daemon's.
func TestSpoolSwappedBackground(t *testing.T) {
	// The quick run keeps TestSpoolDirRemoved and TestSpoolQuotas instead.
	skipUnlessLong(t, "spools swapped under a background command")
	t.Parallel() // daemons and files of its own: it waits beside the others
	outside := spoolSecret(t)
	for _, p := range spoolPlants {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			c, dir := spoolSession(t)
			cmd := fmt.Sprintf("echo before; %s; echo planted; sleep 30", plantAll(dir, outside, p.plant))
			var started struct{ Process *string }
			sandboxCall(t, c, 2, "exec", map[string]any{"command": cmd, "background": true}, &started)
			if started.Process == nil {
				t.Fatalf("no process: %+v", started)
			}
			id := *started.Process
			waitPlanted(t, dir)
			for i, call := range []struct {
				method string
				params map[string]any
			}{
				{"process/read", map[string]any{"id": id, "since": "0:0"}},
				{"process/wait", map[string]any{"id": id, "until": map[string]any{"pattern": "SECRET"}, "timeoutMs": 1000}},
				{"process/read", map[string]any{"id": id, "since": "0:0"}},
			} {
				m := c.call(10+i, call.method, call.params, 10*time.Second) // a FIFO hung it for good
				if got := string(m.Result); strings.Contains(got, "SECRET") || m.Error != nil && strings.Contains(m.Error.Message, "SECRET") {
					t.Errorf("%s showed the planted file: %s %+v", call.method, got, m.Error)
				}
				if m.Error != nil && m.Error.Code != codeAccessDenied {
					t.Errorf("%s: want a result or -32002, got %+v", call.method, m.Error)
				}
				var r struct{ Reason string }
				json.Unmarshal(m.Result, &r)
				if r.Reason == "pattern" {
					t.Errorf("%s matched the planted file: %s", call.method, m.Result)
				}
			}
			c.call(20, "process/kill", map[string]any{"id": id}, 10*time.Second)
		})
	}
}

// waitPlanted waits until a plant is in place in dir (a .old beside it).
func waitPlanted(t *testing.T, dir string) {
	t.Helper()
	testenv.WaitFor(t, 10*time.Second, "the command's plant", func() bool {
		old, _ := filepath.Glob(filepath.Join(dir, "*.old"))
		return len(old) > 0
	})
}

// TestSpoolSwappedEvidence: a command whose failed go test's log lines
// have left the detector's memory swaps its spool before it exits; exec
// reads that evidence back from the spool, and must not read the planted
// file instead (exec's evidence was read by path).
func TestSpoolSwappedEvidence(t *testing.T) {
	// The quick run keeps TestSpoolDirRemoved and TestSpoolQuotas instead.
	skipUnlessLong(t, "spools swapped as evidence")
	t.Parallel() // daemons and files of its own: it waits beside the others
	outside := spoolSecret(t)
	for _, p := range spoolPlants {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			c, dir := spoolSession(t)
			// TestA's log lines in the omitted middle, its verdict 50,000
			// lines later.
			cmd := fmt.Sprintf("seq 1 5000; printf '=== RUN   TestA\\n    a_test.go:1: boom\\n    a_test.go:2: more\\n=== RUN   TestB\\n'; seq 1 50000; echo '--- FAIL: TestA (0.00s)'; echo FAIL; %s; exit 1",
				plantAll(dir, outside, p.plant))
			m := c.call(2, "exec", map[string]any{"command": cmd}, 10*time.Second)
			if m.Error != nil {
				t.Fatalf("exec: %+v", m.Error)
			}
			if strings.Contains(string(m.Result), "SECRET") {
				t.Errorf("exec showed the planted file: %s", m.Result)
			}
			if old, _ := filepath.Glob(filepath.Join(dir, "*.old")); len(old) == 0 {
				t.Errorf("the command planted nothing: %s", m.Result)
			}
		})
	}
}
