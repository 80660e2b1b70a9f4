package adversarial

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/toold/toold/internal/testenv"
)

// mcpSession is `toold mcp` started with args, an MCP client that
// announces roots (file:// URIs of dirs) connected to it.
func mcpSession(t *testing.T, roots []string, args ...string) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.Command(daemonBinary(t), append([]string{"mcp", "--spool-root", filepath.Join(t.TempDir(), "spool")}, args...)...)
	stderr := &testenv.Buffer{}
	cmd.Stderr = stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "adversarial", Version: "1"}, nil)
	for _, r := range roots {
		client.AddRoots(&sdk.Root{URI: "file://" + r})
	}
	// Roots come with the initialize handshake, which 2026-07-28 drops.
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("toold mcp: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("toold mcp stderr:\n%s", daemonTail(stderr.String(), 3000))
		}
	})
	return cs
}

// mcpRead calls the read tool and returns its text.
func mcpRead(t *testing.T, cs *sdk.ClientSession, path string) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "read", Arguments: map[string]any{"path": path}})
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// TestMCPClientRootSymlink: an MCP client's root that is a symlink inside
// --root narrows the roots to where the link leads only when that is
// inside --root too: a link to a directory outside does not widen them
// (roots were compared as strings, and the daemon then
// followed the link).
func TestMCPClientRootSymlink(t *testing.T) {
	// The quick run keeps TestRootsPaths and TestRootsSymlinkSwap (stdio) instead.
	skipUnlessLong(t, "an MCP client's root that is a symlink")
	t.Parallel() // daemons and files of its own: it waits beside the others
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	write(t, filepath.Join(root, "sub", "in.txt"), "INSIDE\n")
	write(t, filepath.Join(root, "top.txt"), "TOP\n")
	write(t, filepath.Join(outside, "secret.txt"), "SECRET\n")
	symlink(t, outside, filepath.Join(root, "out"))
	symlink(t, filepath.Join(root, "sub"), filepath.Join(root, "in"))
	symlink(t, "..", filepath.Join(root, "sub", "up"))
	symlink(t, "sub/up/out", filepath.Join(root, "chain"))
	for _, tc := range []struct {
		name     string
		client   []string          // the client's roots
		readable map[string]string // path -> what its read shows; "" for refused
	}{
		{"link to outside", []string{filepath.Join(root, "out")}, map[string]string{
			filepath.Join(outside, "secret.txt"):     "",
			filepath.Join(root, "out", "secret.txt"): "",
			filepath.Join(root, "top.txt"):           "TOP",
		}},
		{"link to outside beside a root inside", []string{filepath.Join(root, "out"), filepath.Join(root, "sub")}, map[string]string{
			filepath.Join(outside, "secret.txt"): "",
			filepath.Join(root, "sub", "in.txt"): "INSIDE",
			filepath.Join(root, "top.txt"):       "",
		}},
		{"chain of links", []string{filepath.Join(root, "chain")}, map[string]string{
			filepath.Join(outside, "secret.txt"): "",
		}},
		{"link inside", []string{filepath.Join(root, "in")}, map[string]string{
			filepath.Join(root, "sub", "in.txt"): "INSIDE",
			filepath.Join(root, "top.txt"):       "",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cs := mcpSession(t, tc.client, "--root", root)
			for path, want := range tc.readable {
				text := mcpRead(t, cs, path)
				if strings.Contains(text, "SECRET") {
					t.Errorf("read %s through the client's root %v: %q", path, tc.client, text)
				}
				switch {
				case want == "" && !strings.Contains(text, "-32002"):
					t.Errorf("read %s: want -32002 (outside the roots), got %q", path, text)
				case want != "" && !strings.Contains(text, want):
					t.Errorf("read %s: want %q, got %q", path, want, text)
				}
			}
		})
	}
}
