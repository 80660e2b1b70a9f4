package methods

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/fileindex"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/spool"
	"github.com/toold/toold/truncate"
)

// toResult maps the runner's result to the wire's.
func toResult(r *exec.Result) *protocol.ExecResult {
	return &protocol.ExecResult{
		ExitCode: r.ExitCode, Signal: r.Signal, TimedOut: r.TimedOut, Cancelled: r.Cancelled,
		DurationMs: r.DurationMs, Stdout: toStream(&r.Stdout), Stderr: toStream(&r.Stderr),
	}
}

// toKinds maps the detector's kinds to the wire's, their lines shifted by
// shift; [] for none.
func toKinds(ks []exec.Kind, shift int64) []protocol.Kind {
	out := []protocol.Kind{}
	for _, k := range ks {
		out = append(out, protocol.Kind{Text: k.Text, Count: k.Count, FirstLine: k.FirstLine + shift, LastLine: k.LastLine + shift})
	}
	return out
}

func toStream(s *exec.Stream) protocol.Stream {
	w := protocol.Stream{
		Head: s.Head, Tail: s.Tail, TotalBytes: s.TotalBytes, TotalLines: s.TotalLines,
		ShownLines: s.ShownLines, ShownBytes: s.ShownBytes, ClippedLines: s.ClippedLines,
		Truncated: s.Truncated, Binary: s.Binary, Highlights: []protocol.Highlight{},
		HighlightsOmitted: s.HighlightsOmitted, Kinds: toKinds(s.Kinds, 0),
	}
	for _, h := range s.Highlights {
		w.Highlights = append(w.Highlights, protocol.Highlight{FromLine: h.FromLine, ToLine: h.ToLine, Text: h.Text, Reason: h.Reason, Rank: h.Rank})
	}
	if o := s.Omitted; o != nil {
		w.Omitted = &protocol.Omitted{FromLine: o.FromLine, ToLine: o.ToLine, Bytes: o.Bytes}
	}
	if sp := s.Spool; sp != nil {
		w.Spool = &protocol.SpoolRef{ID: sp.ID, Path: sp.Path, Bytes: sp.Bytes, Capped: sp.Capped}
	}
	return w
}

// spec checks p and turns it into what the runner needs.
func execSpec(p *protocol.ExecParams, s *Session) (exec.Spec, error) {
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
	extra := p.Env
	spec.Cgroup = s.Cgroup
	if pol := s.SandboxPolicy(); pol != nil {
		spec.Sandbox = pol
		extra = map[string]string{"TMPDIR": s.TmpDir}
		for k, v := range p.Env {
			extra[k] = v
		}
	}
	spec.Env = s.EnvList(extra)
	if err := ttySpec(p, s, &spec, extra); err != nil {
		return spec, err
	}
	spec.Stdin = p.Stdin
	l := s.Limits.Exec
	timeout, err := count("timeoutMs", p.TimeoutMs, l.TimeoutMs, 0, protocol.MaxExecTimeoutMs)
	if err != nil {
		return spec, err
	}
	if timeout == 0 {
		timeout = protocol.MaxExecTimeoutMs // 0 asks for no timeout: the cap is the most there is
	}
	spec.Timeout = time.Duration(timeout) * time.Millisecond
	if spec.Output, err = previewOptions(&p.OutputParams, s); err != nil {
		return spec, err
	}
	spec.MergeStderr = p.MergeStderr
	return spec, nil
}

// previewOptions checks the params that shape a preview of command output
// (exec's, and process/read's and process/wait's).
func previewOptions(p *protocol.OutputParams, s *Session) (truncate.PreviewOptions, error) {
	var o truncate.PreviewOptions
	var err error
	l := s.Limits.Exec
	if o.MaxLines, err = intCount("maxLines", p.MaxLines, l.MaxLines, 1, protocol.MaxExecLines); err != nil {
		return o, err
	}
	if o.MaxBytes, err = intCount("maxBytes", p.MaxBytes, l.MaxBytes, 1, protocol.MaxExecBytes); err != nil {
		return o, err
	}
	if o.MaxLineChars, err = intCount("maxLineChars", p.MaxLineChars, s.Limits.Read.MaxLineChars, 0, protocol.MaxLineChars); err != nil {
		return o, err
	}
	o.Mode = protocol.PreviewHeadTail
	if p.Preview != nil {
		if !slices.Contains(protocol.PreviewModes, *p.Preview) {
			return o, rpc.InvalidParams("preview", "must be %q, %q or %q, got %q",
				protocol.PreviewHeadTail, protocol.PreviewHead, protocol.PreviewTail, *p.Preview)
		}
		o.Mode = *p.Preview
	}
	o.Clean = p.Clean == nil || *p.Clean
	return o, nil
}

// Exec answers exec: runs a command and previews its output, spooling it
// whole to the session's directory when anything was cut.
func (svc *Service) Exec(ctx context.Context, s *Session, params []byte) (any, error) {
	var p protocol.ExecParams
	if err := rpc.DecodeParams(params, &p); err != nil {
		return nil, err
	}
	budget, err := renderBudget(p.OutputParams.Render)
	if err != nil {
		return nil, err
	}
	res, err := svc.exec(ctx, s, &p)
	if r, ok := res.(*protocol.ExecResult); ok {
		fitExec(r, budget)
	}
	return res, err
}

