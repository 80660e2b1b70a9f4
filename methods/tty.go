package methods

import (
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/process"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// ttySpec sets spec up for exec's tty: the terminal's size (clamped to its
// caps; 0 is the default) and the environment's defaults (protocol.TTYEnv)
// where neither the session nor the call sets the variable.
func ttySpec(p *protocol.ExecParams, s *Session, spec *exec.Spec, extra map[string]string) error {
	if !p.TTY {
		if p.Cols != nil || p.Rows != nil {
			field := "cols"
			if p.Cols == nil {
				field = "rows"
			}
			return invalidTTYParam(field)
		}
		return nil
	}
	cols, err := intCount("cols", p.Cols, protocol.DefaultTTYCols, 0, protocol.MaxTTYCols)
	if err != nil {
		return err
	}
	rows, err := intCount("rows", p.Rows, protocol.DefaultTTYRows, 0, protocol.MaxTTYRows)
	if err != nil {
		return err
	}
	spec.TTY = &exec.Terminal{Cols: orDefault(cols, protocol.DefaultTTYCols), Rows: orDefault(rows, protocol.DefaultTTYRows)}
	env := make(map[string]string, len(extra)+len(protocol.TTYEnv))
	for k, v := range protocol.TTYEnv {
		if _, set := s.Env[k]; !set {
			env[k] = v
		}
	}
	for k, v := range extra {
		env[k] = v
	}
	spec.Env = s.EnvList(env)
	return nil
}

func orDefault(n, def int) int {
	if n == 0 {
		return def
	}
	return n
}

// resize sets the size of pr's terminal from process/write's cols and
// rows (one alone keeps the other's current value: the default's until a
// resize).
func resize(pr *process.Proc, p *protocol.ProcessWriteParams) error {
	cols, err := intCount("cols", p.Cols, 0, 0, protocol.MaxTTYCols)
	if err != nil {
		return err
	}
	rows, err := intCount("rows", p.Rows, 0, 0, protocol.MaxTTYRows)
	if err != nil {
		return err
	}
	err = pr.Resize(cols, rows)
	switch {
	case errors.Is(err, process.ErrNoTerminal):
		return invalidTTYParam(map[bool]string{true: "cols", false: "rows"}[p.Cols != nil])
	case err != nil:
		return rpc.Errorf(rpc.CodeInvalidParams, protocol.ProcessData{Process: p.ID}, "invalid params: id: process %s: %v", p.ID, err)
	}
	return nil
}

// invalidTTYParam refuses a terminal's size for a command without one.
func invalidTTYParam(field string) error {
	return rpc.InvalidParams(field, "sets a terminal's size: only for a command run with tty: true")
}

// toWaiting maps a process's wait for input to the wire's; nil stays nil.
func toWaiting(w *process.Waiting) *protocol.WaitingForInput {
	if w == nil {
		return nil
	}
	return &protocol.WaitingForInput{Prompt: w.Prompt, SinceMs: time.Since(w.Since).Milliseconds(), Echo: w.Echo}
}

// noTerminalLine is what a program prints when it needs a terminal and
// has none, and says so whatever came of it: /dev/tty's ENXIO (bash's
// `read < /dev/tty` goes on after it), git's credential prompt ("could not
// read Username for ...: No such device or address"), a terminal's ioctl
// on a pipe (ENOTTY: "Inappropriate ioctl for device", stty, getpass),
// sudo's words.
var noTerminalLine = regexp.MustCompile(`(?i)/dev/tty\b.*no such device or address|` +
	`could not read (?:username|password)|inappropriate ioctl for device|` +
	`a terminal is required|no tty present`)

// noTerminalFailure is what a program says of a missing terminal that is
// only a warning unless it failed: "stdin is not a tty" (many a profile
// prints it), ssh's "Pseudo-terminal will not be allocated because stdin
// is not a terminal", docker -it's "the input device is not a TTY", vim's
// "Input is not from a terminal".
var noTerminalFailure = regexp.MustCompile(`(?i)\bnot a (?:tty|terminal)\b|must be run (?:from|in) a terminal|` +
	`(?:input|output) is not (?:from|to) a terminal|requires a (?:tty|terminal)`)

// needsTerminal returns the first line of the streams' shown output that
// says the command wanted a terminal, "" when none does. A command that
// ran on one never needs one; failed says the command did not succeed.
func needsTerminal(tty, failed bool, streams ...*protocol.Stream) string {
	if tty {
		return ""
	}
	res := []*regexp.Regexp{noTerminalLine}
	if failed {
		res = append(res, noTerminalFailure)
	}
	for _, re := range res {
		for _, s := range streams {
			texts := []string{s.Head, s.Tail}
			for _, h := range s.Highlights {
				texts = append(texts, h.Text)
			}
			for _, text := range texts {
				if !re.MatchString(text) {
					continue
				}
				for line := range strings.Lines(text) {
					if re.MatchString(line) {
						return strings.TrimSpace(line)
					}
				}
			}
		}
	}
	return ""
}

// failed reports whether a command did not exit 0 (or has not exited).
func failed(r *protocol.ExecResult) bool {
	return r.ExitCode == nil || *r.ExitCode != 0
}
