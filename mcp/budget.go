package mcp

import (
	"encoding/json"
	"fmt"

	"github.com/toold/toold/protocol"
)

// A tool result must reach the model whole: clients set long results aside
// (Claude Code saves one over ~50 KB to a file and shows its first 2 KB).
// So at toold mcp's default limits a result's text is at most
// protocol.MCPResultBytes: a call that gives no size in bytes gets sizes
// that fit (renderArgs), and the budget for its rendering
// (render.maxBytes), which the daemon fits the result to once. A call that
// gives maxBytes (find and ls: limit) gets what it asks for.

// sizes are a method's size params, and what toold mcp sends for them when
// a call gives none (0: the daemon's default).
var sizes = map[string]map[string]int{
	protocol.MethodExec:        {"maxBytes": protocol.MCPExecBytes, "maxLines": 0},
	protocol.MethodProcessRead: {"maxBytes": protocol.MCPExecBytes, "maxLines": 0},
	protocol.MethodProcessWait: {"maxBytes": protocol.MCPExecBytes, "maxLines": 0},
	protocol.MethodRead:        {"maxBytes": protocol.MCPWindowBytes, "limit": 0},
	protocol.MethodPage:        {"maxBytes": protocol.MCPWindowBytes, "limit": 0},
	protocol.MethodReadBytes:   {"maxBytes": protocol.MCPWindowBytes},
	protocol.MethodGrep:        {"maxBytes": protocol.MCPGrepBytes, "limit": 0},
	protocol.MethodFind:        {"limit": protocol.MCPEntries},
	protocol.MethodLs:          {"limit": protocol.MCPEntries},
}

// renderArgs gives args (a tool call's arguments) the params of toold
// mcp's rendering: the sizes it sends for method that the call did not
// give, and render.maxBytes, when the budget applies (budget > 0, the method
// has one and the call gave no size in bytes, maxBytes, or, for a method
// whose only size is a count, find and ls, gave none: a line or match
// count alone asks for more lines, not for more bytes); and for a read
// that gives no maxBytes, render.outlineOver, so that a large file read
// with no range is answered with its outline and first lines
// (protocol.RenderParams).
func renderArgs(method string, args map[string]json.RawMessage, budget int) {
	r := map[string]int{} // protocol.RenderParams
	if method == protocol.MethodRead && !given(args, "maxBytes") {
		r["outlineOver"] = protocol.MCPOutlineBytes
	}
	if budget > 0 && budgetApplies(method, args) {
		for name, v := range sizes[method] {
			if v > 0 && !given(args, name) {
				args[name] = json.RawMessage(fmt.Sprint(v))
			}
		}
		r["maxBytes"] = budget
	}
	if len(r) > 0 {
		b, _ := json.Marshal(r)
		args["render"] = b
	}
}

// budgetApplies reports whether method has a budget and args give none of
// its size in bytes (for find and ls, none of its sizes).
func budgetApplies(method string, args map[string]json.RawMessage) bool {
	defaults, ok := sizes[method]
	if !ok {
		return false
	}
	_, hasBytes := defaults["maxBytes"]
	for name := range defaults {
		if given(args, name) && (name == "maxBytes" || !hasBytes) {
			return false
		}
	}
	return true
}

// given reports whether args give name a value.
func given(args map[string]json.RawMessage, name string) bool {
	v, ok := args[name]
	return ok && string(v) != "null"
}
