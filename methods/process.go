package methods

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/toold/toold/exec"
	"github.com/toold/toold/highlight"
	"github.com/toold/toold/notice"
	"github.com/toold/toold/preview"
	"github.com/toold/toold/process"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
	"github.com/toold/toold/spool"
	"github.com/toold/toold/truncate"
)

// procParams decodes a process method's params and finds the process of
// the session that id names in them.
func procParams[P any](s *Session, params []byte, id func(*P) string) (*P, *process.Proc, error) {
	p := new(P)
	if err := rpc.DecodeParams(params, p); err != nil {
		return nil, nil, err
	}
	pr, err := proc(s, id(p))
	return p, pr, err
}

// proc returns the session's process id names.
func proc(s *Session, id string) (*process.Proc, error) {
	if id == "" {
		return nil, rpc.InvalidParams("id", "required: a process id from exec (yieldMs or background) or process/list")
	}
	if s.Procs == nil {
		return nil, rpc.Errorf(rpc.CodeInternalError, nil, "internal error: the session has no process table")
	}
	p, err := s.Procs.Get(id)
	if err != nil {
		return nil, rpc.Errorf(protocol.CodeNoSuchFile, protocol.ProcessData{Process: id},
			"no such process: %s (ids belong to the session that started them; process/list shows them)", id)
	}
	return p, nil
}

// untilExit is execBackground's yield for a command that exec answers for
// at its exit, unless it waits for input first (tty without yieldMs).
const untilExit time.Duration = -1

// execBackground runs spec as a background process and answers exec after
// yield (untilExit: none), at its exit or when it waits for input,
// whichever comes first.
func (svc *Service) execBackground(ctx context.Context, s *Session, p *protocol.ExecParams, spec exec.Spec, yield time.Duration) (any, error) {
	if s.Procs == nil {
		return nil, rpc.Errorf(rpc.CodeInternalError, nil, "internal error: the session has no process table")
	}
	// A background process runs until it ends or is ended; a command exec
	// waits for has its timeout until exec has answered for it.
	untimed := make(chan struct{})
	if p.TimeoutMs == nil {
		if yield == untilExit {
			spec.Untimed = untimed
		} else {
			spec.Timeout = 0
		}
	}
	stdin := spec.Stdin
	spec.Stdin = nil
	start := time.Now()
	pr, err := s.Procs.Start(spec, commandLine(&spec), stdin)
	switch {
	case errors.Is(err, process.ErrLimit):
		return nil, rpc.Errorf(rpc.CodeInvalidParams, map[string]string{"field": "yieldMs"}, "invalid params: yieldMs: %v", err)
	case errors.Is(err, process.ErrTerminals):
		return nil, rpc.Errorf(rpc.CodeInvalidParams, map[string]string{"field": "tty"}, "invalid params: tty: %v", err)
	case err != nil:
		return nil, startError(err, &spec)
	}
	stop := meterProgress(ctx, &pr.Meter)
	if yield != 0 {
		u := process.Until{Timeout: max(yield, 0)}
		switch reason, err := pr.Wait(ctx, u); {
		case err != nil:
			pr.Kill(context.Background(), 0) // the caller never learned its id
		case reason == process.ReasonExit:
			<-pr.Done() // its result is in; Done follows at once
		}
	}
	stop()
	if !pr.Running() {
		s.Procs.Forget(pr.ID)
		out := exitResult(pr.Result(), &spec, s.Settings)
		for _, st := range []*protocol.Stream{&out.Stdout, &out.Stderr} {
			if !st.Truncated && st.ClippedLines == 0 && !st.Binary && st.Spool != nil &&
				st.TotalBytes <= int64(preview.KeepBytes(spec.Output.MaxBytes)) {
				// Shown whole: the spool written for a reader is not
				// needed, and output shown whole writes no file. (Past
				// what exec keeps in memory it keeps the spool, as exec
				// does: a line redrawn a million times is shown as its
				// last state, its raw bytes are in the spool.)
				s.Spool.Delete(st.Spool.ID)
				st.Spool = nil
			}
		}
		return out, nil
	}
	close(untimed) // it is the caller's to answer or end now
	o, err := pr.Read(nil, preview.KeepBytes(spec.Output.MaxBytes), &spec.Output)
	if err != nil {
		return nil, outputError(pr.ID, err)
	}
	stdout, outErrs := svc.spanStream(ctx, s, &o.Stdout, spec.Output, o.Result != nil)
	stderr, errErrs := svc.spanStream(ctx, s, &o.Stderr, spec.Output, o.Result != nil)
	out := &protocol.ExecResult{
		DurationMs: time.Since(start).Milliseconds(),
		Stdout:     stdout,
		Stderr:     stderr,
		Process:    &pr.ID,
	}
	if o.Result != nil { // it exited just now: still readable as a process
		out.ExitCode, out.Signal = o.Result.ExitCode, o.Result.Signal
	} else {
		out.WaitingForInput = toWaiting(pr.WaitingForInput())
	}
	n := notice.ExecRunning(notice.ExecFacts{Result: out, StdoutErrors: outErrs, StderrErrors: errErrs, TTY: pr.TTY, ToolNames: s.ToolNames,
		Sandbox: sandboxDenial(spec.Sandbox, spec.Dir, &out.Stdout, &out.Stderr)}, max(yield, 0))
	out.Notice = &n
	return out, nil
}

