package adversarial

// Terminals: a daemon must not take one for its controlling terminal, and
// a user at one must be able to stop it (issue 27, item 11).

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// daemonSessionLeader starts `toold serve` on stdio as the shared daemon
// runs: the leader of a session of its own (setsid), with no controlling
// terminal.
func daemonSessionLeader(t *testing.T) (*daemonProc, *rawClient) {
	t.Helper()
	p := daemonStart(t, 0, "serve", "--spool-root", filepath.Join(t.TempDir(), "spool"))
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := p.stdout(t)
	p.run(t)
	return p, newRawClient(t, in, out)
}

// TestTerminalNotControlling: the next of item 9's class, a special file
// opened by path. A read of a terminal (a pty's slave, by its /dev/pts
// path, or a symlink to it in a tree) was opened without O_NOCTTY: the
// daemon, a session leader without a controlling terminal, took it for
// its own, and when the terminal hung up the kernel sent it SIGHUP, which
// ended it and every session it served. Now it is refused as not a
// regular file and the daemon lives on.
func TestTerminalNotControlling(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	for _, via := range []string{"path", "symlink"} {
		t.Run(via, func(t *testing.T) {
			t.Parallel()
			p, c := daemonSessionLeader(t)
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Skip("no pseudo-terminal:", err)
			}
			path := tty.Name()
			tty.Close()
			if via == "symlink" {
				path = filepath.Join(t.TempDir(), "tty")
				if err := os.Symlink(tty.Name(), path); err != nil {
					t.Fatal(err)
				}
			}
			if m := c.call(1, "read", map[string]any{"path": path}, 10*time.Second); m.Error == nil {
				t.Errorf("a terminal read as a file: %s", m.Result)
			}
			ptmx.Close() // the terminal hangs up
			if code := p.wait(500 * time.Millisecond); code >= 0 {
				t.Fatalf("the daemon ended (status %d) when the terminal it read hung up", code)
			}
			if m := c.call(2, "stats", map[string]any{}, 10*time.Second); m.Error != nil {
				t.Fatalf("stats: %s", m.Error.Message)
			}
		})
	}
}
