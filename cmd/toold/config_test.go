package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"
)

// The config file sets the flags the command line leaves unset: top-level
// keys for every command that takes them, a [COMMAND] table's for that
// command; lists for repeatable flags, ~/ expanded, dotted names as keys
// or tables. What no command takes, or a table's command does not, is
// refused with the file and the key named.
func TestApplyConfig(t *testing.T) {
	t.Parallel()
	home, _ := os.UserHomeDir()
	for _, tc := range []struct {
		name, config, command string
		args                  []string
		check                 func(o *options) bool
		err                   string
	}{
		{"top level", `index = "off"`, "call", nil, func(o *options) bool { return o.index == "off" }, ""},
		{"top level, a command without it", `index = "off"
structured = true`, "status", nil, func(o *options) bool { return o.remote == "auto" }, ""},
		{"the command line wins", `index = "off"`, "call", []string{"--index=on"}, func(o *options) bool { return o.index == "on" }, ""},
		{"a table over the top level", "idle-timeout = \"1m\"\n[mcp]\nidle-timeout = \"7m\"", "mcp", nil,
			func(o *options) bool { return o.idle == 7*time.Minute }, ""},
		{"another command's table", "[serve]\nmax-conns = 5", "call", nil, func(o *options) bool { return o.maxConns == 0 }, ""},
		{"lists, ~/", "[mcp]\nroot = [\"~/src\", \"/tmp\"]\nremote = \"auto\"\nstructured = true", "mcp", nil,
			func(o *options) bool {
				return slices.Equal(o.roots, []string{filepath.Join(home, "src"), "/tmp"}) && o.remote == "auto" && o.structured
			}, ""},
		{"dotted names", "[mcp]\n\"exec.timeout\" = \"10m\"\n[mcp.read]\nlimit = 100", "mcp", nil,
			func(o *options) bool { return o.limits.execTimeout.v == 10*time.Minute && o.limits.readLimit.v == 100 }, ""},
		{"no command takes it", `bogus = 1`, "call", nil, nil, "no command takes --bogus"},
		{"not this command's", "[status]\nindex = \"on\"", "status", nil, nil, "[status] index: toold status does not take --index"},
		{"a bad value", "[mcp]\n\"read.limit\" = \"many\"", "mcp", nil, nil, "read.limit: not a whole number"},
		{"not TOML", `index = `, "call", nil, nil, "config "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.toml")
			if err := os.WriteFile(path, []byte(tc.config), 0o600); err != nil {
				t.Fatal(err)
			}
			o := &options{index: "on"}
			fs := newFlagSet(lookup(tc.command), o)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			var given []string
			for _, a := range tc.args {
				given = append(given, strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-"))
			}
			_, err := applyConfig(path, tc.command, fs, given)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), path)):
				t.Errorf("error %v, want one naming %s and %q", err, path, tc.err)
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err == "" && !tc.check(o):
				t.Errorf("options %+v", o)
			}
		})
	}
	if _, err := applyConfig(filepath.Join(t.TempDir(), "none.toml"), "mcp", newFlagSet(lookup("mcp"), &options{}), nil); err != nil {
		t.Errorf("a missing file: %v", err)
	}
}

// The built toold reads $TOOLD_CONFIG (else ~/.config/toold/config.toml):
// toold mcp takes its flags from the [mcp] table, and a flag on the command
// line wins; a bad file stops the command with the reason.
func TestConfigFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	os.WriteFile(file, []byte("1\n2\n3\n4\n5\n"), 0o644)
	config := filepath.Join(dir, "config.toml")
	os.WriteFile(config, []byte("[mcp]\n\"read.limit\" = 2\nspool-root = \""+filepath.Join(dir, "spool")+"\"\n"), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "     1\t1\n     2\t2\n[Showing lines 1-2 of 5. Use offset=3 to continue]"},
		{[]string{"--read.limit", "3"}, "     1\t1\n     2\t2\n     3\t3\n[Showing lines 1-3 of 5. Use offset=4 to continue]"},
	} {
		// The quick run has the config's value reach toold mcp's reads;
		// that the command line wins is TestApplyConfig's, in process (a
		// start of the -race binary saved).
		if len(tc.args) > 0 && !testenv.Long() {
			continue
		}
		p := startMCP(t, []string{configEnv + "=" + config}, tc.args...)
		var res toolResult
		p.mustCall("tools/call", map[string]any{"name": "read", "arguments": map[string]any{"path": file}}, &res)
		if res.IsError || len(res.Content) != 1 || res.Content[0].Text != tc.want {
			t.Errorf("%v: %+v", tc.args, res)
		}
	}
	os.WriteFile(config, []byte("[mcp]\nrot = \"/src\"\n"), 0o600)
	if _, e, code := runBin(t, "", []string{configEnv + "=" + config}, "mcp"); code != 2 || !strings.Contains(e, "toold mcp: config "+config+": [mcp] rot: toold mcp does not take --rot") {
		t.Errorf("a bad config: %d %q", code, e)
	}
}
