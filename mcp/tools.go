package mcp

import (
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/schema"
)

// instructions teach a model the paging workflow: every result says what
// it left out and the exact call that reads it.
const instructions = `toold reads files and runs commands with results cut to fit your context window, losing nothing.

- read: a file as numbered lines, at most 2000 lines or 50 KB per call. When more remains, the result's last line says so, e.g. "[Showing lines 1-2000 of 5000. Use offset=2001 to continue]": call read again with that offset, or jump to the lines you need.
- readBytes: for a line too long for read (minified code, one-line JSON), or to walk a file by bytes: pass the startByte the last result names.
- exec: runs a command. Long output shows its first and last lines and one line naming the lines in between and a spool id, e.g. "[... lines 1001-4000 omitted (120 KB); page spool=ID offset=1001 to read them ...]"; errors from the middle are shown too. Read the omitted lines with page spool=ID offset=N, a window at a time, rather than re-running the command with a pipe through head or grep.
- page: windows of a spool, numbered as read numbers them; pass the offset (or startByte) the previous result names to go on.

Prefer these to cat, head, tail or sed: nothing is silently cut. Spools last as long as this session.`

// prop describes one parameter of a tool for a model.
type prop struct {
	name, typ, desc string
}

// inputSchema is method's params schema (package schema, from the wire
// types) with props' descriptions; props must name every param.
func inputSchema(method string, props ...prop) *jsonschema.Schema {
	s, err := schema.Params(method)
	if err != nil {
		panic(err) // the wire types are ours: a test sees this first
	}
	if s == nil {
		s = &jsonschema.Schema{Type: "object"}
	}
	if len(props) != len(s.Properties) {
		panic(fmt.Sprintf("mcp: %s describes %d params of %d", method, len(props), len(s.Properties)))
	}
	for _, p := range props {
		ps, ok := s.Properties[p.name]
		if !ok {
			panic(fmt.Sprintf("mcp: %s has no param %s", method, p.name))
		}
		ps.Description = p.desc
		ps.Type, ps.Types = nonNull(ps), nil // a model sends a value or nothing; clients (the Inspector) read one type
		if p.typ == "integer" {
			ps.Minimum = new(float64)
		}
	}
	return s
}

// nonNull is s's one type other than "null".
func nonNull(s *jsonschema.Schema) string {
	if s.Type != "" {
		return s.Type
	}
	for _, t := range s.Types {
		if t != "null" {
			return t
		}
	}
	return ""
}

// outputSchema is method's result schema: a tool's structuredContent.
func outputSchema(method string) *jsonschema.Schema {
	s, err := schema.Result(method)
	if err != nil {
		panic(err)
	}
	return s
}

var (
	pPath         = prop{"path", "string", "The file: absolute, or relative to the working directory."}
	pOffset       = prop{"offset", "integer", "First line to show, from 1 (default 1). To go on, pass the offset the last line of the previous result names."}
	pLimit        = prop{"limit", "integer", fmt.Sprintf("Most lines to show (default %d).", protocol.DefaultLimits.Read.Limit)}
	pMaxBytes     = prop{"maxBytes", "integer", fmt.Sprintf("Most bytes of the file to show (default %d, at most %d).", protocol.DefaultLimits.Read.MaxBytes, protocol.MaxWindowBytes)}
	pMaxLineChars = prop{"maxLineChars", "integer", fmt.Sprintf("Lines longer than this many characters are cut (default %d; 0: never cut). The result says how to read a cut line whole.", protocol.DefaultLimits.Read.MaxLineChars)}
	pStartByte    = prop{"startByte", "integer", "Byte offset to start at (default 0); the result starts at the beginning of the line that holds it. To go on, pass the startByte the result names."}
	pClean        = prop{"clean", "boolean", "Strip color codes and progress-bar redraws, as exec's preview does (default true). false gives the raw bytes."}
	yes, no       = true, false
	readOnly      = &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	mayDestroy    = &sdk.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &yes}
)

