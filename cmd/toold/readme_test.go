package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/mcp"
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
				Command                  string
				Args                     []string
				DefaultToolsApprovalMode string   `toml:"default_tools_approval_mode"`
				EnvVars                  []string `toml:"env_vars"`
			} `toml:"mcp_servers"`
			Rule []struct {
				ToolName        string         `toml:"toolName"`
				MCPName         string         `toml:"mcpName"`
				ToolAnnotations map[string]any `toml:"toolAnnotations"`
				Decision        string
			} `toml:"rule"`
		}
		md, err := toml.Decode(block, &cfg)
		if err != nil {
			t.Errorf("toml block %d does not parse: %v\n%s", i, err, block)
			continue
		}
		switch {
		case cfg.MCPServers != nil: // codex's config.toml
			s, ok := cfg.MCPServers["toold"]
			if !ok {
				t.Errorf("toml block %d: no [mcp_servers.toold]", i)
				continue
			}
			servers++
			checkToold(t, "toml block", s.Command, s.Args)
			if m := s.DefaultToolsApprovalMode; m != "" && !slices.Contains([]string{"auto", "prompt", "writes", "approve"}, m) {
				t.Errorf("codex: default_tools_approval_mode %q", m)
			}
		case cfg.Rule != nil: // a gemini-cli policy
			if r := cfg.Rule[0]; r.MCPName != "toold" || r.ToolName != "*" || r.ToolAnnotations["readOnlyHint"] != true || r.Decision != "allow" {
				t.Errorf("the gemini-cli policy: %+v", r)
			}
		default: // toold's own config file
			path := filepath.Join(t.TempDir(), "config.toml")
			os.WriteFile(path, []byte(block), 0o600)
			for _, c := range []string{"mcp", "serve", "call"} {
				if _, err := applyConfig(path, c, newFlagSet(lookup(c), &options{}), nil); err != nil {
					t.Errorf("the config file, for toold %s: %v", c, err)
				}
			}
			if len(md.Keys()) < 3 {
				t.Errorf("toml block %d: %v", i, md.Keys())
			}
		}
	}
	// claude mcp add … -- toold ARGS, codex mcp add … -- toold ARGS,
	// gemini mcp add [--scope S] NAME toold ARGS
	adds := 0
	for _, block := range readmeBlocks(t, section, "sh") {
		for _, line := range strings.Split(block, "\n") {
			if _, cmd, ok := strings.Cut(line, " -- "); ok {
				adds++
				f := strings.Fields(cmd)
				checkToold(t, line, f[0], f[1:])
			} else if rest, ok := strings.CutPrefix(line, "gemini mcp add "); ok {
				adds++
				f := strings.Fields(rest)
				if len(f) < 5 || f[0] != "--scope" || f[1] != "user" || f[2] != "toold" {
					t.Errorf("%s: want gemini mcp add --scope user toold COMMAND ARGS", line)
					continue
				}
				checkToold(t, line, f[3], f[4:])
			}
		}
	}
	if servers != 7 || adds != 3 {
		t.Errorf("%d config files and %d add commands, want 7 (Claude Code, Cursor, VS Code, opencode, Zed, Codex, Gemini CLI) and 3", servers, adds)
	}
}

// The README's table of MCP tools names every tool toold mcp serves, with
// the annotations it gives them.
func TestReadmeToolList(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile("(?m)^\\| `([a-zA-Z_]+)` \\| .* \\| ([a-z, -]+) \\|$").FindAllStringSubmatch(string(b), -1)
	got := map[string]string{}
	for _, r := range rows {
		got[r[1]] = r[2]
	}
	want := map[string]string{"exec": "destructive, open world", "process_write": "destructive, open world", "process_kill": "destructive, idempotent"}
	for _, name := range mcp.ToolNames() {
		w := want[name]
		if w == "" {
			w = "read-only"
		}
		if got[name] != w {
			t.Errorf("README's tool table: %s is %q, want %q", name, got[name], w)
		}
	}
	if len(got) != len(mcp.ToolNames()) {
		t.Errorf("README's tool table has %d tools, toold mcp %d: %v", len(got), len(mcp.ToolNames()), got)
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
	// An sh block runs in sh (dash here: no bash-isms), a bash block in
	// bash; the dev server's script is TestReadmeDevServer's.
	type example struct{ shell, block string }
	var examples []example
	for _, b := range blocks {
		examples = append(examples, example{"sh", "set -e\n" + b})
	}
	for _, b := range readmeBlocks(t, "Methods, with an example each", "bash") {
		if !strings.HasPrefix(b, "#!") {
			examples = append(examples, example{"bash", "set -e -o pipefail\n" + b})
		}
	}
	pages := 0
	for _, ex := range examples {
		script := strings.ReplaceAll(ex.block, "./toold", binPath)
		cmd := exec.Command(ex.shell, "-c", script)
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "TOOLD_RUNTIME_DIR="+root, "TMPDIR="+root)
		out, err := cmd.Output()
		if err != nil || len(out) == 0 || strings.Contains(string(out), `"error":`) {
			t.Errorf("%s: %s\n→ %v\n%s", ex.shell, ex.block, err, out)
		}
		if strings.Contains(ex.block, `"method":"page"`) {
			pages++
			if !strings.Contains(string(out), `"content":"3\n4\n"`) {
				t.Errorf("the page example: %s", out)
			}
		}
		// A spool named in a notice must still be there to page.
		if strings.Contains(ex.block, "call exec") && (!strings.Contains(string(out), `"spool": null`) || strings.Contains(string(out), "page spool=")) {
			t.Errorf("toold call exec names a spool that its end deleted: %s", out)
		}
	}
	if pages != 1 {
		t.Errorf("%d page examples run", pages)
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

// The Install section's commands install toold where its PATH line finds
// it, and toold version runs from there (a build of its own: long only).
func TestReadmeInstall(t *testing.T) {
	testenv.SkipUnlessLong(t, "go install builds toold as shipped")
	t.Parallel()
	blocks := readmeBlocks(t, "Install", "sh")
	if len(blocks) == 0 || !strings.Contains(blocks[0], "go install ./cmd/toold") {
		t.Fatalf("the Install section's first block: %q", blocks)
	}
	gopath := t.TempDir()
	cmd := exec.Command("sh", "-c", "set -e\n"+blocks[0])
	cmd.Dir = "../.."
	// GOPATH of its own for the binary; the build and module caches the
	// user's (TestMain moved XDG_CACHE_HOME, where GOCACHE defaults to).
	cmd.Env = append(os.Environ(), "GOPATH="+gopath, "GOBIN=", "GOMODCACHE="+goEnv(t, "GOMODCACHE"),
		"GOCACHE="+goEnv(t, "GOCACHE", "XDG_CACHE_HOME="), "PATH="+filepath.Join(goEnv(t, "GOROOT"), "bin")+":/usr/bin:/bin")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "toold ") || !strings.Contains(string(out), "module    github.com/toold/toold") {
		t.Errorf("the Install block: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(gopath, "bin", "toold")); err != nil {
		t.Errorf("not in $(go env GOPATH)/bin: %v", err)
	}
}

// goEnv is go env name, with env over the test's environment.
func goEnv(t *testing.T, name string, env ...string) string {
	cmd := exec.Command("go", "env", name)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
