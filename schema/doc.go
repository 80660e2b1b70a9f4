// Package schema owns the JSON Schema of every method's params and result,
// generated from the wire types of package protocol with
// github.com/google/jsonschema-go, so that the schema cannot drift from what
// goes on the wire. `toold schema` prints them; toold mcp gives them to MCP
// clients as the tools' inputSchema and outputSchema.
//
// A result's schema is strict (every field required, no others). A params
// schema requires only what the method requires and allows other fields:
// toold ignores an unknown param (and names it in the notice) rather than
// refusing it, and so must a client that checks arguments against it.
package schema
