package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toold/toold/protocol"
)

// mcpRead calls tool with args through p and returns its text, which must
// fit protocol.MCPResultBytes.
func mcpRead(t *testing.T, p *mcpProc, tool string, args map[string]any) string {
	t.Helper()
	var res toolResult
	p.mustCall("tools/call", map[string]any{"name": tool, "arguments": args}, &res)
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("%s %v: isError %v: %+v", tool, args, res.IsError, res.Content)
	}
	text := res.Content[0].Text
	if len(text) > protocol.MCPResultBytes {
		t.Errorf("%s %v: %d bytes of text", tool, args, len(text))
	}
	return text
}

// numbered is the bytes of the numbered lines in a tool's text, their
// numbers left out.
func numbered(text string) int {
	n := 0
	for _, m := range regexp.MustCompile(`(?m)^ {0,5}\d+\t(.*)$`).FindAllStringSubmatch(text, -1) {
		n += len(m[1]) + 1
	}
	return n
}

// TestMCPLargeReadEdges: toold mcp's read of a large file with no range
// (its outline and first lines) shows a first line over 8 KiB that fits a
// window, names a readBytes call that works for one that does not, keeps
// the session's read maxBytes (--read.max-bytes), and the session saw the
// lines shown: their re-read with ifChanged is unchanged.
func TestMCPLargeReadEdges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := func(first string) string {
		var b strings.Builder
		b.WriteString(first + "\n")
		for i := 0; b.Len() <= 2*protocol.MCPOutlineBytes; i++ {
			fmt.Fprintf(&b, "# H%d\n%s\n", i, strings.Repeat(fmt.Sprintf("text %d ", i), 12))
		}
		return b.String()
	}
	files := map[string]string{
		"l10k.md":  body("# " + strings.Repeat("t", 10<<10)),
		"l20k.md":  body("# " + strings.Repeat("t", 20<<10)),
		"plain.md": body("# Title"),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := startMCPProc(t, nil, "edges", "--root", dir)
	if text := mcpRead(t, p, "read", map[string]any{"path": filepath.Join(dir, "l10k.md")}); !strings.Contains(text, "\n     1\t# ttt") ||
		strings.Contains(text, "longer than a window") {
		t.Errorf("a 10 KiB first line:\n%.3000s", text)
	}
	text := mcpRead(t, p, "read", map[string]any{"path": filepath.Join(dir, "l20k.md")})
	m := regexp.MustCompile(`readBytes startByte=(\d+) maxBytes=(\d+)`).FindStringSubmatch(text)
	if m == nil || strings.Contains(text, "     1\t") {
		t.Fatalf("a 20 KiB first line:\n%.3000s", text)
	}
	if got := mcpRead(t, p, "readBytes", map[string]any{"path": filepath.Join(dir, "l20k.md"), "startByte": json.Number(m[1]), "maxBytes": json.Number(m[2])}); !strings.HasPrefix(got, "     1\t# ttt") {
		t.Errorf("the readBytes call named:\n%.300s", got)
	}
	text = mcpRead(t, p, "read", map[string]any{"path": filepath.Join(dir, "plain.md")})
	shown := regexp.MustCompile(`above are its outline and lines 1-(\d+)\.`).FindStringSubmatch(text)
	if shown == nil {
		t.Fatalf("plain.md:\n%.3000s", text)
	}
	if again := mcpRead(t, p, "read", map[string]any{"path": filepath.Join(dir, "plain.md"), "offset": 1, "limit": json.Number(shown[1]), "ifChanged": true}); !strings.Contains(again, "unchanged") {
		t.Errorf("lines 1-%s again: %.300s", shown[1], again)
	}

	small := startMCPProc(t, nil, "edges", "--root", dir, "--read.max-bytes", "1000")
	text = mcpRead(t, small, "read", map[string]any{"path": filepath.Join(dir, "plain.md")})
	if n := numbered(text); !strings.Contains(text, "above are its outline") || n > 1000 || n == 0 {
		t.Errorf("with --read.max-bytes 1000: %d bytes of lines:\n%.3000s", n, text)
	}
}