// exec runs the command of p: to its end, or as a background process.
func (svc *Service) exec(ctx context.Context, s *Session, p *protocol.ExecParams) (any, error) {
	spec, err := execSpec(p, s)
	if err != nil {
		return nil, err
	}
	if s.Spool != nil {
		spec.Spool = func(stream string) (exec.SpoolFile, error) { return s.Spool.Create(stream) }
		spec.Groups = s.Spool // for the sweep, should the daemon die first
		spec.ReadLines = func(id string, from, to int64) ([]byte, error) { return svc.spoolLines(ctx, s, id, from, to) }
	}
	if fi, err := os.Stat(spec.Dir); err != nil || !fi.IsDir() {
		return nil, rpc.Errorf(protocol.CodeStartFailed, map[string]string{"path": spec.Dir},
			"cannot start the command: cwd %s is not a directory", spec.Dir)
	}
	if p.YieldMs != nil || p.Background {
		yield, err := count("yieldMs", p.YieldMs, 0, 0, protocol.MaxExecTimeoutMs)
		if err != nil {
			return nil, err
		}
		return svc.execBackground(ctx, s, p, spec, time.Duration(yield)*time.Millisecond)
	}
	if spec.TTY != nil {
		// It may wait for input: run as a process, which exec leaves
		// running when it does, and answers for at its exit otherwise.
		return svc.execBackground(ctx, s, p, spec, untilExit)
	}
	stop := execProgress(ctx, &spec)
	res, err := svc.Runner.Run(ctx, spec)
	stop()
	if err != nil {
		return nil, startError(err, &spec)
	}
	return exitResult(res, &spec, s.Settings), nil
}

// exitResult maps the result of a command that has ended, with its notice;
// st are the session's settings, for the facts of its reader.
func exitResult(res *exec.Result, spec *exec.Spec, st *Settings) *protocol.ExecResult {
	out := toResult(res)
	if n := notice.Exec(notice.ExecFacts{Result: out, Timeout: spec.Timeout, SpoolsGone: st.SpoolsGone, ToolNames: st.ToolNames,
		StdoutSpoolError: res.Stdout.SpoolError, StderrSpoolError: res.Stderr.SpoolError,
		StdoutErrors: res.Stdout.HighlightErrors, StderrErrors: res.Stderr.HighlightErrors,
		StdoutClip: res.Stdout.Clip, StderrClip: res.Stderr.Clip,
		StdoutSkipped: res.Stdout.ScanSkipped, StderrSkipped: res.Stderr.ScanSkipped,
		Sandbox:       sandboxDenial(spec.Sandbox, spec.Dir, &out.Stdout, &out.Stderr),
		NeedsTerminal: needsTerminal(spec.TTY != nil, failed(out), &out.Stdout, &out.Stderr)}); n != "" {
		out.Notice = &n
	}
	return out
}

// startError is the error of a command that could not start (-32005, with
// the program's path when argv named it), or err itself.
func startError(err error, spec *exec.Spec) error {
	if !errors.Is(err, exec.ErrStart) {
		return err
	}
	var data any
	if len(spec.Argv) > 0 {
		data = map[string]string{"path": spec.Argv[0]}
	}
	return rpc.Errorf(protocol.CodeStartFailed, data, "cannot start the command: %v", err)
}

// maxEvidence bounds what readLines reads for one highlight's evidence.
const maxEvidence = 1 << 20

// spoolLines reads lines from..to of the session's spool id through the
// line index (which page then finds built): the evidence of a highlight
// that has left the detector's memory, such as a failed go test's log
// lines. The spool is opened by its id (spool.Dir.Open), never by path: a
// command may have swapped its spool for a symlink or a FIFO.
func (svc *Service) spoolLines(ctx context.Context, s *Session, id string, from, to int64) ([]byte, error) {
	if s.Spool == nil {
		return nil, spool.ErrNoSpool
	}
	osf, err := s.Spool.Open(id)
	if err != nil {
		return nil, err
	}
	f, err := svc.Files.OpenFile(ctx, osf.Name(), osf)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := f.Index(ctx); err != nil {
		return nil, err
	}
	if from < 1 || to < from || to > f.Lines() {
		return nil, fmt.Errorf("lines %d-%d of %d: %w", from, to, f.Lines(), fileindex.ErrOutOfRange)
	}
	start, err := f.LineStart(from)
	if err != nil {
		return nil, err
	}
	end, err := f.LineStart(to + 1)
	if err != nil {
		return nil, err
	}
	if end-start > maxEvidence {
		return nil, fmt.Errorf("lines %d-%d hold %d bytes, more than %d", from, to, end-start, maxEvidence)
	}
	buf := make([]byte, end-start)
	if _, err := f.ReadAt(buf, start); err != nil {
		return nil, err
	}
	return buf, nil
}