// commandLine is how process/list shows a command.
func commandLine(spec *exec.Spec) string {
	if spec.Command != "" {
		return spec.Command
	}
	return strings.Join(spec.Argv, " ")
}

// spanStream previews a span of a process's output as exec previews a
// stream, with the spool's line numbers, and reports whether a shown
// highlight is an error. complete says the output has ended: the span's
// last line is whole even without its newline.
func (svc *Service) spanStream(ctx context.Context, s *Session, sp *process.Span, o truncate.PreviewOptions, complete bool) (protocol.Stream, bool) {
	have := sp.To - sp.From - sp.Lost
	w := protocol.Stream{TotalBytes: sp.To - sp.From, TotalLines: sp.Lines, Highlights: []protocol.Highlight{}, Kinds: []protocol.Kind{}}
	shift := sp.FirstLine - 1 // a span's line k is the spool's line k+shift
	errs := false
	if have > 0 && truncate.IsBinary(sp.Head) {
		w.Binary, w.Truncated = true, true
		w.Omitted = &protocol.Omitted{FromLine: sp.FirstLine, ToLine: sp.FirstLine + sp.Lines - 1, Bytes: have}
	} else if have > 0 {
		var pr preview.Result
		out := truncate.Output{Prefix: sp.Head, Suffix: sp.Tail, TotalBytes: have, TotalLines: sp.Lines}
		if sc := sp.Scan; sc != nil {
			out.Known = sc.Known
			lines := func(from, to int64) []byte {
				b, err := svc.spoolLines(ctx, s, sp.SpoolID, from+shift, to+shift)
				if err != nil {
					return nil
				}
				return b
			}
			found := sc.Found
			found.Groups = spanLines(found.Groups, sp.MidLine, !complete && sp.Tail[len(sp.Tail)-1] != '\n', sp.Lines)
			pr = preview.Found(out, found, lines, o)
		} else {
			pr.PreviewResult = out.Preview(nil, o)
		}
		w.Head, w.Tail = pr.Head, pr.Tail
		w.ShownLines, w.ShownBytes, w.ClippedLines, w.Truncated = pr.ShownLines, pr.ShownBytes, pr.ClippedLines, pr.Truncated
		if om := pr.Omitted; om != nil {
			w.Omitted = &protocol.Omitted{FromLine: om.FromLine + shift, ToLine: om.ToLine + shift, Bytes: om.Bytes}
		}
		for _, h := range pr.Highlights {
			w.Highlights = append(w.Highlights, protocol.Highlight{FromLine: h.FromLine + shift, ToLine: h.ToLine + shift, Text: h.Text, Reason: h.Reason, Rank: h.Rank})
		}
		w.HighlightsOmitted, errs = pr.HighlightsOmitted, pr.Errors
		w.Kinds = toKinds(pr.Kinds, shift)
	}
	if (w.Truncated || w.ClippedLines > 0 || sp.Lost > 0) && sp.SpoolID != "" {
		w.Spool = &protocol.SpoolRef{ID: sp.SpoolID, Path: sp.SpoolPath, Bytes: sp.To - sp.Lost, Capped: sp.Lost > 0}
	}
	return w, errs
}

// spanLines drops from groups a span's partial lines, which the spool
// numbers as whole ones: the first when the span began inside it, the
// last, lines of them, while more of it may come. Head and tail show them.
func spanLines(gs []highlight.Group, first, last bool, lines int64) []highlight.Group {
	out := gs[:0:0]
	for _, g := range gs {
		if first && g.FromLine == 1 && len(g.Lines) > 0 {
			g.FromLine, g.Lines = 2, g.Lines[1:]
		}
		if last && g.ToLine == lines && len(g.Lines) > 0 {
			g.ToLine, g.Lines = lines-1, g.Lines[:len(g.Lines)-1]
		}
		if len(g.Lines) == 0 {
			continue
		}
		g.Hit = min(max(g.Hit, g.FromLine), g.ToLine)
		out = append(out, g)
	}
	return out
}

