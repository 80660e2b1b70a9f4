package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxModes: initialize's sandbox in every mode: a write inside the
// root works, one outside gets the kernel's error and the notice names the
// sandbox, TMPDIR is the session's.
func TestSandboxModes(t *testing.T) {
	forEachMode(t, func(t *testing.T, start func(t testing.TB) *peer) {
		proj, out := t.TempDir(), t.TempDir()
		p := start(t)
		var init struct {
			Sandbox struct {
				Mode, TmpDir string
				Writable     []string
			}
		}
		p.mustCall("initialize", map[string]any{"cwd": proj, "roots": []string{proj},
			"sandbox": map[string]any{"mode": "workspace-write"}}, &init)
		if init.Sandbox.Mode != "workspace-write" || init.Sandbox.TmpDir == "" || len(init.Sandbox.Writable) != 2 {
			t.Fatalf("initialize's sandbox: %+v", init.Sandbox)
		}
		var res struct {
			ExitCode *int
			Stdout   struct{ Head string }
			Stderr   struct{ Head string }
			Notice   *string
		}
		p.mustCall("exec", map[string]any{"command": "echo in > in.txt; echo $TMPDIR; echo out > " + out + "/x"}, &res)
		if res.ExitCode == nil || *res.ExitCode == 0 || !strings.Contains(res.Stderr.Head, "Permission denied") ||
			res.Stdout.Head != init.Sandbox.TmpDir+"\n" {
			t.Errorf("exec: %+v", res)
		}
		if res.Notice == nil || !strings.Contains(*res.Notice, "writes outside the workspace are blocked by the sandbox: workspace-write allows "+proj) {
			t.Errorf("notice: %v", res.Notice)
		}
		if _, err := os.Stat(filepath.Join(out, "x")); err == nil {
			t.Error("written outside")
		}
		if b, _ := os.ReadFile(filepath.Join(proj, "in.txt")); string(b) != "in\n" {
			t.Errorf("inside: %q", b)
		}
	})
}

// TestMCPSandbox: toold mcp --sandbox=workspace-write --root DIR confines
// the exec tool's commands to DIR.
func TestMCPSandbox(t *testing.T) {
	t.Parallel()
	proj, out := t.TempDir(), t.TempDir()
	p := startMCP(t, nil, "--sandbox=workspace-write", "--root", proj)
	var res toolResult
	p.mustCall("tools/call", map[string]any{"name": "exec", "arguments": map[string]any{"command": "echo in > " + proj + "/in.txt; echo out > " + out + "/x"}}, &res)
	text := ""
	for _, c := range res.Content {
		text += c.Text
	}
	if !strings.Contains(text, "Permission denied") || !strings.Contains(text, "blocked by the sandbox") {
		t.Errorf("exec tool: %+v", res)
	}
	if _, err := os.Stat(filepath.Join(out, "x")); err == nil {
		t.Error("written outside")
	}
	if _, err := os.Stat(filepath.Join(proj, "in.txt")); err != nil {
		t.Errorf("inside: %v", err)
	}
}
