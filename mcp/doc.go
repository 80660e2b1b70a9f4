// Package mcp serves toold's methods as Model Context Protocol tools: a
// Server speaks MCP on stdio (`toold mcp`), forwards each tool call as a
// JSON-RPC request to a daemon connection of its own (one toold session per
// MCP session) and renders the result for a model — a window's lines
// numbered as `cat -n` numbers them, an exec's status, head, omitted lines
// and tail, as package notice renders the streams — in at most
// protocol.MCPResultBytes when the call gives no size (budget.go: sizes that
// fit, and the budget itself, render.maxBytes, which the daemon applies),
// and with the JSON result as structuredContent only when Structured is
// set. A read of a large file with no offset or limit is answered by the
// daemon with its outline and first lines (render.outlineOver). It keeps
// each daemon session's roots in step with those its MCP client announces,
// within --root (roots.go, internal/beneath), and names the session after
// its client (session.go).
//
// It owns the tool wiring and the rendering, which package notice writes:
// the daemon does the work, cutting included, so that a tools/call is one
// daemon request. The MCP protocol itself is the
// SDK's (github.com/modelcontextprotocol/go-sdk).
package mcp