// processOutput reads pr's output since the cursor and shapes the result of
// process/read (reason "") or process/wait.
func (svc *Service) processOutput(ctx context.Context, s *Session, pr *process.Proc, since *process.Cursor, o truncate.PreviewOptions, reason string, timeout time.Duration) (*protocol.ProcessOutput, error) {
	out, err := pr.Read(since, preview.KeepBytes(o.MaxBytes), &o)
	if errors.Is(err, process.ErrCursor) {
		return nil, rpc.InvalidParams("since", "%v", err)
	}
	if err != nil {
		return nil, outputError(pr.ID, err)
	}
	stdout, outErrs := svc.spanStream(ctx, s, &out.Stdout, o, out.Result != nil)
	stderr, errErrs := svc.spanStream(ctx, s, &out.Stderr, o, out.Result != nil)
	r := &protocol.ProcessOutput{
		ID:      pr.ID,
		Stdout:  stdout,
		Stderr:  stderr,
		Since:   out.From.String(),
		Cursor:  out.To.String(),
		Running: out.Result == nil,
		Reason:  reason,
	}
	if res := out.Result; res != nil {
		r.ExitCode, r.Signal = res.ExitCode, res.Signal
	} else {
		r.WaitingForInput = toWaiting(pr.WaitingForInput())
	}
	n := notice.Process(notice.ProcessFacts{Out: r, Timeout: timeout, LostStdout: out.Stdout.Lost, LostStderr: out.Stderr.Lost, TTY: pr.TTY,
		ToolNames: s.ToolNames, StdoutErrors: outErrs, StderrErrors: errErrs, Sandbox: sandboxDenial(s.SandboxPolicy(), s.Cwd, &r.Stdout, &r.Stderr)})
	r.Notice = &n
	return r, nil
}

// fittedOutput is processOutput fitted to the rendered size p asks for
// (protocol.RenderParams).
func (svc *Service) fittedOutput(ctx context.Context, s *Session, p *protocol.OutputParams, pr *process.Proc, since *process.Cursor, o truncate.PreviewOptions, reason string, timeout time.Duration) (*protocol.ProcessOutput, error) {
	budget, err := renderBudget(p.Render)
	if err != nil {
		return nil, err
	}
	r, err := svc.processOutput(ctx, s, pr, since, o, reason, timeout)
	if err == nil {
		fitProcess(r, budget)
	}
	return r, err
}

// outputError is -32002 for a process whose spool a command replaced (a
// symlink, a FIFO, another file in its place: never read), else err.
func outputError(id string, err error) error {
	if errors.Is(err, spool.ErrReplaced) {
		return rpc.Errorf(protocol.CodeAccessDenied, protocol.ProcessData{Process: id}, "access denied: process %s: %v", id, err)
	}
	return err
}

// ProcessRead answers process/read: the output since the cursor.
func (svc *Service) ProcessRead(ctx context.Context, s *Session, params []byte) (any, error) {
	p, pr, err := procParams(s, params, func(p *protocol.ProcessReadParams) string { return p.ID })
	if err != nil {
		return nil, err
	}
	o, err := previewOptions(&p.OutputParams, s)
	if err != nil {
		return nil, err
	}
	var since *process.Cursor
	if p.Since != nil {
		c, err := process.ParseCursor(*p.Since)
		if err != nil {
			return nil, rpc.InvalidParams("since", "%v", err)
		}
		since = &c
	}
	return svc.fittedOutput(ctx, s, &p.OutputParams, pr, since, o, "", 0)
}

