package methods

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/truncate"
)

// execParams are exec's params.
type execParams struct {
	Command      *string           `json:"command"`
	Argv         []string          `json:"argv"`
	Cwd          string            `json:"cwd"`
	Env          map[string]string `json:"env"`
	Stdin        *string           `json:"stdin"`
	TimeoutMs    *Num              `json:"timeoutMs"`
	MaxLines     *Num              `json:"maxLines"`
	MaxBytes     *Num              `json:"maxBytes"`
	Preview      *string           `json:"preview"`
	MaxLineChars *Num              `json:"maxLineChars"`
	MergeStderr  bool              `json:"mergeStderr"`
	Clean        *bool             `json:"clean"`
}

// ExecResult is exec's result: the command's end, its two streams and a
// notice for the model.
type ExecResult struct {
	*exec.Result
	Notice *string `json:"notice"`
}

// spec checks p and turns it into what the runner needs.
func (p *execParams) spec(s *Session) (exec.Spec, error) {
	var spec exec.Spec
	switch {
	case p.Command != nil && p.Argv != nil:
		return spec, rpc.InvalidParams("command", "give command or argv, not both")
	case p.Command != nil:
		if strings.TrimSpace(*p.Command) == "" {
			return spec, rpc.InvalidParams("command", "empty")
		}
		spec.Command = *p.Command
	case len(p.Argv) > 0:
		if p.Argv[0] == "" {
			return spec, rpc.InvalidParams("argv", "argv[0] is empty")
		}
		spec.Argv = p.Argv
	default:
		return spec, rpc.InvalidParams("command", "required: a command string, or argv")
	}
	spec.Dir = s.Cwd
	if p.Cwd != "" {
		spec.Dir = p.Cwd
		if !filepath.IsAbs(spec.Dir) {
			spec.Dir = filepath.Join(s.Cwd, spec.Dir)
		}
	}
	spec.Env = s.EnvList(p.Env)
	spec.Stdin = p.Stdin
	l := s.Limits.Exec
	timeout, err := count("timeoutMs", p.TimeoutMs, l.TimeoutMs, 0, MaxExecTimeoutMs)
	if err != nil {
		return spec, err
	}
	if timeout == 0 {
		timeout = MaxExecTimeoutMs // 0 asks for no timeout: the cap is the most there is
	}
	spec.Timeout = time.Duration(timeout) * time.Millisecond
	o := &spec.Output
	if o.MaxLines, err = intCount("maxLines", p.MaxLines, l.MaxLines, 1, MaxExecLines); err != nil {
		return spec, err
	}
	if o.MaxBytes, err = intCount("maxBytes", p.MaxBytes, l.MaxBytes, 1, MaxExecBytes); err != nil {
		return spec, err
	}
	if o.MaxLineChars, err = intCount("maxLineChars", p.MaxLineChars, s.Limits.Read.MaxLineChars, 0, 1<<30); err != nil {
		return spec, err
	}
	o.Preview = "headTail"
	if p.Preview != nil {
		switch *p.Preview {
		case "headTail", "head", "tail":
			o.Preview = *p.Preview
		default:
			return spec, rpc.InvalidParams("preview", `must be "headTail", "head" or "tail", got %q`, *p.Preview)
		}
	}
	o.Clean = p.Clean == nil || *p.Clean
	spec.MergeStderr = p.MergeStderr
	return spec, nil
}

// Exec answers exec: runs a command and previews its output, spooling it
// whole to the session's directory when anything was cut.
func (svc *Service) Exec(ctx context.Context, s *Session, params []byte) (any, error) {
	var p execParams
	if err := rpc.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	spec, err := p.spec(s)
	if err != nil {
		return nil, err
	}
	if s.Spool != nil {
		spec.Spool = func(stream string) (exec.SpoolFile, error) { return s.Spool.Create(stream) }
	}
	if fi, err := os.Stat(spec.Dir); err != nil || !fi.IsDir() {
		return nil, rpc.Errorf(rpc.CodeStartFailed, map[string]string{"path": spec.Dir},
			"cannot start the command: cwd %s is not a directory", spec.Dir)
	}
	stop := execProgress(ctx, &spec)
	res, err := svc.Runner.Run(ctx, spec)
	stop()
	if err != nil {
		if errors.Is(err, exec.ErrStart) {
			var data any
			if len(spec.Argv) > 0 {
				data = map[string]string{"path": spec.Argv[0]}
			}
			return nil, rpc.Errorf(rpc.CodeStartFailed, data, "cannot start the command: %v", err)
		}
		return nil, err
	}
	return &ExecResult{Result: res, Notice: execNotice(res, spec.Timeout)}, nil
}

// execNotice says in one line how the command ended, when that is not
// plain, and what each stream left out and where to find it.
func execNotice(r *exec.Result, timeout time.Duration) *string {
	var parts []string
	switch {
	case r.TimedOut:
		parts = append(parts, fmt.Sprintf("Timed out after %s: the command's process group was killed", timeout))
	case r.Cancelled:
		parts = append(parts, "Cancelled: the command's process group was killed")
	case r.Signal != nil:
		parts = append(parts, "Killed by "+*r.Signal)
	}
	for _, st := range []struct {
		name string
		s    *exec.Stream
	}{{"stdout", &r.Stdout}, {"stderr", &r.Stderr}} {
		if p := streamNotice(st.name, st.s); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return nil
	}
	s := "[" + strings.Join(parts, ". ") + "]"
	return &s
}

func streamNotice(name string, s *exec.Stream) string {
	var p string
	switch {
	case s.Binary && s.Spool != nil && s.SpoolError == "":
		return fmt.Sprintf("%s is binary (%s): not shown; the raw bytes are in %s", name, truncate.Size(s.TotalBytes), s.Spool.Path)
	case s.Binary:
		p = fmt.Sprintf("%s is binary (%s): not shown", name, truncate.Size(s.TotalBytes))
	case s.Omitted != nil:
		p = fmt.Sprintf("%s: %d lines, %s; lines %d-%d (%s) omitted", name, s.TotalLines, truncate.Size(s.TotalBytes),
			s.Omitted.FromLine, s.Omitted.ToLine, truncate.Size(s.Omitted.Bytes))
	case s.ClippedLines > 0:
		p = fmt.Sprintf("%s: %d line(s) clipped", name, s.ClippedLines)
	}
	switch {
	case s.SpoolError != "":
		if p == "" {
			p = name
		}
		p += "; the full output could not be kept: " + s.SpoolError
	case s.Spool != nil && p != "":
		if s.Omitted != nil {
			p += fmt.Sprintf("; read them with page spool=%s offset=%d", s.Spool.ID, s.Omitted.FromLine)
		} else {
			p += fmt.Sprintf("; all of it is in page spool=%s", s.Spool.ID)
		}
		if s.Spool.Capped {
			p += fmt.Sprintf(" (the spool stops at %s)", truncate.Size(s.Spool.Bytes))
		}
	}
	return p
}
