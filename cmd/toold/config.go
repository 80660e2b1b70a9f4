package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// configEnv names the variable that gives the config file's path, in place
// of the default (configPath); /dev/null turns it off (the tests do).
const configEnv = "TOOLD_CONFIG"

// configPath is the user's config file: $TOOLD_CONFIG, else
// $XDG_CONFIG_HOME/toold/config.toml, else ~/.config/toold/config.toml, as
// on every OS (a client that strips XDG_CONFIG_HOME, as codex does, still
// finds ~/.config's).
func configPath() string {
	if p := os.Getenv(configEnv); p != "" {
		return p
	}
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "toold", "config.toml")
}

// applyConfig sets each flag of fs that the command line left unset and
// the config file at path gives: a top-level key for every command that
// takes that flag, a key in the command's table ([mcp], [serve], [call],
// [status], [stop]) for that command, over the top-level one. A flag given
// on the command line wins. It returns the names of the flags it set. A
// missing file is no config; a key no command takes, or that the command's
// table names and the command does not take, is an error.
func applyConfig(path, command string, flags *flag.FlagSet, given []string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	var raw map[string]any
	if _, err := toml.DecodeFile(path, &raw); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	values := map[string]any{}
	var own map[string]any
	for k, v := range raw {
		if t, ok := v.(map[string]any); ok && lookup(k) != nil {
			if k == command {
				own = t
			}
			continue
		}
		flatten(values, k, v)
	}
	for k := range values {
		if !anyCommandTakes(k) {
			return nil, fmt.Errorf("config %s: no command takes --%s", path, k)
		}
	}
	mine := map[string]any{}
	for k, v := range own {
		flatten(mine, k, v)
	}
	for k, v := range mine {
		if flags.Lookup(k) == nil {
			return nil, fmt.Errorf("config %s: [%s] %s: toold %s does not take --%s", path, command, k, command, k)
		}
		values[k] = v
	}
	var set []string
	for _, name := range sortedKeys(values) {
		f := flags.Lookup(name)
		if f == nil || slices.Contains(given, name) {
			continue // another command's, or given on the command line
		}
		for _, s := range configValues(values[name]) {
			if err := flags.Set(name, s); err != nil {
				return nil, fmt.Errorf("config %s: %s: %w", path, name, err)
			}
		}
		set = append(set, name)
	}
	return set, nil
}

// flatten puts v in out under k, a table's keys under k.key, so that
// exec.timeout = "5m" and [mcp.exec] timeout = "5m" both name --exec.timeout.
func flatten(out map[string]any, k string, v any) {
	if t, ok := v.(map[string]any); ok {
		for tk, tv := range t {
			flatten(out, k+"."+tk, tv)
		}
		return
	}
	out[k] = v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// anyCommandTakes reports whether some command takes the flag name.
func anyCommandTakes(name string) bool {
	for _, c := range commands {
		if newFlagSet(c, &options{}).Lookup(name) != nil {
			return true
		}
	}
	return false
}

// configValues are the flag values a TOML value gives: one per element of
// an array (a repeatable flag), ~/ expanded to the home directory.
func configValues(v any) []string {
	switch v := v.(type) {
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, configValues(e)...)
		}
		return out
	case string:
		if rest, ok := strings.CutPrefix(v, "~/"); ok {
			if home, err := os.UserHomeDir(); err == nil {
				return []string{filepath.Join(home, rest)}
			}
		}
		return []string{v}
	case int64:
		return []string{strconv.FormatInt(v, 10)}
	case bool:
		return []string{strconv.FormatBool(v)}
	case float64:
		return []string{strconv.FormatFloat(v, 'f', -1, 64)}
	}
	return []string{fmt.Sprint(v)}
}
