package adversarial

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestIgnoreFilesFIFO: a .gitignore, .ignore or .git/info/exclude that is
// a FIFO in a directory above the one searched (a command can make one
// any time) neither hangs grep, find nor ls: they were opened by path
// without O_NONBLOCK, and the open waited for a writer for good.
func TestIgnoreFilesFIFO(t *testing.T) {
	// The quick run keeps TestSpecialFiles instead.
	skipUnlessLong(t, "ignore files that are FIFOs")
	t.Parallel() // daemons and files of its own: it waits beside the others
	for _, name := range []string{".gitignore", ".ignore", ".git/info/exclude"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			write(t, filepath.Join(root, "sub", "f.txt"), "needle\n")
			os.MkdirAll(filepath.Join(root, ".git", "info"), 0o755)
			if err := syscall.Mkfifo(filepath.Join(root, name), 0o600); err != nil {
				t.Fatal(err)
			}
			_, c := daemonStdio(t)
			sandboxCall(t, c, 1, "initialize", map[string]any{"cwd": root, "roots": []string{root}}, nil)
			for i, call := range []struct {
				method string
				params map[string]any
			}{
				{"grep", map[string]any{"pattern": "needle", "path": filepath.Join(root, "sub")}},
				{"find", map[string]any{"pattern": "*.txt", "path": filepath.Join(root, "sub")}},
				{"ls", map[string]any{"path": filepath.Join(root, "sub")}},
			} {
				m := c.call(2+i, call.method, call.params, 10*time.Second)
				if m.Error != nil {
					t.Errorf("%s: %+v", call.method, m.Error)
				}
			}
		})
	}
}
