package notice

import (
	"fmt"

	"github.com/toold/toold/protocol"
)

// The lines below are those toold mcp writes around a result's own text.

// Ended says in a word or two how a command ended, the first line of an
// exec rendered for a model.
func Ended(r *protocol.ExecResult) string {
	switch {
	case r.Process != nil && r.ExitCode == nil && r.Signal == nil && r.WaitingForInput != nil:
		return "waiting for input as process " + *r.Process
	case r.Process != nil && r.ExitCode == nil && r.Signal == nil:
		return "still running as process " + *r.Process
	case r.TimedOut:
		return "timed out"
	case r.Cancelled:
		return "cancelled"
	case r.Signal != nil:
		return "killed by " + *r.Signal
	case r.ExitCode != nil:
		return fmt.Sprintf("exit status %d", *r.ExitCode)
	}
	return "ended"
}

// StreamHeader heads a stream's output.
func StreamHeader(name string) string {
	return fmt.Sprintf("--- %s ---", name)
}

// BinaryOutput stands for a stream's binary output; spool is "" when none
// keeps it.
func BinaryOutput(totalBytes int64, spool string) string {
	s := fmt.Sprintf("[binary output, %s: not shown", Size(totalBytes))
	if spool != "" {
		s += fmt.Sprintf("; the bytes are in spool=%s", spool)
	}
	return s + "]"
}

// OmittedLines stands for the lines a stream's preview left out; spool is ""
// when none keeps them.
func OmittedLines(o *protocol.Omitted, spool string) string {
	s := fmt.Sprintf("[... lines %d-%d omitted (%s)", o.FromLine, o.ToLine, Size(o.Bytes))
	if spool != "" {
		s += fmt.Sprintf("; page spool=%s offset=%d to read them", spool, o.FromLine)
	}
	return s + " ...]"
}

// HighlightReason heads a highlight's lines in a stream's text: why the
// preview shows them (protocol.Highlight.Reason); "" for none.
func HighlightReason(h protocol.Highlight) string {
	why, ok := map[string]string{
		protocol.HighlightError:   "an error",
		protocol.HighlightWarning: "a warning",
		protocol.HighlightExit:    "what came before the failure",
		protocol.HighlightRare:    "unusual here: a shape seen once or twice among repeats",
	}[h.Reason]
	if !ok {
		return ""
	}
	if h.FromLine == h.ToLine {
		return fmt.Sprintf("[line %d: %s]", h.FromLine, why)
	}
	return fmt.Sprintf("[lines %d-%d: %s]", h.FromLine, h.ToLine, why)
}

// OmittedGap stands for lines from..to that a stream's preview left out
// between its highlights (their size is not known apart).
func OmittedGap(from, to int64, spool string) string {
	s := fmt.Sprintf("[... lines %d-%d omitted", from, to)
	if spool != "" {
		s += fmt.Sprintf("; page spool=%s offset=%d to read them", spool, from)
	}
	return s + " ...]"
}

// DaemonError is a daemon's JSON-RPC error as a failed tool's text.
func DaemonError(code int64, message string) string {
	return fmt.Sprintf("error %d: %s", code, message)
}

// FittedResult ends a tool result that toold mcp cut to fit budget bytes,
// so that the client shows it whole: the lines it gave up are named above
// as omitted, with the page call that reads them.
func FittedResult(budget int) string {
	return fmt.Sprintf("[Cut to %s so that it reaches you whole: the omitted lines named above are in the spool; give maxBytes for more]", Size(int64(budget)))
}

// KindOfFailure names a kind of failure lines that a stream's preview found
// more of than it shows (protocol.Kind): how many lines have its shape and
// where the first and the last are, e.g. `[kind of failure: 41,233×
// "ERROR [db] <*> failed" lines 17-477600]`.
func KindOfFailure(k protocol.Kind) string {
	where := fmt.Sprintf("lines %d-%d", k.FirstLine, k.LastLine)
	if k.FirstLine == k.LastLine {
		where = fmt.Sprintf("line %d", k.FirstLine)
	}
	return fmt.Sprintf("[kind of failure: %s× %q %s]", grouped(k.Count), k.Text, where)
}

// grouped writes n with its digits in groups of three: 41,233.
func grouped(n int64) string {
	s := fmt.Sprint(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