// ProcessWait answers process/wait: it returns at the process's exit, at a
// line that matches until.pattern, after until.idleMs without output or at
// timeoutMs, with the output that came since the last read.
func (svc *Service) ProcessWait(ctx context.Context, s *Session, params []byte) (any, error) {
	p, pr, err := procParams(s, params, func(p *protocol.ProcessWaitParams) string { return p.ID })
	if err != nil {
		return nil, err
	}
	o, err := previewOptions(&p.OutputParams, s)
	if err != nil {
		return nil, err
	}
	var u process.Until
	timeout, err := count("timeoutMs", p.TimeoutMs, protocol.DefaultWaitTimeoutMs, 0, protocol.MaxExecTimeoutMs)
	if err != nil {
		return nil, err
	}
	u.Timeout = time.Duration(timeout) * time.Millisecond
	if p.Until != nil {
		if p.Until.Pattern != nil {
			if u.Pattern, err = regexp.Compile(*p.Until.Pattern); err != nil {
				return nil, rpc.InvalidParams("until.pattern", "not an RE2 expression: %v", err)
			}
		}
		idle, err := count("until.idleMs", p.Until.IdleMs, 0, 0, protocol.MaxExecTimeoutMs)
		if err != nil {
			return nil, err
		}
		u.Idle = time.Duration(idle) * time.Millisecond
	}
	stop := meterProgress(ctx, &pr.Meter)
	reason, err := pr.Wait(ctx, u)
	stop()
	if err != nil {
		return nil, outputError(pr.ID, err)
	}
	return svc.fittedOutput(ctx, s, &p.OutputParams, pr, nil, o, reason, u.Timeout)
}

// ProcessWrite answers process/write: input on the process's stdin.
func (svc *Service) ProcessWrite(ctx context.Context, s *Session, params []byte) (any, error) {
	p, pr, err := procParams(s, params, func(p *protocol.ProcessWriteParams) string { return p.ID })
	if err != nil {
		return nil, err
	}
	if p.Cols != nil || p.Rows != nil {
		if err := resize(pr, p); err != nil {
			return nil, err
		}
		if p.Stdin == "" && !p.Close {
			return &protocol.ProcessWriteResult{}, nil
		}
	}
	wait := protocol.MaxWriteWaitMs * time.Millisecond
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	n, err := pr.Write(wctx, p.Stdin, p.Close)
	res := &protocol.ProcessWriteResult{Written: n}
	switch {
	case errors.Is(err, process.ErrExited), errors.Is(err, process.ErrStdinClosed):
		return nil, rpc.Errorf(rpc.CodeInvalidParams, protocol.ProcessData{Process: p.ID}, "invalid params: id: process %s: %v", p.ID, err)
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		msg := notice.WriteShort(n, len(p.Stdin), wait)
		res.Notice = &msg
	case err != nil:
		return nil, err
	}
	return res, nil
}

// ProcessKill answers process/kill: it ends the process's group and returns
// how it ended.
func (svc *Service) ProcessKill(ctx context.Context, s *Session, params []byte) (any, error) {
	p, pr, err := procParams(s, params, func(p *protocol.ProcessKillParams) string { return p.ID })
	if err != nil {
		return nil, err
	}
	sig := syscall.SIGTERM
	if p.Signal != nil {
		if sig, err = parseSignal(string(*p.Signal)); err != nil {
			return nil, err
		}
	}
	if _, err := pr.Kill(ctx, sig); err != nil {
		return nil, err
	}
	return info(pr), nil
}

// parseSignal reads a signal's name (SIGINT, INT, any case) or number.
func parseSignal(s string) (syscall.Signal, error) {
	if n, err := strconv.Atoi(s); err == nil && n > 0 && n < 65 {
		return syscall.Signal(n), nil
	}
	name := strings.ToUpper(s)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	if sig := unix.SignalNum(name); sig != 0 {
		return sig, nil
	}
	return 0, rpc.InvalidParams("signal", "%q is not a signal: give a name such as SIGINT or a number", s)
}

func info(pr *process.Proc) protocol.ProcessInfo {
	in := protocol.ProcessInfo{ID: pr.ID, Command: pr.Command, Running: true, StartedMs: pr.StartedAt.UnixMilli(), TTY: pr.TTY}
	if res := pr.Result(); res != nil {
		in.Running, in.ExitCode, in.Signal = false, res.ExitCode, res.Signal
	} else {
		in.WaitingForInput = toWaiting(pr.WaitingForInput())
	}
	return in
}

// ProcessList answers process/list: the session's processes, oldest first.
func (svc *Service) ProcessList(ctx context.Context, s *Session, params []byte) (any, error) {
	if err := rpc.DecodeParams(params, &struct{}{}); err != nil {
		return nil, err
	}
	out := []protocol.ProcessInfo{}
	if s.Procs == nil {
		return out, nil
	}
	for _, in := range s.Procs.List() {
		out = append(out, protocol.ProcessInfo{ID: in.ID, Command: in.Command, Running: in.Running,
			ExitCode: in.ExitCode, Signal: in.Signal, StartedMs: in.StartedAt.UnixMilli(), TTY: in.TTY,
			WaitingForInput: toWaiting(in.Waiting)})
	}
	return out, nil
}
