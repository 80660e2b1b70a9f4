package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toold/toold/internal/testenv"
)

// TestReadmeDevServer runs the README's background-process example as it
// is written, beside the built binary.
func TestReadmeDevServer(t *testing.T) {
	t.Parallel()
	// The quick run runs the README's methods examples (TestReadmeExamples).
	testenv.SkipUnlessLong(t, "a README example beside TestReadmeExamples")
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
	// The README shows what the example prints on stdout; the daemon's log
	// (stderr) may hold lines of its own, such as the sweep of a crashed
	// daemon's spools, which are not the example's.
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 4 || !strings.Contains(lines[0], `"reason":"pattern"`) ||
		!strings.Contains(lines[1], `GET / HTTP/1.1`) || !strings.Contains(lines[2], `"running":true`) ||
		!strings.Contains(lines[3], `"running":false`) {
		t.Fatalf("the example printed (%v):\n%s\nstderr:\n%s", err, out, stderr.Bytes())
	}
}

// TestReadmeSearchExamples runs the README's `./toold call` examples of
// grep, find and ls from the repository's root, as a reader would, and
// checks the counts and notice the README shows after each.
func TestReadmeSearchExamples(t *testing.T) {
	t.Parallel()
	// The quick run runs the README's methods examples (TestReadmeExamples).
	testenv.SkipUnlessLong(t, "a README example beside TestReadmeExamples")
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	call := regexp.MustCompile(`^\./toold call (grep|find|ls) '([^']*)'$`)
	facts := regexp.MustCompile(`"(total|totalMatches|limitReached|notice)":("[^"]*"|null|true|false|\d+)`)
	lines := strings.Split(string(readme), "\n")
	n := 0
	for i, line := range lines {
		m := call.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n++
		var shown strings.Builder // the README's reply: the lines after the call
		for _, l := range lines[i+1:] {
			if strings.HasPrefix(l, "```") {
				continue // the call's sh block ends, its reply's text block begins
			}
			if !strings.HasPrefix(l, "→") && !strings.HasPrefix(l, "  ") {
				break
			}
			shown.WriteString(l)
		}
		cmd := exec.Command(binPath, "call", m[1], m[2])
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("README line %d: %s: %v", i+1, line, err)
			continue
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, out); err != nil {
			t.Errorf("README line %d: not JSON: %s", i+1, out)
			continue
		}
		for _, f := range facts.FindAllString(shown.String(), -1) {
			if !strings.Contains(compact.String(), f) {
				t.Errorf("README line %d: %s says %s; it gives %s", i+1, line, f, compact.String())
			}
		}
	}
	if n < 4 {
		t.Errorf("found %d grep/find/ls examples in the README, want 4", n)
	}
}

// TestReadmeWaitingForInput runs the README's worked example of a prompt
// answered through a terminal, as it is written, beside the built binary.
func TestReadmeWaitingForInput(t *testing.T) {
	t.Parallel()
	// The quick run runs the README's methods examples (TestReadmeExamples).
	testenv.SkipUnlessLong(t, "a README example beside TestReadmeExamples")
	for _, tool := range []string{"bash", "jq"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "\n## Commands that wait for input\n")
	_, rest, ok2 := strings.Cut(rest, "```bash\n")
	script, rest, ok3 := strings.Cut(rest, "```")
	_, rest, ok4 := strings.Cut(rest, "```\n")
	shown, _, ok5 := strings.Cut(rest, "```")
	if !ok || !ok2 || !ok3 || !ok4 || !ok5 {
		t.Fatal("the README has no worked example of a prompt")
	}
	dir := t.TempDir()
	if err := os.Symlink(binPath, filepath.Join(dir, "toold")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	// What varies from run to run: the process id and how long ago the
	// prompt came.
	norm := func(s string) string {
		s = regexp.MustCompile(`p[0-9a-f]{16}`).ReplaceAllString(s, "pID")
		return regexp.MustCompile(`"sinceMs":\d+`).ReplaceAllString(s, `"sinceMs":N`)
	}
	if err != nil || norm(string(out)) != norm(shown) {
		t.Fatalf("the example printed (%v):\n%s\nthe README shows:\n%s\nstderr:\n%s", err, out, shown, stderr.Bytes())
	}
	var first struct{ WaitingForInput struct{ SinceMs int64 } }
	line, _, _ := strings.Cut(string(out), "\n")
	if json.Unmarshal([]byte(line), &first) != nil || first.WaitingForInput.SinceMs > detectWithin() {
		t.Errorf("the prompt was noticed %d ms after it came: %s", first.WaitingForInput.SinceMs, line)
	}
}
