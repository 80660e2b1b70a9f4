package mcp

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/toold/toold/protocol"
)

// TestToolHelpStatesProtocol: the numbers the tools' help states are
// protocol's (a limit written as a literal drifts when protocol's moves).
func TestToolHelpStatesProtocol(t *testing.T) {
	t.Parallel()
	byName := map[string]*sdkToolText{}
	for _, tool := range tools() {
		in, _ := tool.InputSchema.(*jsonschema.Schema)
		byName[tool.Name] = &sdkToolText{desc: tool.Description, in: in}
	}
	for _, c := range []struct {
		tool, param string // param "": the tool's description
		want        string
	}{
		{"read", "", strconv.Itoa(protocol.MCPOutlineBytes>>10) + " KB"},
		{"read", "limit", strconv.Itoa(protocol.DefaultLimits.Read.Limit)},
		{"read", "maxBytes", strconv.Itoa(protocol.MCPWindowBytes)},
		{"read", "maxLineChars", strconv.Itoa(protocol.DefaultLimits.Read.MaxLineChars)},
		{"exec", "maxLines", strconv.Itoa(protocol.DefaultLimits.Exec.MaxLines)},
		{"exec", "maxBytes", strconv.Itoa(protocol.MCPExecBytes)},
		{"exec", "timeoutMs", strconv.FormatInt(protocol.DefaultLimits.Exec.TimeoutMs, 10)},
		{"find", "limit", strconv.Itoa(protocol.MCPEntries)},
	} {
		tt := byName[c.tool]
		if tt == nil {
			t.Fatalf("no tool %s", c.tool)
		}
		got := tt.desc
		if c.param != "" {
			p := tt.in.Properties[c.param]
			if p == nil {
				t.Fatalf("%s: no param %s", c.tool, c.param)
			}
			got = p.Description
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s %s: %q does not state %s", c.tool, c.param, got, c.want)
		}
	}
}

type sdkToolText struct {
	desc string
	in   *jsonschema.Schema
}
