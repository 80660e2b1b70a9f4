package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// readmeBlocks returns the README's fenced code blocks of language lang
// in section (from its "## " heading to the next), or in all of it when
// section is "".
func readmeBlocks(t *testing.T, section, lang string) []string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	if section != "" {
		i := strings.Index(text, "\n## "+section+"\n")
		if i < 0 {
			t.Fatalf("README has no section %q", section)
		}
		text = text[i+1:]
		if j := strings.Index(text[3:], "\n## "); j >= 0 {
			text = text[:j+3]
		}
	}
	var blocks []string
	for _, m := range regexp.MustCompile("(?s)\n```"+regexp.QuoteMeta(lang)+"\n(.*?)\n```").FindAllStringSubmatch(text, -1) {
		blocks = append(blocks, m[1])
	}
	return blocks
}

// checkToold checks that args, as an agent's config gives them to toold,
// name a command that exists and only flags it takes.
func checkToold(t *testing.T, where string, command string, args []string) {
	t.Helper()
	if command != "toold" {
		t.Errorf("%s: command %q, want toold", where, command)
		return
	}
	if len(args) == 0 {
		t.Errorf("%s: no arguments: plain toold serves JSON-RPC, not MCP", where)
		return
	}
	c := lookup(args[0])
	if c == nil {
		t.Errorf("%s: toold has no command %q", where, args[0])
		return
	}
	if c.name != "mcp" {
		t.Errorf("%s: toold %s is not the MCP server", where, c.name)
	}
	if pos, err := parseInterspersed(newFlagSet(c, &options{}), nil, args[1:]); err != nil || len(pos) > 0 {
		t.Errorf("%s: toold %v: %v %v", where, args, err, pos)
	}
}

// Every agent's config snippet parses as what it claims to be and starts
// a toold command that exists, with flags it takes.
func TestReadmeAgentConfigs(t *testing.T) {
	t.Parallel()
	const section = "Use it from an agent"
	type server struct {
		Type    string          `json:"type" toml:"type"`
		Command json.RawMessage `json:"command"`
		Args    []string        `json:"args" toml:"args"`
	}
	servers := 0
	for i, block := range readmeBlocks(t, section, "json") {
		var cfg map[string]json.RawMessage
		if err := json.Unmarshal([]byte(block), &cfg); err != nil {
			t.Errorf("json block %d does not parse: %v\n%s", i, err, block)
			continue
		}
		// Claude Code and Cursor: mcpServers; VS Code: servers; opencode: mcp; Zed: context_servers.
		for _, key := range []string{"mcpServers", "servers", "mcp", "context_servers"} {
			var named map[string]server
			if raw, ok := cfg[key]; !ok || json.Unmarshal(raw, &named) != nil {
				continue
			}
			s, ok := named["toold"]
			if !ok {
				t.Errorf("json block %d: no toold under %s", i, key)
				continue
			}
			servers++
			var command string
			if json.Unmarshal(s.Command, &command) != nil {
				var argv []string // opencode: the command is one array
				if err := json.Unmarshal(s.Command, &argv); err != nil || len(argv) == 0 || s.Args != nil || s.Type != "local" {
					t.Errorf("json block %d: command %s", i, s.Command)
					continue
				}
				command, s.Args = argv[0], argv[1:]
			}
			if key == "servers" && s.Type != "stdio" {
				t.Errorf("json block %d: VS Code needs type stdio, got %q", i, s.Type)
			}
			checkToold(t, "json block "+string(rune('0'+i)), command, s.Args)
		}
	}
	for i, block := range readmeBlocks(t, section, "toml") {
		var cfg struct {
			MCPServers map[string]struct {
				Command string
				Args    []string
			} `toml:"mcp_servers"`
		}
		if _, err := toml.Decode(block, &cfg); err != nil {
			t.Errorf("toml block %d does not parse: %v\n%s", i, err, block)
			continue
		}
		s, ok := cfg.MCPServers["toold"]
		if !ok {
			t.Errorf("toml block %d: no [mcp_servers.toold]", i)
			continue
		}
		servers++
		checkToold(t, "toml block", s.Command, s.Args)
	}
	// claude mcp add … -- toold ARGS, codex mcp add … -- toold ARGS
	adds := 0
	for _, block := range readmeBlocks(t, section, "sh") {
		for _, line := range strings.Split(block, "\n") {
			if _, cmd, ok := strings.Cut(line, " -- "); ok {
				adds++
				f := strings.Fields(cmd)
				checkToold(t, line, f[0], f[1:])
			}
		}
	}
	if servers != 6 || adds != 2 {
		t.Errorf("%d config files and %d add commands, want 6 (Claude Code, Cursor, VS Code, opencode, Zed, Codex) and 2", servers, adds)
	}
}

// Every example of the Methods section runs as written from the root of a
// clone, with ./toold the built binary.
func TestReadmeExamples(t *testing.T) {
	t.Parallel()
	blocks := readmeBlocks(t, "Methods, with an example each", "sh")
	if len(blocks) < 6 {
		t.Fatalf("%d examples", len(blocks))
	}
	root := t.TempDir()
	for _, block := range blocks {
		script := "set -e -o pipefail\n" + strings.ReplaceAll(block, "./toold", binPath)
		cmd := exec.Command("bash", "-c", script)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "TOOLD_RUNTIME_DIR="+root, "TMPDIR="+root)
		out, err := cmd.Output()
		if err != nil || len(out) == 0 || strings.Contains(string(out), `"error":`) {
			t.Errorf("%s\n→ %v\n%s", block, err, out)
		}
		if strings.Contains(block, `"method":"page"`) && !strings.Contains(string(out), `"content":"3\n4\n"`) {
			t.Errorf("the page example: %s", out)
		}
	}
}

// The sandbox section's commands start toold commands that exist, with
// flags they take.
func TestReadmeSandbox(t *testing.T) {
	t.Parallel()
	n := 0
	for _, block := range readmeBlocks(t, "Run an agent's commands in a sandbox", "sh") {
		for _, line := range strings.Split(block, "\n") {
			line, _, _ = strings.Cut(line, "#")
			if _, cmd, ok := strings.Cut(line, " -- "); ok {
				line = cmd
			}
			if f := strings.Fields(line); len(f) > 0 && f[0] == "toold" {
				n++
				checkToold(t, line, f[0], f[1:])
			}
		}
	}
	if n != 3 {
		t.Errorf("%d toold commands in the sandbox section, want 3", n)
	}
}
