package notice

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toold/toold/protocol"
)

// WaitingFacts are what the notice of a process that waits for input is
// made from.
type WaitingFacts struct {
	ID string
	// TTY is set for a process on a terminal of its own.
	TTY     bool
	Waiting *protocol.WaitingForInput
	// ToolNames names the methods as toold mcp's tools (Method).
	ToolNames bool
}

// Waiting says that a process waits for input, shows its prompt and how
// to answer it; exec's result (fromExec) says it returned for it. The
// prompt is output the process wrote: nothing written to it is repeated.
func Waiting(f WaitingFacts, fromExec bool) string {
	w := f.Waiting
	s := "Process " + f.ID + " waits for input"
	if fromExec {
		s = "Waiting for input: the command runs on as process " + f.ID
	}
	if p := strings.TrimSpace(w.Prompt); p != "" {
		s += "; its prompt: " + strconv.Quote(w.Prompt)
	}
	if !w.Echo {
		s += ". Its terminal does not echo (a password prompt): what you write will not show in its output"
	}
	s += fmt.Sprintf(". Answer with %s id=%s stdin=\"...\\n\"", Method(protocol.MethodProcessWrite, f.ToolNames), f.ID)
	if f.TTY {
		s += " (typed into its terminal: \\n is Enter, \\u0003 interrupts, \\u0004 ends input; q quits a pager)"
	} else {
		s += " (close: true ends its input)"
	}
	return s + fmt.Sprintf("; %s then returns at its next prompt, its exit or a line matching until.pattern; %s ends it",
		Method(protocol.MethodProcessWait, f.ToolNames), Method(protocol.MethodProcessKill, f.ToolNames))
}

// NeedsTerminal is the sentence for a command whose output (line) says it
// wanted a terminal and ran without one; toolNames as in Method.
func NeedsTerminal(line string, toolNames bool) string {
	const max = 160
	if r := []rune(line); len(r) > max {
		line = string(r[:max]) + "…"
	}
	return fmt.Sprintf("The command wanted a terminal (%s): run it again with tty: true, and answer its prompts with %s",
		strconv.Quote(line), Method(protocol.MethodProcessWrite, toolNames))
}
