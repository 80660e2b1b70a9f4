package adversarial

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// TestSessionDirsLockedOut: a session's TMPDIR and spool directory go at
// session/close whatever modes its commands left on the directories in
// them (a chmod 000 directory kept a sandboxed session's TMPDIR
// for good). As root the modes deny nothing: TestLockedOutAsNobody runs
// it as uid 65534.
func TestSessionDirsLockedOut(t *testing.T) {
	// The quick run keeps TestSpoolDirRemoved and TestSpoolQuotas instead.
	skipUnlessLong(t, "session dirs locked out")
	t.Parallel() // daemons and files of its own: it waits beside the others
	w := newSandboxWorld(t)
	for _, tc := range []struct {
		name    string
		sandbox bool
		dir     func(spoolDir, tmpDir string) string
	}{
		{"sandboxed TMPDIR", true, func(_, tmp string) string { return tmp }},
		{"spool dir", false, func(spool, _ string) string { return spool }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, c := daemonStdio(t)
			params := map[string]any{"cwd": w.proj, "roots": []string{w.proj}}
			if tc.sandbox {
				params["sandbox"] = map[string]any{"mode": "workspace-write"}
			}
			var res struct {
				SpoolDir string
				Sandbox  *struct{ TmpDir string }
			}
			sandboxCall(t, c, 1, "initialize", params, &res)
			tmp := ""
			if res.Sandbox != nil {
				tmp = res.Sandbox.TmpDir
			}
			dir := tc.dir(res.SpoolDir, tmp)
			if dir == "" {
				t.Fatalf("no directory: %+v", res)
			}
			cmd := fmt.Sprintf("mkdir -p %[1]q/a/b/c && touch %[1]q/a/b/f && chmod 000 %[1]q/a/b/c && chmod 500 %[1]q/a/b && chmod 000 %[1]q/a && echo done", dir)
			if r := sandboxExec(t, c, 2, w, cmd); r.Stdout.Head != "done\n" {
				t.Fatalf("locking out: %q", r.output())
			}
			sandboxCall(t, c, 3, "session/close", nil, nil)
			var err error
			if !testenv.Until(10*time.Second, func() bool { _, err = os.Lstat(dir); return os.IsNotExist(err) }) {
				t.Fatalf("%s after session/close: %v", dir, err)
			}
		})
	}
}

// TestBoundsAsNobody runs the locked-out and swapped-spool cases whose outcome could depend on
// privilege again as uid 65534: TestSessionDirsLockedOut (the modes deny
// that user, not root), the spools swapped (the spool dir's modes), the
// option files of ctags and its sandbox (seccomp without privilege): the
// session dirs, the spools swapped under a background command and as
// evidence, ctags planted on PATH and its option files.
func TestBoundsAsNobody(t *testing.T) {
	// The quick run keeps TestSandboxAsNobody as uid 65534 instead.
	skipUnlessLong(t, "the locked-out and swapped-spool cases as uid 65534")
	t.Parallel() // daemons and files of its own: it waits beside the others
	cases := []string{"TestSessionDirsLockedOut", "TestSpoolSwappedBackground", "TestCtagsPlantedOnPath",
		"TestSpoolSwappedEvidence", "TestCtagsOptionFiles"}
	out, err := testenv.AsNobody(t, "^("+strings.Join(cases, "|")+")$", func(dir string) []string {
		return []string{"TOOLD_ADVERSARIAL_BIN=" + filepath.Join(dir, filepath.Base(daemonBinary(t)))}
	}, daemonBinary(t))
	for _, c := range cases {
		if !regexp.MustCompile(`--- PASS: ` + c + `\b`).MatchString(out) {
			t.Errorf("as uid 65534, %s did not pass", c)
		}
	}
	if err != nil || t.Failed() {
		t.Fatalf("as uid 65534: %v\n%s", err, daemonTail(out, 6000))
	}
}
