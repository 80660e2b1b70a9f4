package adversarial

import (
	"encoding/json"
	"testing"
	"time"
)

// Exec abuse: commands must run as they would in a shell, and what they
// do must not outlive their exec or their daemon.

// daemonExec runs command on c and returns the result's stdout head,
// stderr head and exit code.
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

// TestDaemonExecSignals: issue 8 item 5. Commands start with the signal
// dispositions a shell gives them: SIGPIPE at its default, so `yes | head
// -c1` ends quietly with yes killed by SIGPIPE (141), nothing ignored or
// blocked. The original ignored SIGPIPE in the daemon, and commands
// inherited it: "yes: standard output: Broken pipe".
func TestDaemonExecSignals(t *testing.T) {
	cases := []struct {
		name, command, stdout, stderr string
	}{
		{"yes | head", `yes | head -c1; echo " ${PIPESTATUS[*]}"`, "y 141 0\n", ""},
		{"nothing ignored", `grep -E '^Sig(Ign|Blk):' /proc/self/status`, "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n", ""},
		{"seq | head, in a pipeline with pipefail", `set -o pipefail; seq 1000000 | head -n1; echo $?`, "1\n141\n", ""},
		{"a loop writing to a closed pipe", `(sleep 0.1; for i in $(seq 1000); do echo x; done) | true; echo ${PIPESTATUS[0]}`, "141\n", ""},
	}
	_, stdio := daemonStdio(t)
	_, sock := daemonShared(t, 0)
	_, forwarded := daemonForwarded(t)
	clients := map[string]*rawClient{"stdio": stdio, "socket": daemonServed(t, sock), "forwarded": forwarded}
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
