package adversarial

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSandboxStartFailure: in a sandbox, an argv whose program is missing
// or not executable is -32005 with data.path, as it is unsandboxed (not
// the launcher's exit 127 or 126); a command (bash -c) keeps bash's 127.
// Each twice: the first starts its launcher cold, the next takes one
// started ahead. On every transport.
func TestSandboxStartFailure(t *testing.T) {
	// The quick run keeps TestSandboxWritableNotDropped instead.
	skipUnlessLong(t, "sandbox start failures")
	t.Parallel() // daemons and files of its own: it waits beside the others
	transports, _ := sandboxTransports(t)
	for name, open := range transports {
		t.Run(name, func(t *testing.T) {
			w := newSandboxWorld(t)
			write(t, filepath.Join(w.proj, "noexec"), "#!/bin/sh\necho hi\n")
			write(t, filepath.Join(w.proj, "run.sh"), "#!/bin/sh\necho ran\n")
			os.Chmod(filepath.Join(w.proj, "run.sh"), 0o755)
			c := open(t)
			sandboxInit(t, c, 1, w, "workspace-write")
			id := 10
			for range 2 {
				for _, prog := range []string{"/nonexistent/bin", "./noexec", w.proj, "no-such-program-xyz"} {
					id++
					m := c.call(id, "exec", map[string]any{"argv": []string{prog}, "cwd": w.proj}, 30*time.Second)
					if m.Error == nil || m.Error.Code != -32005 || !strings.Contains(string(m.Error.Data), `"path":"`+prog+`"`) {
						t.Errorf("argv [%s]: want -32005 with data.path, got %+v %s", prog, m.Error, m.Result)
					}
				}
				id++
				var r sandboxResult
				sandboxCall(t, c, id, "exec", map[string]any{"argv": []string{"./run.sh"}, "cwd": w.proj}, &r)
				if r.ExitCode == nil || *r.ExitCode != 0 || r.Stdout.Head != "ran\n" {
					t.Errorf("argv [./run.sh]: exit %s %q", deref2(r.ExitCode), r.output())
				}
				id++
				r = sandboxExec(t, c, id, w, "/nonexistent/bin")
				if r.ExitCode == nil || *r.ExitCode != 127 {
					t.Errorf("command /nonexistent/bin: exit %s %q, want bash's 127", deref2(r.ExitCode), r.output())
				}
			}
		})
	}
}
