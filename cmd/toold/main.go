// Command toold is a daemon that gives AI coding agents windows of files and
// of command output that fit a context window: whole lines, exact metadata,
// and nothing lost. See README.md and docs/protocol.md.
//
// Usage:
//
//	toold [flags]                 serve one client on stdin/stdout (= toold serve --stdio)
//	toold serve --listen SOCKET   the shared daemon: a session per connection
//	toold --remote=auto           stdio forwarded to the shared daemon, started if needed
//	toold mcp [--remote=auto]     a Model Context Protocol server on stdio
//	toold call METHOD [JSON]      send one request, print the result
//	toold status | stop           the shared daemon's state; stop it
//	toold version                 the version and build info
//	toold schema [METHOD]         the JSON Schema of the methods' params and results
//	toold help [COMMAND]          what a command does and the flags it takes
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toold/toold/index"
	"github.com/toold/toold/protocol"
)

// command is a subcommand: its flags are the only ones it takes.
type command struct {
	name, args, summary string
	help                string // what it does, after the usage line
	flags               func(fs *flag.FlagSet, o *options)
	run                 func(o *options, args []string) int
}

var commands []*command // filled in init: help refers to the table

func init() {
	commands = []*command{cmdServe, cmdMCP, cmdCall, cmdStatus, cmdStop, cmdVersion, cmdSchema, {
		name: "help", args: "[COMMAND]", summary: "what a command does and the flags it takes",
		help:  "Prints the list of commands, or COMMAND's usage and flags.",
		flags: func(*flag.FlagSet, *options) {},
		run:   runHelp,
	}}
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func main() {
	os.Exit(run(os.Args[1:]))
}

// run runs the command args name ("serve" when there is none), or says why
// it cannot (parseArgs).
func run(args []string) int {
	c, o, positional, code := parseArgs(args, os.Stdout, os.Stderr)
	if c == nil {
		return code
	}
	return c.run(o, positional)
}

// parseArgs parses args as [FLAGS] [COMMAND [ARGS and FLAGS]]. Flags before
// the command are the command's flags too; a flag the command does not take
// is refused in one line. It returns the command with its options and
// positional arguments; or, when there is none to run (--help, a refused
// flag, an unknown command), nil and the exit status, having written the
// usage to stdout or the refusal to stderr.
func parseArgs(args []string, stdout, stderr io.Writer) (*command, *options, []string, int) {
	pre, name, post, err := splitCommand(args)
	if err != nil {
		fmt.Fprintf(stderr, "toold: %v (see: toold help)\n", err)
		return nil, nil, nil, 2
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "toold: unknown command %q (commands: %s; see: toold help)\n", name, commandNames())
		return nil, nil, nil, 2
	}
	o := &options{sessionQuota: protocol.DefaultSessionQuota, daemonQuota: protocol.DefaultDaemonQuota, index: "on", indexQuota: index.DefaultQuota}
	fs := newFlagSet(c, o)
	positional, err := parseInterspersed(fs, pre, post)
	if errors.Is(err, flag.ErrHelp) {
		return nil, nil, nil, usage(stdout, c)
	}
	fs.Visit(func(f *flag.Flag) { o.given = append(o.given, f.Name) })
	if hasFlags(fs) {
		fromConfig, err := applyConfig(configPath(), c.name, fs, o.given)
		if err != nil {
			fmt.Fprintf(stderr, "toold %s: %v\n", c.name, err)
			return nil, nil, nil, 2
		}
		o.configured = fromConfig
	}
	if err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: "); ok {
			err = fmt.Errorf("does not take --%s", strings.TrimLeft(name, "-"))
		}
		fmt.Fprintf(stderr, "toold %s: %v (see: toold help %s)\n", c.name, err, c.name)
		return nil, nil, nil, 2
	}
	return c, o, positional, 0
}

