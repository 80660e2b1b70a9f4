package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// Every tool's input schema is package schema's, with one plain type per
// param (MCP clients such as the Inspector read "type" to turn a
// command-line value into a number), and a description: its own, or the
// same param's in the tool its description names ("as in exec"); and an
// outputSchema.
func TestToolSchemas(t *testing.T) {
	t.Parallel()
	all := map[string]*jsonschema.Schema{}
	for _, tool := range tools() {
		all[tool.Name], _ = tool.InputSchema.(*jsonschema.Schema)
	}
	for _, tool := range tools() {
		in := all[tool.Name]
		if in == nil || in.Type != "object" {
			t.Fatalf("%s: input schema %#v", tool.Name, tool.InputSchema)
		}
		for name, p := range in.Properties {
			if p.Type == "" || p.Types != nil {
				t.Errorf("%s.%s: type %q types %v", tool.Name, name, p.Type, p.Types)
			}
			if p.Description == "" && describedAs(tool.Description, name, all) == "" {
				t.Errorf("%s.%s: no description, and none in a tool named by %q", tool.Name, name, tool.Description)
			}
		}
		out, ok := tool.OutputSchema.(*jsonschema.Schema)
		if !ok || out.Type != "object" || len(out.Properties) == 0 {
			t.Errorf("%s: output schema %#v", tool.Name, tool.OutputSchema)
		}
	}
}

// describedAs is the description of param in the tool that desc refers
// to ("... as in exec."), "" when there is none.
func describedAs(desc, param string, all map[string]*jsonschema.Schema) string {
	_, rest, ok := strings.Cut(desc, " as in ")
	if !ok {
		return ""
	}
	other := strings.TrimRight(strings.Fields(rest)[0], ".,;")
	if s := all[other]; s != nil && s.Properties[param] != nil {
		return s.Properties[param].Description
	}
	return ""
}

// TestToolAnnotations: each tool tells a client truthfully what it may do
// (codex runs a tool without asking only when it is read-only): reading
// tools change nothing outside toold, a command (or its input) can do
// anything, process_kill ends a process of the session.
func TestToolAnnotations(t *testing.T) {
	t.Parallel()
	type hints struct{ readOnly, destructive, idempotent, openWorld bool }
	reads := hints{readOnly: true, idempotent: true}
	cursor := hints{readOnly: true} // moves the process's read cursor
	want := map[string]hints{
		"read": reads, "readBytes": reads, "page": reads, "grep": reads, "find": reads, "ls": reads,
		"stats": reads, "process_list": reads,
		"process_read": cursor, "process_wait": cursor,
		"exec":          {destructive: true, openWorld: true},
		"process_write": {destructive: true, openWorld: true},
		"process_kill":  {destructive: true, idempotent: true},
	}
	for _, tool := range tools() {
		a := tool.Annotations
		if a == nil || a.DestructiveHint == nil && !a.ReadOnlyHint || a.OpenWorldHint == nil {
			t.Errorf("%s: annotations %+v leave a hint to the client's default", tool.Name, a)
			continue
		}
		got := hints{a.ReadOnlyHint, a.DestructiveHint != nil && *a.DestructiveHint, a.IdempotentHint, *a.OpenWorldHint}
		if w, ok := want[tool.Name]; !ok || got != w {
			t.Errorf("%s: %+v, want %+v", tool.Name, got, w)
		}
	}
	if len(want) != len(tools()) {
		t.Errorf("%d tools, %d in the table", len(tools()), len(want))
	}
}

// maxToolsList is the most bytes tools/list may take as a client receives
// it: clients such as codex send every tool's definition with each request
// to the model, so each byte is paid for on every turn.
const maxToolsList = 8 << 10

// TestToolsListSize: the tools/list reply, as the bytes a client reads off
// toold mcp's stdout (the JSON-RPC message and its newline), is at most
// 8 KB at the default (no --structured: no outputSchema).
func TestToolsListSize(t *testing.T) {
	t.Parallel()
	dm := newDaemon(t)
	srv := NewServer("test", dm.connect, testLogger(t))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, inR, outW) }()
	lines := bufio.NewReader(outR)
	send := func(msg string) {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	reply := func() []byte {
		line, err := lines.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		return line
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"codex-mcp-client","version":"0.171.0"}}}`)
	reply()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	list := reply()
	var res struct {
		Result struct {
			Tools []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(list, &res); err != nil || len(res.Result.Tools) != 13 {
		t.Fatalf("tools/list: %v, %d tools: %.300s", err, len(res.Result.Tools), list)
	}
	t.Logf("tools/list: %d bytes for %d tools (%d to spare under %d)", len(list), len(res.Result.Tools), maxToolsList-len(list), maxToolsList)
	if len(list) > maxToolsList {
		for _, tool := range res.Result.Tools {
			t.Logf("%5d %.60s", len(tool), tool)
		}
		t.Errorf("tools/list is %d bytes, over %d", len(list), maxToolsList)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
}
