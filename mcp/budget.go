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
// that fit (budgetArgs), and a result that still comes out longer is
// fitted: exec, the process tools (which cannot run again), grep, find and
// ls by the daemon (render.maxBytes); read, readBytes and page by a
// smaller call. A call that gives maxBytes
// (find and ls: limit) gets what it asks for.

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

// budgetArgs gives args (a tool call's arguments, nil for none) the sizes
// toold mcp sends for method that the call did not give, and reports
// whether the budget applies: the method has one and the call gave no size
// in bytes (maxBytes), or, for a method whose only size is a count (find,
// ls), gave none. A line or match count alone asks for more lines, not for
// more bytes: the byte size and the fitting stay.
// The streams' methods are also given the budget for their rendering
// (render.maxBytes), which the daemon fits them to once (protocol.RenderParams).
func budgetArgs(method string, args map[string]json.RawMessage, budget int) bool {
	defaults, ok := sizes[method]
	if !ok || args == nil {
		return false
	}
	_, hasBytes := defaults["maxBytes"]
	for name := range defaults {
		if given(args, name) && (name == "maxBytes" || !hasBytes) {
			return false
		}
	}
	for name, v := range defaults {
		if v > 0 && !given(args, name) {
			args[name] = json.RawMessage(fmt.Sprint(v))
		}
	}
	if rendered[method] {
		args["render"] = json.RawMessage(fmt.Sprintf(`{"maxBytes":%d}`, budget))
	}
	return true
}

// rendered are the methods whose results the daemon fits to a rendered size
// (protocol.RenderParams): those that cannot run again, grep, find and ls.
var rendered = map[string]bool{protocol.MethodExec: true, protocol.MethodProcessRead: true, protocol.MethodProcessWait: true,
	protocol.MethodFind: true, protocol.MethodLs: true, protocol.MethodGrep: true}

// given reports whether args give name a value.
func given(args map[string]json.RawMessage, name string) bool {
	v, ok := args[name]
	return ok && string(v) != "null"
}

// refit is, for a read-only method whose text came out longer than budget,
// the arguments of a smaller call, or nil when it cannot be made smaller.
// It scales what the result showed by how much the text is over, with room
// for the notice.
func refit(method string, args map[string]json.RawMessage, raw json.RawMessage, textLen, budget int) map[string]json.RawMessage {
	param, shown := "", 0
	switch method {
	case protocol.MethodRead, protocol.MethodPage, protocol.MethodReadBytes:
		var w protocol.Window
		if json.Unmarshal(raw, &w) != nil || w.Image != nil {
			return nil
		}
		if _, bytes := args["startByte"]; bytes || method == protocol.MethodReadBytes {
			param, shown = "maxBytes", int(w.EndByte-w.StartByte)
		} else {
			param, shown = "limit", int(w.EndLine-w.StartLine+1)
		}
	default:
		return nil
	}
	const noticeRoom = 1024
	n := int(int64(shown) * int64(budget-noticeRoom) / int64(textLen))
	if n >= shown {
		n = shown - 1
	}
	if n < 1 {
		return nil
	}
	out := make(map[string]json.RawMessage, len(args)+1)
	for k, v := range args {
		out[k] = v
	}
	out[param] = json.RawMessage(fmt.Sprint(n))
	return out
}