// splitCommand finds the command in args: the first argument that is not a
// flag or a flag's value. Any flag of any command is allowed before it; the
// command's own flag set then decides.
func splitCommand(args []string) (pre []string, name string, post []string, err error) {
	fs := flag.NewFlagSet("toold", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, c := range commands {
		newFlagSet(c, &options{}).VisitAll(func(f *flag.Flag) {
			if fs.Lookup(f.Name) == nil {
				fs.Var(f.Value, f.Name, f.Usage)
			}
		})
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, "help", nil, nil
		}
		return nil, "", nil, err
	}
	if fs.NArg() == 0 {
		return args, "serve", nil, nil
	}
	i := len(args) - fs.NArg()
	return args[:i], args[i], args[i+1:], nil
}

// parseInterspersed parses pre, then post with flags and positional
// arguments in any order, and returns the positional ones.
func parseInterspersed(fs *flag.FlagSet, pre, post []string) ([]string, error) {
	if err := fs.Parse(pre); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var positional []string
	rest := post
	for {
		if err := fs.Parse(rest); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		if i := len(rest) - fs.NArg(); i > 0 && rest[i-1] == "--" {
			return append(positional, fs.Args()...), nil // everything after -- is an argument
		}
		positional = append(positional, fs.Arg(0))
		rest = fs.Args()[1:]
	}
}

func newFlagSet(c *command, o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("toold "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported in one line, help on request
	c.flags(fs, o)
	return fs
}

// hasFlags reports whether fs defines any flag.
func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

func commandNames() string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return strings.Join(names, ", ")
}

const overview = `toold: file and command windows for AI coding agents, over JSON-RPC 2.0.

Usage:
  toold [flags]             serve one client on stdin/stdout (same as: toold serve)
  toold COMMAND [ARGS] [flags]

Commands:
`

const overviewEnd = `
On stdio the framing is detected from the first bytes: Content-Length headers (LSP,
VS Code) or one JSON message per line (scripts). Replies use the same framing. Logs go
to stderr unless --logfile says otherwise. The methods are in docs/protocol.md.

Example:
  echo '{"jsonrpc":"2.0","id":1,"method":"read","params":{"path":"README.md","limit":5}}' | toold

Flags can also come from a config file, $XDG_CONFIG_HOME/toold/config.toml (else
~/.config/toold/config.toml; $TOOLD_CONFIG names another): a top-level key sets the flag
for every command that takes it, a key in a [COMMAND] table for that command alone, and
a flag on the command line wins. For example:
  index = "off"              # toold serve, mcp, call
  [mcp]
  remote = "auto"
  root = ["~/src"]           # a repeatable flag takes a list
  "exec.timeout" = "10m"

Run "toold help COMMAND" for a command's flags.
`

// usage prints the overview (c nil) or c's usage and flags.
func usage(w io.Writer, c *command) int {
	if c == nil {
		fmt.Fprint(w, overview)
		for _, c := range commands {
			fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
		}
		fmt.Fprint(w, overviewEnd)
		return 0
	}
	fmt.Fprintf(w, "Usage: toold %s", c.name)
	if c.args != "" {
		fmt.Fprintf(w, " %s", c.args)
	}
	if hasFlags(newFlagSet(c, &options{})) {
		fmt.Fprint(w, " [flags]")
	}
	fmt.Fprintf(w, "\n\n%s\n", strings.TrimSpace(c.help))
	fs := newFlagSet(c, &options{})
	if hasFlags(fs) {
		fmt.Fprint(w, "\nFlags:\n")
		fs.SetOutput(w)
		fs.PrintDefaults()
	}
	return 0
}

func runHelp(_ *options, args []string) int {
	switch len(args) {
	case 0:
		return usage(os.Stdout, nil)
	case 1:
		if c := lookup(args[0]); c != nil {
			return usage(os.Stdout, c)
		}
		fmt.Fprintf(os.Stderr, "toold help: unknown command %q (commands: %s)\n", args[0], commandNames())
		return 2
	}
	fmt.Fprintln(os.Stderr, "toold help: one command at most")
	return 2
}
