package mcp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/notice"
	"github.com/toold/toold/protocol"
	"github.com/toold/toold/rpc"
)

// render turns method's JSON result into the content a model reads. It
// cuts nothing: a result that must fit a budget was fitted by the daemon
// (budget.go). Notices name the tools as toold mcp names them: its session
// is initialized with notices.toolNames (Server.sessionInit).
func render(method string, raw json.RawMessage) ([]sdk.Content, error) {
	switch method {
	case protocol.MethodRead, protocol.MethodReadBytes, protocol.MethodPage:
		var w protocol.Window
		if err := json.Unmarshal(raw, &w); err != nil {
			return nil, fmt.Errorf("decoding the window: %w", err)
		}
		return renderWindow(&w)
	case protocol.MethodExec:
		var r protocol.ExecResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decoding the exec result: %w", err)
		}
		return []sdk.Content{&sdk.TextContent{Text: notice.ExecText(&r)}}, nil
	case protocol.MethodProcessRead, protocol.MethodProcessWait:
		var r protocol.ProcessOutput
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decoding the process output: %w", err)
		}
		return []sdk.Content{&sdk.TextContent{Text: notice.ProcessText(&r)}}, nil
	case protocol.MethodGrep:
		var r protocol.GrepResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decoding the grep result: %w", err)
		}
		return []sdk.Content{&sdk.TextContent{Text: notice.GrepText(&r)}}, nil
	case protocol.MethodFind, protocol.MethodLs:
		var r protocol.EntriesResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decoding the %s result: %w", method, err)
		}
		return []sdk.Content{&sdk.TextContent{Text: notice.EntriesText(&r)}}, nil
	case protocol.MethodProcessKill:
		var p protocol.ProcessInfo
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, fmt.Errorf("decoding the process: %w", err)
		}
		return []sdk.Content{&sdk.TextContent{Text: notice.ProcessLine(p)}}, nil
	case protocol.MethodProcessWrite:
		var r protocol.ProcessWriteResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decoding the write: %w", err)
		}
		text := notice.Written(r.Written)
		if r.Notice != nil {
			text += "\n" + *r.Notice
		}
		return []sdk.Content{&sdk.TextContent{Text: text}}, nil
	case protocol.MethodProcessList:
		var r struct{ Processes []protocol.ProcessInfo }
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decoding the process list: %w", err)
		}
		return []sdk.Content{&sdk.TextContent{Text: processListText(r.Processes)}}, nil
	}
	// stats and anything else: the JSON itself is the most readable form.
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("decoding the result: %w", err)
	}
	return []sdk.Content{&sdk.TextContent{Text: b.String()}}, nil
}

// processListText is process_list's processes, one a line, oldest first.
func processListText(ps []protocol.ProcessInfo) string {
	if len(ps) == 0 {
		return notice.NoProcesses
	}
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = notice.ProcessLine(p)
	}
	return strings.Join(lines, "\n")
}

func renderWindow(w *protocol.Window) ([]sdk.Content, error) {
	if w.Image != nil {
		data, err := base64.StdEncoding.DecodeString(w.Image.Data)
		if err != nil {
			return nil, fmt.Errorf("decoding the image: %w", err)
		}
		c := []sdk.Content{&sdk.ImageContent{MIMEType: w.Image.MimeType, Data: data}}
		if w.Notice != nil {
			c = append(c, &sdk.TextContent{Text: *w.Notice})
		}
		return c, nil
	}
	return []sdk.Content{&sdk.TextContent{Text: notice.WindowText(w)}}, nil
}

// errorResult is a daemon's JSON-RPC error as a failed tool call, which a
// model sees and can act on (a protocol error it would not see). It has no
// structuredContent: clients check that against the tool's outputSchema,
// the result's; the text names the code.
func errorResult(e *rpc.Error) *sdk.CallToolResult {
	return &sdk.CallToolResult{
		Content: []sdk.Content{&sdk.TextContent{Text: notice.DaemonError(e.Code, e.Message)}},
		IsError: true,
	}
}
