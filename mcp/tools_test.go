package mcp

import (
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// Every tool's input schema is package schema's, with one plain type and a
// description per param (MCP clients such as the Inspector read "type" to
// turn a command-line value into a number), and an outputSchema.
func TestToolSchemas(t *testing.T) {
	t.Parallel()
	for _, tool := range tools() {
		in, ok := tool.InputSchema.(*jsonschema.Schema)
		if !ok || in.Type != "object" {
			t.Fatalf("%s: input schema %#v", tool.Name, tool.InputSchema)
		}
		for name, p := range in.Properties {
			if p.Type == "" || p.Types != nil || p.Description == "" {
				t.Errorf("%s.%s: type %q types %v description %q", tool.Name, name, p.Type, p.Types, p.Description)
			}
		}
		out, ok := tool.OutputSchema.(*jsonschema.Schema)
		if !ok || out.Type != "object" || len(out.Properties) == 0 {
			t.Errorf("%s: output schema %#v", tool.Name, tool.OutputSchema)
		}
		if tool.Annotations == nil {
			t.Errorf("%s: no annotations", tool.Name)
		}
	}
}
