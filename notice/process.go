package notice

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/toold/toold/protocol"
)

// ExecRunning is the notice of an exec that still runs when its yield is
// over: it has become background process f.Result.Process. Then it says
// what each stream left out so far, as Exec does.
func ExecRunning(f ExecFacts, yield time.Duration) string {
	if w := f.Result.WaitingForInput; w != nil {
		parts := []string{Waiting(WaitingFacts{ID: *f.Result.Process, TTY: f.TTY, Waiting: w, ToolNames: f.ToolNames}, true)}
		parts = append(parts, streamParts(f)...)
		return "[" + strings.Join(parts, ". ") + "]"
	}
	parts := []string{fmt.Sprintf("Still running after %s as process %s: %s waits for it (its exit, a line matching until.pattern, or until.idleMs without output), "+
		"%s reads what it prints next, %s answers a prompt, %s ends it",
		yield, *f.Result.Process, Method(protocol.MethodProcessWait, f.ToolNames), Method(protocol.MethodProcessRead, f.ToolNames),
		Method(protocol.MethodProcessWrite, f.ToolNames), Method(protocol.MethodProcessKill, f.ToolNames))}
	parts = append(parts, streamParts(f)...)
	if s := Sandbox(f.Sandbox); s != "" {
		parts = append(parts, s)
	}
	return "[" + strings.Join(parts, ". ") + "]"
}

// ProcessFacts are what the notice of process/read or process/wait is
// made from.
type ProcessFacts struct {
	// Out is the wire result; its Notice is ignored.
	Out *protocol.ProcessOutput
	// Timeout is the wait's timeout, for ReasonTimeout.
	Timeout time.Duration
	// LostStdout and LostStderr count new bytes the spool could not keep
	// (past its cap): counted, not shown.
	LostStdout, LostStderr int64
	// StdoutErrors and StderrErrors are set when a shown highlight of the
	// stream is an error (else its highlights are warnings).
	StdoutErrors, StderrErrors bool
	// Sandbox is what the new output shows the session's sandbox refused;
	// nil when nothing.
	Sandbox *SandboxDenial
	// TTY is set for a process on a terminal of its own.
	TTY bool
	// ToolNames names the methods as toold mcp's tools (Method).
	ToolNames bool
}

// Process returns the notice of a process's new output: how the wait
// ended when that is worth saying, the process's state, and what each
// stream left out and where to find it.
func Process(f ProcessFacts) string {
	o := f.Out
	var parts []string
	if o.Reason == protocol.ReasonTimeout {
		parts = append(parts, fmt.Sprintf("Waited %s: the process neither exited nor met until", f.Timeout))
	}
	switch {
	case o.Running && o.WaitingForInput != nil:
		parts = append(parts, Waiting(WaitingFacts{ID: o.ID, TTY: f.TTY, Waiting: o.WaitingForInput, ToolNames: f.ToolNames}, false))
	case o.Running:
		parts = append(parts, fmt.Sprintf("Process %s is running; %s or %s again goes on from cursor=%s", o.ID,
			Method(protocol.MethodProcessRead, f.ToolNames), Method(protocol.MethodProcessWait, f.ToolNames), o.Cursor))
	case o.Signal != nil:
		parts = append(parts, fmt.Sprintf("Process %s was killed by %s", o.ID, *o.Signal))
	case o.ExitCode != nil:
		parts = append(parts, fmt.Sprintf("Process %s exited with code %d", o.ID, *o.ExitCode))
	}
	for _, s := range []struct {
		name string
		st   *protocol.Stream
		lost int64
		errs bool
	}{{"stdout", &o.Stdout, f.LostStdout, f.StdoutErrors}, {"stderr", &o.Stderr, f.LostStderr, f.StderrErrors}} {
		p := stream(s.name, s.st, "", s.errs, nil, false)
		if s.lost > 0 {
			if p == "" {
				p = s.name
			}
			p += fmt.Sprintf("; %s past the spool's cap were counted, not kept", Size(s.lost))
		}
		if p != "" {
			parts = append(parts, p)
		}
	}
	if s := Sandbox(f.Sandbox); s != "" {
		parts = append(parts, s)
	}
	return "[" + strings.Join(parts, ". ") + "]"
}

