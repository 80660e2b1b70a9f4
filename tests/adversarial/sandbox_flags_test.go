package adversarial

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// TestSandboxBadFlagsStop: sandbox flags a daemon cannot honour stop it at
// start (exit 2, naming the flag), as --sandbox=bogus does, for serve on
// stdio and on a socket and for mcp, instead of failing every request
// with an error naming a param the client never sent. Each flag in each
// of the three commands.
func TestSandboxBadFlagsStop(t *testing.T) {
	// The quick run keeps TestSandboxWritableNotDropped instead.
	skipUnlessLong(t, "bad sandbox flags")
	t.Parallel() // daemons and files of its own: it waits beside the others
	missing := filepath.Join(t.TempDir(), "nonexist")
	file := filepath.Join(t.TempDir(), "file")
	write(t, file, "x")
	sock := filepath.Join(daemonPrivateDir(t), "s.sock")
	cmds := []struct {
		name string
		pre  []string
	}{{"serve", []string{"serve"}}, {"serve listen", []string{"serve", "--listen", sock}}, {"mcp", []string{"mcp"}}}
	for _, tc := range []struct {
		name string
		env  string
		args []string
		want string
	}{
		{"bogus mode", "", []string{"--sandbox=bogus"}, "--sandbox"},
		{"missing writable", "", []string{"--sandbox=workspace-write", "--writable", missing}, "--writable " + missing},
		{"writable file", "", []string{"--sandbox=workspace-write", "--writable", file}, "--writable " + file},
		{"unenforceable", "TOOLD_SANDBOX_ABI=0", []string{"--sandbox=workspace-write"}, "--sandbox-best-effort"},
		{"writable with read-only", "", []string{"--sandbox=read-only", "--writable", filepath.Dir(file)}, "--writable needs --sandbox=workspace-write"},
		{"writable with off", "", []string{"--sandbox=off", "--writable", filepath.Dir(file)}, "--writable needs --sandbox=workspace-write"},
	} {
		for _, cmd := range cmds {
			t.Run(tc.name+"/"+cmd.name, func(t *testing.T) {
				args := append(append(slices.Clone(cmd.pre), "--spool-root", filepath.Join(t.TempDir(), "spool")), tc.args...)
				p := daemonStart(t, 0, args...)
				p.cmd.Env = append(os.Environ(), tc.env)
				in, _ := p.cmd.StdinPipe() // open: a daemon that starts waits
				defer in.Close()
				p.run(t)
				if code := p.wait(testenv.Loaded(10 * time.Second)); code != 2 || !strings.Contains(p.stderr.String(), tc.want) {
					t.Errorf("toold %v: exit %d, want 2 naming %q; stderr %q", args, code, tc.want, p.stderr.String())
				}
			})
		}
	}
	// With --sandbox-best-effort the poorer kernel's daemon starts and
	// serves reads.
	w := newSandboxWorld(t)
	p := daemonStart(t, 0, "serve", "--spool-root", filepath.Join(t.TempDir(), "spool"), "--sandbox=workspace-write", "--sandbox-best-effort")
	p.cmd.Env = append(os.Environ(), "TOOLD_SANDBOX_ABI=0")
	in, _ := p.cmd.StdinPipe()
	out := p.stdout(t)
	p.run(t)
	c := newRawClient(t, in, out)
	sandboxCall(t, c, 1, "read", map[string]any{"path": filepath.Join(w.proj, "README")}, nil)
}
