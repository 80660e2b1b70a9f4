//go:build linux

package adversarial

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// ctagsWorld is a root with a Python file, and outside it a Python file
// whose one function is a secret, named in a file list a ctags option
// (-L) can read.
type ctagsWorld struct {
	root, secret, list string
}

func newCtagsWorld(t *testing.T) ctagsWorld {
	t.Helper()
	if _, err := exec.LookPath("ctags"); err != nil {
		t.Skip("needs Universal Ctags")
	}
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := ctagsWorld{root: filepath.Join(base, "root"), secret: filepath.Join(base, "outside", "secret.py"), list: filepath.Join(base, "list")}
	write(t, filepath.Join(w.root, "a.py"), "def inside_function():\n    pass\n")
	write(t, w.secret, "def SECRET_FUNCTION():\n    pass\n")
	write(t, w.list, w.secret+"\n")
	return w
}

// outlineOf reads path's outline and returns the reply's text.
func outlineOf(t *testing.T, c *rawClient, id int, path string) string {
	t.Helper()
	m := c.call(id, "read", map[string]any{"path": path, "outline": true}, 30*time.Second)
	if m.Error != nil {
		return fmt.Sprintf("error %d: %s", m.Error.Code, m.Error.Message)
	}
	return string(m.Result)
}

// TestCtagsOptionFiles: option files where ctags looks for them (.ctags.d
// in the daemon's cwd, in $HOME, $CTAGS) cannot make it read a file
// outside the roots into an outline (an -L there listed
// the secret, and its tags were shown).
func TestCtagsOptionFiles(t *testing.T) {
	// The quick run keeps TestCtagsPlantedOnPath instead.
	skipUnlessLong(t, "ctags option files planted in the project")
	t.Parallel() // daemons and files of its own: it waits beside the others
	w := newCtagsWorld(t)
	for _, tc := range []struct {
		name string
		env  func(dir string) []string // given a dir holding .ctags.d
		cwd  bool                      // the daemon runs in that dir
	}{
		{"cwd .ctags.d", nil, true},
		{"HOME .ctags.d", func(dir string) []string { return []string{"HOME=" + dir} }, false},
		{"CTAGS", func(string) []string { return []string{"CTAGS=-L" + w.list} }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			write(t, filepath.Join(dir, ".ctags.d", "a.ctags"), "-L"+w.list+"\n")
			p := daemonStart(t, 0, "serve", "--spool-root", filepath.Join(t.TempDir(), "spool"))
			if tc.cwd {
				p.cmd.Dir = dir
			}
			if tc.env != nil {
				p.cmd.Env = append(os.Environ(), tc.env(dir)...)
			}
			in, _ := p.cmd.StdinPipe()
			out := p.stdout(t)
			p.run(t)
			c := newRawClient(t, in, out)
			sandboxCall(t, c, 1, "initialize", map[string]any{"cwd": w.root, "roots": []string{w.root}}, nil)
			got := outlineOf(t, c, 2, filepath.Join(w.root, "a.py"))
			if strings.Contains(got, "SECRET") {
				t.Errorf("the outline shows a file outside the roots: %s", got)
			}
			if !strings.Contains(got, `"format":"ctags"`) || !strings.Contains(got, "inside_function") {
				t.Errorf("no ctags outline of the file: %s", got)
			}
		})
	}
}

// TestCtagsSwap: the file outlined is swapped for a symlink to a file
// outside the roots and back, again and again, while it is outlined; no
// outline shows the outside file (ctags was given the
// path, and the check after it saw the file swapped back). 5000 outlines,
// a ctags process each, with the swaps beside them.
func TestCtagsSwap(t *testing.T) {
	// The quick run keeps TestCtagsPlantedOnPath instead.
	skipUnlessLong(t, "ctags swapped between outlines")
	t.Parallel() // daemons and files of its own: it waits beside the others
	w := newCtagsWorld(t)
	symlink(t, w.secret, filepath.Join(w.root, "l.py"))
	_, c := daemonStdio(t)
	sandboxCall(t, c, 1, "initialize", map[string]any{"cwd": w.root, "roots": []string{w.root}}, nil)
	const reads = 5000
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		a, b := filepath.Join(w.root, "a.py"), filepath.Join(w.root, "l.py")
		for {
			select {
			case <-stop:
				return
			default:
			}
			if err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("renameat2: %v", err)
				return
			}
			time.Sleep(200 * time.Microsecond) // about a ctags run's time at each end
		}
	}()
	inside, escapes := 0, 0
	for i := range reads {
		got := outlineOf(t, c, 2+i, "a.py")
		switch {
		case strings.Contains(got, "SECRET"):
			escapes++
		case strings.Contains(got, "inside_function"):
			inside++
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d outlines: %d inside, %d escapes", reads, inside, escapes)
	if escapes > 0 {
		t.Errorf("%d of %d outlines showed the file outside the roots", escapes, reads)
	}
	if inside == 0 {
		t.Error("no outline of the file inside: the case tests nothing")
	}
}

// TestCtagsPlantedOnPath: a sandboxed command puts a ctags of its own in a
// directory of the daemon's PATH that it may write (its workspace), then
// asks for an outline: the daemon runs the ctags PATH named when it
// started, never the planted one, which would run outside the sandbox
// (it looked ctags up at the first outline).
func TestCtagsPlantedOnPath(t *testing.T) {
	t.Parallel() // daemons and files of its own: it waits beside the others
	w := newSandboxWorld(t)
	write(t, filepath.Join(w.proj, "a.py"), "def f():\n    pass\n")
	bin := filepath.Join(w.proj, "bin")
	marker := filepath.Join(w.out, "ran-outside")
	_, c := daemonStdioEnv(t, []string{"PATH=" + bin + ":" + os.Getenv("PATH")})
	sandboxInit(t, c, 1, w, "workspace-write")
	plant := fmt.Sprintf("mkdir -p %[1]q && printf '#!/bin/sh\\ntouch %[2]s\\nexec /usr/bin/env -u PATH ctags \"$@\"\\n' > %[1]q/ctags && chmod +x %[1]q/ctags && echo planted", bin, marker)
	if r := sandboxExec(t, c, 2, w, plant); !strings.Contains(r.output(), "planted") {
		t.Fatalf("planting: %q", r.output())
	}
	outlineOf(t, c, 3, filepath.Join(w.proj, "a.py"))
	if _, err := os.Stat(marker); err == nil {
		t.Error("the daemon ran the ctags a sandboxed command planted on its PATH, unconfined")
	}
}