// tools are the daemon's methods as MCP tools: a tool's name is its method.
func tools() []*sdk.Tool {
	return []*sdk.Tool{{
		Name: protocol.MethodRead,
		Description: "Read a text file as numbered lines (like cat -n), a window at a time. " +
			"A long file is cut at limit lines or maxBytes bytes, and the result's last line says which offset reads on. " +
			"Images (png, jpeg, gif, webp) come back as images. Use this instead of cat, head or sed.",
		InputSchema:  inputSchema(protocol.MethodRead, pPath, pOffset, pLimit, pMaxBytes, pMaxLineChars),
		OutputSchema: outputSchema(protocol.MethodRead),
		Annotations:  readOnly,
	}, {
		Name: protocol.MethodReadBytes,
		Description: "Read a file from a byte offset, in whole lines: for a line too long for read (minified code, logs), " +
			"or to walk a file by bytes. The result's last line says which startByte reads on.",
		OutputSchema: outputSchema(protocol.MethodReadBytes),
		InputSchema: inputSchema(protocol.MethodReadBytes, pPath, pStartByte,
			prop{"maxBytes", "integer", fmt.Sprintf("Most bytes to show (default %d, at most %d).", protocol.DefaultLimits.ReadBytes.MaxBytes, protocol.MaxWindowBytes)}),
		Annotations: readOnly,
	}, {
		Name: protocol.MethodPage,
		Description: "Read the output exec left out. When exec shows only the first and last lines of a command's output, " +
			"it keeps all of it in a spool and names it: [... lines 1001-4000 omitted (...); page spool=ID offset=1001 ...]. " +
			"Pass that spool and offset; the lines come numbered as in read. Give startByte instead of offset to page by bytes.",
		OutputSchema: outputSchema(protocol.MethodPage),
		InputSchema: inputSchema(protocol.MethodPage,
			prop{"spool", "string", "The spool id from exec's result."},
			pOffset, pLimit, pMaxBytes, pMaxLineChars, pStartByte, pClean),
		Annotations: readOnly,
	}, {
		Name: protocol.MethodExec,
		Description: "Run a command and get its exit status and output. Long output shows its first and last lines " +
			"and one line that names the lines in between and the spool that keeps them: read those with page. " +
			"stdin is empty unless given; the command and its children are killed after timeoutMs. Give command or argv.",
		OutputSchema: outputSchema(protocol.MethodExec),
		InputSchema: inputSchema(protocol.MethodExec,
			prop{"command", "string", "A shell command line, run with bash -c."},
			prop{"argv", "array", "The program and its arguments, run without a shell (instead of command)."},
			prop{"cwd", "string", "Working directory (default: the server's)."},
			prop{"env", "object", "Environment variables to set, over the server's."},
			prop{"stdin", "string", "Text to give the command on its standard input."},
			prop{"timeoutMs", "integer", fmt.Sprintf("Kill the command after this many milliseconds (default %d).", protocol.DefaultLimits.Exec.TimeoutMs)},
			prop{"maxLines", "integer", fmt.Sprintf("Most lines of each of stdout and stderr to show (default %d).", protocol.DefaultLimits.Exec.MaxLines)},
			prop{"maxBytes", "integer", fmt.Sprintf("Most bytes of each of stdout and stderr to show (default %d, at most %d).", protocol.DefaultLimits.Exec.MaxBytes, protocol.MaxExecBytes)},
			prop{"preview", "string", fmt.Sprintf("Which lines to show of long output: the first and last (%s, default), the first (%s) or the last (%s).", protocol.PreviewHeadTail, protocol.PreviewHead, protocol.PreviewTail)},
			prop{"maxLineChars", "integer", fmt.Sprintf("Shown lines longer than this many characters are cut (default %d); the spool keeps them whole.", protocol.DefaultLimits.Read.MaxLineChars)},
			prop{"mergeStderr", "boolean", "Send stderr into stdout, interleaved as written (default false)."},
			pClean),
		Annotations: mayDestroy, // a command can do anything
	}, {
		Name:         protocol.MethodStats,
		Description:  "The toold daemon's state: sessions, running commands, file index cache and spool usage. For diagnosing toold itself.",
		InputSchema:  inputSchema(protocol.MethodStats),
		OutputSchema: outputSchema(protocol.MethodStats),
		Annotations:  readOnly,
	}}
}