// WriteShort is the notice of a process/write that the process did not
// read in full in time.
func WriteShort(written, total int, wait time.Duration) string {
	return fmt.Sprintf("[The process read %d of %d bytes within %s and its stdin is full: write the rest once it reads on]", written, total, wait)
}

// ProcessState says in a few words where a process is and, for a wait,
// why it returned: the first line of process/read and process/wait
// rendered for a model.
func ProcessState(o *protocol.ProcessOutput) string {
	var s string
	switch {
	case o.Running && o.WaitingForInput != nil:
		s = "process " + o.ID + " waiting for input"
	case o.Running:
		s = "process " + o.ID + " running"
	case o.Signal != nil:
		s = "process " + o.ID + " killed by " + *o.Signal
	case o.ExitCode != nil:
		s = fmt.Sprintf("process %s exited, status %d", o.ID, *o.ExitCode)
	default:
		s = "process " + o.ID + " ended"
	}
	if o.Reason != "" {
		s += " (wait ended: " + o.Reason + ")"
	}
	return s
}

// ExecProgressMessage is an exec's progress as an MCP progress message.
func ExecProgressMessage(p *protocol.ExecProgress) string {
	s := fmt.Sprintf("%.1fs: stdout %d %s, stderr %d %s", float64(p.ElapsedMs)/1000,
		p.Stdout.Lines, plural(int(p.Stdout.Lines), "line", "lines"), p.Stderr.Lines, plural(int(p.Stderr.Lines), "line", "lines"))
	if p.LastLine != "" {
		s += ": " + p.LastLine
	}
	return s
}

// IndexProgressMessage is an index build's progress as an MCP progress
// message.
func IndexProgressMessage(p *protocol.IndexProgress) string {
	return fmt.Sprintf("indexing lines: %s of %s", Size(p.BytesDone), Size(p.BytesTotal))
}

// Method is method as a notice names it: as toold mcp's tool (process/read
// is the tool process_read: MCP tool names allow no "/") when toolNames,
// else as the JSON-RPC method. The others are named alike in both. The
// reader's names are a fact a notice is composed with, so that no caller
// rewrites a notice written for the other.
func Method(method string, toolNames bool) string {
	if toolNames {
		return strings.ReplaceAll(method, "/", "_")
	}
	return method
}

// ProcessLine is one process of process/list rendered for a model: its id,
// its state, when it started and its command.
func ProcessLine(p protocol.ProcessInfo) string {
	state := "running"
	switch {
	case p.Running && p.WaitingForInput != nil:
		state = "waiting for input"
		if w := p.WaitingForInput; strings.TrimSpace(w.Prompt) != "" {
			state += " at " + strconv.Quote(w.Prompt)
		}
	case p.Running:
	case p.Signal != nil:
		state = "killed by " + *p.Signal
	case p.ExitCode != nil:
		state = fmt.Sprintf("exited, status %d", *p.ExitCode)
	default:
		state = "ended"
	}
	if p.TTY {
		state += " (tty)"
	}
	started := time.UnixMilli(p.StartedMs).UTC().Format("2006-01-02 15:04:05Z")
	return fmt.Sprintf("%s  %s  started %s  %s", p.ID, state, started, p.Command)
}

// Written is toold mcp's text for process/write: how many bytes went to
// the process's stdin.
func Written(n int) string {
	return fmt.Sprintf("[Wrote %d %s to the process's stdin]", n, plural(n, "byte", "bytes"))
}

// NoProcesses is process/list's text for a session with none.
const NoProcesses = "[No background processes in this session: exec with background: true or yieldMs starts one]"
