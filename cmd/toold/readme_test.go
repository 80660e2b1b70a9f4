package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeDevServer runs the README's background-process example as it
// is written, beside the built binary.
func TestReadmeDevServer(t *testing.T) {
	for _, tool := range []string{"bash", "python3", "curl", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "A dev server, started")
	_, rest, ok2 := strings.Cut(rest, "```bash\n")
	script, _, ok3 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("the README has no dev server example")
	}
	dir := t.TempDir()
	if err := os.Symlink(binPath, filepath.Join(dir, "toold")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 4 || !strings.Contains(lines[0], `"reason":"pattern"`) ||
		!strings.Contains(lines[1], `GET / HTTP/1.1`) || !strings.Contains(lines[2], `"running":true`) ||
		!strings.Contains(lines[3], `"running":false`) {
		t.Fatalf("the example printed (%v):\n%s", err, out)
	}
}
