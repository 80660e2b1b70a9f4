package mcp

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/schema"
)

// instructions teach a model the paging workflow once, in initialize: every
// result says what it left out and the call that reads it. Clients that
// send them with every request (codex) pay for each byte, as for the tools.
const instructions = `toold reads files and runs commands, cutting results to fit your context without losing anything: a result that leaves something out ends with the call that reads it (read offset=N, page spool=ID offset=N). A command that waits for input returns with its prompt: answer it with process_write. Prefer these tools to cat, head, tail, sed, grep and find in a shell. Spools and background processes last as long as this session.`

// prop describes one parameter of a tool for a model. An empty desc
// leaves the param as described in the tool its tool's description names
// ("Output params as in exec."): the same name, the same meaning.
type prop struct {
	name, desc string
}

// as leaves names described as in another tool (see prop).
func as(names ...string) []prop {
	ps := make([]prop, len(names))
	for i, n := range names {
		ps[i] = prop{name: n}
	}
	return ps
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
	// render is toold mcp's own (the budget of the rendered result).
	delete(s.Properties, "render")
	if method == protocol.MethodStats {
		delete(s.Properties, "sandbox") // always asked (Server.handler)
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
		oneType(ps)
	}
	return s
}

// oneType gives s and the properties within it their one type other than
// "null": a model sends a value or nothing, and clients (the Inspector)
// read one type.
func oneType(s *jsonschema.Schema) {
	s.Type, s.Types = nonNull(s), nil
	for _, p := range s.Properties {
		oneType(p)
	}
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

// processListSchema is process_list's structuredContent: MCP's must be an
// object, so the handler wraps the method's list as {"processes": [...]}.
func processListSchema() *jsonschema.Schema {
	s, err := jsonschema.For[struct {
		Processes []protocol.ProcessInfo `json:"processes"`
	}](nil)
	if err != nil {
		panic(err)
	}
	return s
}

// outputSchema is method's result schema: a tool's structuredContent.
func outputSchema(method string) *jsonschema.Schema {
	s, err := schema.Result(method)
	if err != nil {
		panic(err)
	}
	return s
}

// The params' descriptions: short, since clients send every tool's schema
// with each request to the model (TestToolsListSize); a default is named
// where the model may want another. The daemon says in a result's notice
// what a call left out and how to get it, so the schemas need not.
var (
	pPath         = prop{"path", "Absolute or relative to the cwd."}
	pOffset       = prop{"offset", "Default 1."}
	pLimit        = prop{"limit", fmt.Sprintf("Lines, default %d.", protocol.DefaultLimits.Read.Limit)}
	pMaxBytes     = prop{"maxBytes", fmt.Sprintf("Default %d.", protocol.MCPWindowBytes)}
	pMaxLineChars = prop{"maxLineChars", fmt.Sprintf("Cut lines, default %d; 0: never.", protocol.DefaultLimits.Read.MaxLineChars)}
	pStartByte    = prop{"startByte", "Byte offset, instead of offset."}
	pOutline      = prop{"outline", "Outline with line ranges instead."}
	pIfChanged    = prop{"ifChanged", "Say if unchanged since read."}
	pClean        = prop{"clean", "Strip colors, default true."}
	pID           = prop{"id", "From exec or process_list."}
	pOutLines     = prop{"maxLines", fmt.Sprintf("Per stream, default %d.", protocol.DefaultLimits.Exec.MaxLines)}
	pOutBytes     = prop{"maxBytes", fmt.Sprintf("Per stream, default %d.", protocol.MCPExecBytes)}
	pPreview      = prop{"preview", "headTail (default), head or tail."}
	pOutLineChars = prop{"maxLineChars", fmt.Sprintf("Cut lines, default %d.", protocol.DefaultLimits.Read.MaxLineChars)}
	pNoIgnore     = prop{"noIgnore", "Include ignored files."}
	pDir          = prop{"path", "Default: the cwd."}
	pEntries      = prop{"limit", fmt.Sprintf("Default %d.", protocol.MCPEntries)}
	// The annotations say what a client may run without asking (codex's
	// default approval mode runs a tool unasked only when it is readOnly).
	// readOnly: nothing outside toold changes (the spools, the cursors and
	// what a session has read are toold's own state).
	yes, no  = true, false
	readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	// cursor reads and moves a process's read cursor: a second call answers
	// with other output.
	cursor = &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}
	// anything: a command (or a process's input) can do anything the user
	// can, the network included.
	anything = &sdk.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &yes}
	// ends a process of this session: once ended, again is the same.
	ends = &sdk.ToolAnnotations{DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no}
)

// outputParams are exec's params that the process tools share.
var outputParams = []string{"maxLines", "maxBytes", "preview", "maxLineChars", "clean"}

// ToolNames are the names of toold mcp's tools, in the order tools/list
// gives them.
func ToolNames() []string {
	var names []string
	for _, t := range tools() {
		names = append(names, t.Name)
	}
	return names
}

// toolName is a method's tool name: MCP's names allow no "/".
func toolName(method string) string { return strings.ReplaceAll(method, "/", "_") }

// methodOf is the method a tool calls.
func methodOf(tool string) string {
	if m, ok := strings.CutPrefix(tool, "process_"); ok {
		return "process/" + m
	}
	return tool
}

// tools are the daemon's methods as MCP tools: a tool's name is its method.
func tools() []*sdk.Tool {
	return []*sdk.Tool{{
		Name:         protocol.MethodRead,
		Description:  fmt.Sprintf("Read a file as numbered lines. Over %d KB, with no offset or limit: its outline and first lines.", protocol.MCPOutlineBytes>>10),
		InputSchema:  inputSchema(protocol.MethodRead, pPath, pOffset, pLimit, pMaxBytes, pMaxLineChars, pOutline, pIfChanged),
		OutputSchema: outputSchema(protocol.MethodRead),
		Annotations:  readOnly,
	}, {
		Name:         protocol.MethodReadBytes,
		Description:  "Read whole lines from a byte offset: for lines too long for read.",
		InputSchema:  inputSchema(protocol.MethodReadBytes, pPath, pStartByte, pMaxBytes),
		OutputSchema: outputSchema(protocol.MethodReadBytes),
		Annotations:  readOnly,
	}, {
		Name:        protocol.MethodPage,
		Description: "Read the output exec left out: page spool=ID offset=N, as exec says. Other params as in read.",
		InputSchema: inputSchema(protocol.MethodPage, append(as("offset", "limit", "maxBytes", "maxLineChars", "outline", "ifChanged"),
			prop{"spool", "From exec."}, pStartByte, pClean)...),
		OutputSchema: outputSchema(protocol.MethodPage),
		Annotations:  readOnly,
	}, {
		Name: protocol.MethodExec,
		Description: "Run a command. Long output shows head, tail and the errors between, and how to page the rest. " +
			"yieldMs or background leave it running (process_* tools).",
		InputSchema: inputSchema(protocol.MethodExec,
			prop{"command", "Run by bash -c."},
			prop{"argv", "Run with no shell."},
			prop{"cwd", "Working directory."},
			prop{"env", "Set over the session's."},
			prop{"stdin", "Default: none (EOF)."},
			prop{"timeoutMs", fmt.Sprintf("Default %d.", protocol.DefaultLimits.Exec.TimeoutMs)},
			pOutLines, pOutBytes, pPreview, pOutLineChars,
			prop{"mergeStderr", "Into stdout."},
			pClean,
			prop{"yieldMs", "Return then if it still runs."},
			prop{"background", "Return at once (servers, watchers)."},
			prop{"tty", "Run on a terminal (prompts, REPLs, less)."},
			prop{"cols", fmt.Sprintf("With tty; default %d.", protocol.DefaultTTYCols)},
			prop{"rows", fmt.Sprintf("With tty; default %d.", protocol.DefaultTTYRows)}),
		OutputSchema: outputSchema(protocol.MethodExec),
		Annotations:  anything,
	}, {
		Name:        toolName(protocol.MethodProcessWait),
		Description: "Wait for a background process to exit, print a line matching until.pattern or go quiet (until.idleMs). Output params as in exec.",
		InputSchema: inputSchema(protocol.MethodProcessWait, append(as(outputParams...), pID,
			prop{"timeoutMs", fmt.Sprintf("Default %d; 0: none.", protocol.DefaultWaitTimeoutMs)},
			prop{"until", "pattern is RE2."})...),
		OutputSchema: outputSchema(protocol.MethodProcessWait),
		Annotations:  cursor,
	}, {
		Name:         toolName(protocol.MethodProcessRead),
		Description:  "A background process's new output. Output params as in exec.",
		InputSchema:  inputSchema(protocol.MethodProcessRead, append(as(outputParams...), pID, prop{"since", "Cursor; default: the last read's end."})...),
		OutputSchema: outputSchema(protocol.MethodProcessRead),
		Annotations:  cursor,
	}, {
		Name:        toolName(protocol.MethodProcessWrite),
		Description: "Answer a process's prompt: write to its stdin or terminal.",
		InputSchema: inputSchema(protocol.MethodProcessWrite, pID,
			prop{"stdin", "End lines with \\n; \\u0003 is Ctrl-C on a tty."},
			prop{"close", "Close stdin after (Ctrl-D on a tty)."},
			prop{"cols", "Resize the tty."},
			prop{"rows", "Resize the tty."}),
		OutputSchema: outputSchema(protocol.MethodProcessWrite),
		Annotations:  anything,
	}, {
		Name:         toolName(protocol.MethodProcessKill),
		Description:  "End a background process and its children.",
		InputSchema:  inputSchema(protocol.MethodProcessKill, pID, prop{"signal", "Default SIGTERM."}),
		OutputSchema: outputSchema(protocol.MethodProcessKill),
		Annotations:  ends,
	}, {
		Name:         toolName(protocol.MethodProcessList),
		Description:  "This session's background processes.",
		InputSchema:  inputSchema(protocol.MethodProcessList),
		OutputSchema: processListSchema(),
		Annotations:  readOnly,
	}, {
		Name:        protocol.MethodGrep,
		Description: "Search files (ignored ones skipped) or an exec spool with RE2.",
		InputSchema: inputSchema(protocol.MethodGrep,
			prop{"pattern", "RE2, or text if literal."},
			prop{"literal", "Plain text."},
			prop{"ignoreCase", "Ignore case."},
			prop{"path", "File or dir, default the cwd."},
			prop{"spool", "Instead of path."},
			prop{"glob", "*.go, src/**/*.ts"},
			pNoIgnore,
			prop{"context", "Lines around matches."},
			prop{"limit", fmt.Sprintf("Matches, default %d.", protocol.DefaultGrepLimit)},
			prop{"maxLineChars", fmt.Sprintf("Default %d.", protocol.DefaultGrepMaxLineChars)},
			prop{"maxBytes", fmt.Sprintf("Default %d.", protocol.MCPGrepBytes)}),
		OutputSchema: outputSchema(protocol.MethodGrep),
		Annotations:  readOnly,
	}, {
		Name:        protocol.MethodFind,
		Description: "Find files by glob (ignored ones skipped).",
		InputSchema: inputSchema(protocol.MethodFind,
			prop{"pattern", "*.go at any depth, src/**/*_test.go"},
			pDir,
			prop{"type", "file or dir."},
			pNoIgnore, pEntries),
		OutputSchema: outputSchema(protocol.MethodFind),
		Annotations:  readOnly,
	}, {
		Name:        protocol.MethodLs,
		Description: "List a directory (ignored entries skipped).",
		InputSchema: inputSchema(protocol.MethodLs, pDir, pEntries,
			prop{"all", "Include dotfiles."},
			pNoIgnore),
		OutputSchema: outputSchema(protocol.MethodLs),
		Annotations:  readOnly,
	}, {
		Name:         protocol.MethodStats,
		Description:  "toold's own state: sessions, cache, spools.",
		InputSchema:  inputSchema(protocol.MethodStats),
		OutputSchema: outputSchema(protocol.MethodStats),
		Annotations:  readOnly,
	}}
}
