package mcp

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/protocol"
	"github.com/toold/toold/schema"
)

// instructions teach a model the paging workflow: every result says what
// it left out and the exact call that reads it.
const instructions = `toold reads files and runs commands with results cut to fit your context window, losing nothing.

- read: a file as numbered lines, at most 2000 lines or 16 KB per call (a result is at most 24 KB unless you give maxBytes). When more remains, the result's last line says so, e.g. "[Showing lines 1-2000 of 5000. Use offset=2001 to continue]": call read again with that offset, or jump to the lines you need.
- readBytes: for a line too long for read (minified code, one-line JSON), or to walk a file by bytes: pass the startByte the last result names.
- exec: runs a command. Long output shows its first and last lines and one line naming the lines in between and a spool id, e.g. "[... lines 1001-4000 omitted (120 KB); page spool=ID offset=1001 to read them ...]"; errors from the middle are shown too. Read the omitted lines with page spool=ID offset=N, a window at a time, rather than re-running the command with a pipe through head or grep.
- page: windows of a spool, numbered as read numbers them; pass the offset (or startByte) the previous result names to go on.
- grep, find, ls: search file contents, find files by glob, list a directory, with limits and notices as read has; grep also searches a spool (spool=ID), with page's line numbers.
- exec with yieldMs or background: true leaves a long command (a build, a dev server, a watcher) running as a process; process_wait waits for its exit, a line matching until.pattern or idle output, process_read reads what is new, process_write answers its prompts, process_kill ends it.
- A command that waits for input returns at once with its prompt and process id: answer with process_write. Give tty: true to a command that needs a terminal (password prompts, REPLs, less).

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
	// record is toold mcp's own (the reads that fit a window to the budget
	// are kept out of what the session saw): not a model's to give.
	delete(s.Properties, "record")
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

// noIgnoreDoc describes grep's, find's and ls' noIgnore.
const noIgnoreDoc = "Also search what .gitignore and .ignore exclude (default false; VCS directories stay skipped). " +
	"A .gitignore applies only inside a git work tree, a .ignore everywhere."

var (
	pPath         = prop{"path", "string", "The file: absolute, or relative to the working directory."}
	pOffset       = prop{"offset", "integer", "First line to show, from 1 (default 1). To go on, pass the offset the last line of the previous result names."}
	pLimit        = prop{"limit", "integer", fmt.Sprintf("Most lines to show (default %d).", protocol.DefaultLimits.Read.Limit)}
	pMaxBytes     = prop{"maxBytes", "integer", fmt.Sprintf("Most bytes of the file to show (default %d, at most %d).", protocol.MCPWindowBytes, protocol.MaxWindowBytes)}
	pMaxLineChars = prop{"maxLineChars", "integer", fmt.Sprintf("Lines longer than this many characters are cut (default %d; 0: never cut). The result says how to read a cut line whole.", protocol.DefaultLimits.Read.MaxLineChars)}
	pStartByte    = prop{"startByte", "integer", "Byte offset to start at (default 0); the result starts at the beginning of the line that holds it. To go on, pass the startByte the result names."}
	pOutline      = prop{"outline", "boolean", "Answer with the file's outline instead of its lines: symbols (Go, and other code with Universal Ctags), Markdown headings, JSON/YAML keys, CSV chunks, a log's time buckets with error counts, each with the line range to read it with offset and limit."}
	pIfChanged    = prop{"ifChanged", "boolean", "Re-reading a range read before in this session: answer 'unchanged' with no lines when none changed, else the lines and which ranges changed."}
	pClean        = prop{"clean", "boolean", "Strip color codes and progress-bar redraws, as exec's preview does (default true). false gives the raw bytes."}
	yes, no       = true, false
	readOnly      = &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &no}
	mayDestroy    = &sdk.ToolAnnotations{DestructiveHint: &yes, OpenWorldHint: &yes}
	// waits reads and moves a process's cursor: nothing is changed, but a
	// second call answers with other output.
	waits         = &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no}
	ends          = &sdk.ToolAnnotations{DestructiveHint: &yes, IdempotentHint: true, OpenWorldHint: &no}
	pID           = prop{"id", "string", "The process id from exec (yieldMs or background) or process_list."}
	pProcMaxLines = prop{"maxLines", "integer", fmt.Sprintf("Most lines of each of stdout and stderr to show (default %d); the rest is named with its page call.", protocol.DefaultLimits.Exec.MaxLines)}
	pProcMaxBytes = prop{"maxBytes", "integer", fmt.Sprintf("Most bytes of each of stdout and stderr to show (default %d, at most %d).", protocol.MCPExecBytes, protocol.MaxExecBytes)}
	pPreview      = prop{"preview", "string", fmt.Sprintf("Which lines to show of long output: the first and last (%s, default), the first (%s) or the last (%s).", protocol.PreviewHeadTail, protocol.PreviewHead, protocol.PreviewTail)}
	pOutLineChars = prop{"maxLineChars", "integer", fmt.Sprintf("Shown lines longer than this many characters are cut (default %d); the spool keeps them whole.", protocol.DefaultLimits.Read.MaxLineChars)}
)

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
		Name: protocol.MethodRead,
		Description: "Read a text file as numbered lines (like cat -n), a window at a time. " +
			"A long file is cut at limit lines or maxBytes bytes, and the result's last line says which offset reads on. " +
			"Images (png, jpeg, gif, webp) come back as images. Use this instead of cat, head or sed. " +
			"A file over 64 KB read with no offset or limit comes back as its outline (each entry with its line range) and its first lines: read the ranges you need.",
		InputSchema:  inputSchema(protocol.MethodRead, pPath, pOffset, pLimit, pMaxBytes, pMaxLineChars, pOutline, pIfChanged),
		OutputSchema: outputSchema(protocol.MethodRead),
		Annotations:  readOnly,
	}, {
		Name: protocol.MethodReadBytes,
		Description: "Read a file from a byte offset, in whole lines: for a line too long for read (minified code, logs), " +
			"or to walk a file by bytes. The result's last line says which startByte reads on.",
		OutputSchema: outputSchema(protocol.MethodReadBytes),
		InputSchema: inputSchema(protocol.MethodReadBytes, pPath, pStartByte,
			prop{"maxBytes", "integer", fmt.Sprintf("Most bytes to show (default %d, at most %d).", protocol.MCPWindowBytes, protocol.MaxWindowBytes)}),
		Annotations: readOnly,
	}, {
		Name: protocol.MethodPage,
		Description: "Read the output exec left out. When exec shows only the first and last lines of a command's output, " +
			"it keeps all of it in a spool and names it: [... lines 1001-4000 omitted (...); page spool=ID offset=1001 ...]. " +
			"Pass that spool and offset; the lines come numbered as in read. Give startByte instead of offset to page by bytes.",
		OutputSchema: outputSchema(protocol.MethodPage),
		InputSchema: inputSchema(protocol.MethodPage,
			prop{"spool", "string", "The spool id from exec's result."},
			pOffset, pLimit, pMaxBytes, pMaxLineChars, pStartByte, pClean, pOutline, pIfChanged),
		Annotations: readOnly,
	}, {
		Name: protocol.MethodExec,
		Description: "Run a command and get its exit status and output. Long output shows its first and last lines " +
			"and one line that names the lines in between and the spool that keeps them: read those with page. " +
			"stdin is empty unless given; the command and its children are killed after timeoutMs. Give command or argv. " +
			"For a command that may run long (a build, a test suite) give yieldMs: if it still runs then, the result has what it printed so far " +
			"and a process id, and it goes on in the background. For one that never ends by itself (a dev server, a watcher, a REPL) give background: true, " +
			"then process_wait for the line that says it is ready (until.pattern). Background processes end with the session.",
		OutputSchema: outputSchema(protocol.MethodExec),
		InputSchema: inputSchema(protocol.MethodExec,
			prop{"command", "string", "A shell command line, run with bash -c."},
			prop{"argv", "array", "The program and its arguments, run without a shell (instead of command)."},
			prop{"cwd", "string", "Working directory (default: the server's)."},
			prop{"env", "object", "Environment variables to set, over the server's."},
			prop{"stdin", "string", "Text to give the command on its standard input."},
			prop{"timeoutMs", "integer", fmt.Sprintf("Kill the command after this many milliseconds (default %d).", protocol.DefaultLimits.Exec.TimeoutMs)},
			prop{"maxLines", "integer", fmt.Sprintf("Most lines of each of stdout and stderr to show (default %d).", protocol.DefaultLimits.Exec.MaxLines)},
			prop{"maxBytes", "integer", fmt.Sprintf("Most bytes of each of stdout and stderr to show (default %d, at most %d).", protocol.MCPExecBytes, protocol.MaxExecBytes)},
			prop{"preview", "string", fmt.Sprintf("Which lines to show of long output: the first and last (%s, default), the first (%s) or the last (%s).", protocol.PreviewHeadTail, protocol.PreviewHead, protocol.PreviewTail)},
			prop{"maxLineChars", "integer", fmt.Sprintf("Shown lines longer than this many characters are cut (default %d); the spool keeps them whole.", protocol.DefaultLimits.Read.MaxLineChars)},
			prop{"mergeStderr", "boolean", "Send stderr into stdout, interleaved as written (default false)."},
			pClean,
			prop{"yieldMs", "integer", "Return after this many milliseconds if the command still runs, leaving it running as a background process (timeoutMs then applies only if given; stdin stays open for process_write)."},
			prop{"background", "boolean", "Start the command as a background process and return at once (yieldMs 0): for servers, watchers and REPLs."},
			prop{"tty", "boolean", "Run on a terminal, for commands that prompt (passwords, y/N, REPLs, less). If it waits for input the result shows the prompt and its process id: answer with process_write."},
			prop{"cols", "integer", fmt.Sprintf("Terminal width with tty (default %d).", protocol.DefaultTTYCols)},
			prop{"rows", "integer", fmt.Sprintf("Terminal height with tty (default %d).", protocol.DefaultTTYRows)}),
		Annotations: mayDestroy, // a command can do anything
	}, {
		Name:         toolName(protocol.MethodProcessWait),
		OutputSchema: outputSchema(protocol.MethodProcessWait),
		Description: "Wait for a background process (from exec with yieldMs or background) until it exits, prints a line matching until.pattern " +
			"(RE2, e.g. \"listening on|ready\" for a server, \"error|fail\" for a failure), or prints nothing for until.idleMs (a watcher that has rebuilt), " +
			"whichever comes first, at most timeoutMs. Returns why (reason), the output since the last read, and the exit status once it has exited.",
		InputSchema: inputSchema(protocol.MethodProcessWait, pID,
			prop{"timeoutMs", "integer", fmt.Sprintf("Most milliseconds to wait (default %d; 0: no limit). The process goes on running when the wait ends.", protocol.DefaultWaitTimeoutMs)},
			prop{"until", "object", "pattern (an RE2 expression matched against each new line) and/or idleMs (milliseconds without output)."},
			pProcMaxLines, pProcMaxBytes, pPreview, pOutLineChars, pClean),
		Annotations: waits,
	}, {
		Name:         toolName(protocol.MethodProcessRead),
		OutputSchema: outputSchema(protocol.MethodProcessRead),
		Description: "Read what a background process printed since the last read (or since the cursor given), without waiting, " +
			"previewed as exec previews output; the result has the cursor to read on from, whether it still runs, and its exit status once it has exited.",
		InputSchema: inputSchema(protocol.MethodProcessRead, pID,
			prop{"since", "string", "A cursor from an earlier result, to read again from there (default: where the last read ended)."},
			pProcMaxLines, pProcMaxBytes, pPreview, pOutLineChars, pClean),
		Annotations: readOnly,
	}, {
		Name:         toolName(protocol.MethodProcessWrite),
		OutputSchema: outputSchema(protocol.MethodProcessWrite),
		Description:  "Write text to a background process's stdin or terminal: answer a prompt or drive a REPL (end a line with \\n; on a terminal \\u0003 is Ctrl-C). close: true closes stdin after it (EOF).",
		InputSchema: inputSchema(protocol.MethodProcessWrite, pID,
			prop{"stdin", "string", "The text to write."},
			prop{"close", "boolean", "Close stdin after writing (default false)."},
			prop{"cols", "integer", "Resize its terminal: width."},
			prop{"rows", "integer", "Resize its terminal: height."}),
		Annotations: mayDestroy,
	}, {
		Name:         toolName(protocol.MethodProcessKill),
		OutputSchema: outputSchema(protocol.MethodProcessKill),
		Description:  "End a background process and everything it started (SIGTERM, then SIGKILL after 2 s). Returns its exit status; process_read still gives its last output.",
		InputSchema: inputSchema(protocol.MethodProcessKill, pID,
			prop{"signal", "string", "A signal to send first: a name such as SIGINT, or its number (default SIGTERM)."}),
		Annotations: ends,
	}, {
		Name:         toolName(protocol.MethodProcessList),
		Description:  "List this session's background processes: id, command, whether it runs, exit status, start time.",
		InputSchema:  inputSchema(protocol.MethodProcessList),
		OutputSchema: processListSchema(),
		Annotations:  readOnly,
	}, {
		Name:         protocol.MethodGrep,
		OutputSchema: outputSchema(protocol.MethodGrep),
		Description: "Search file contents with a regular expression (RE2, Go's syntax) or a literal string: one file, a directory tree " +
			"(skipping what .gitignore and .ignore exclude, VCS directories and binary files) or a spool exec kept. " +
			"Matches come as path:line:text, grouped by file in a stable order, with context lines as path-line-text. " +
			"Use this instead of grep or rg in exec.",
		InputSchema: inputSchema(protocol.MethodGrep,
			prop{"pattern", "string", "The regular expression (RE2: no backreferences or lookaround), or the string with literal true."},
			prop{"literal", "boolean", "Match pattern as a plain string (default false)."},
			prop{"ignoreCase", "boolean", "Match without regard to case (default false)."},
			prop{"path", "string", "A file or directory: absolute, or relative to the working directory (default: the working directory)."},
			prop{"spool", "string", "Search this spool of an exec result instead of path: its line numbers are page's."},
			prop{"glob", "string", "Search only files matching this glob: \"*.go\" matches names at any depth, \"src/**/*.ts\" paths under path."},
			prop{"noIgnore", "boolean", noIgnoreDoc},
			prop{"context", "integer", fmt.Sprintf("Lines to show before and after each match (default 0, at most %d).", protocol.MaxGrepContext)},
			prop{"limit", "integer", fmt.Sprintf("Most matching lines to show (default %d, at most %d).", protocol.DefaultGrepLimit, protocol.MaxGrepLimit)},
			prop{"maxLineChars", "integer", fmt.Sprintf("Lines longer than this many characters are cut (default %d); read shows them whole.", protocol.DefaultGrepMaxLineChars)},
			prop{"maxBytes", "integer", fmt.Sprintf("Most bytes of lines to show (default %d, at most %d).", protocol.MCPGrepBytes, protocol.MaxGrepBytes)}),
		Annotations: readOnly,
	}, {
		Name:         protocol.MethodFind,
		OutputSchema: outputSchema(protocol.MethodFind),
		Description: "Find files and directories by glob, as paths relative to path, sorted, directories ending with /. " +
			"Skips what .gitignore and .ignore exclude and VCS directories. Use this instead of find or ls -R in exec.",
		InputSchema: inputSchema(protocol.MethodFind,
			prop{"pattern", "string", "A glob: \"*.go\" matches names at any depth, \"src/**/*_test.go\" paths (default: everything)."},
			prop{"path", "string", "The directory to search: absolute, or relative to the working directory (default: the working directory)."},
			prop{"type", "string", "Only files (\"file\") or only directories (\"dir\") (default both)."},
			prop{"noIgnore", "boolean", noIgnoreDoc},
			prop{"limit", "integer", fmt.Sprintf("Most entries to show (default %d, at most %d).", protocol.MCPEntries, protocol.MaxFindLimit)}),
		Annotations: readOnly,
	}, {
		Name:         protocol.MethodLs,
		OutputSchema: outputSchema(protocol.MethodLs),
		Description: "List a directory: entries sorted by name, directories ending with /, symlinks as name -> target. " +
			"Skips what .gitignore and .ignore exclude and VCS directories.",
		InputSchema: inputSchema(protocol.MethodLs,
			prop{"path", "string", "The directory: absolute, or relative to the working directory (default: the working directory)."},
			prop{"limit", "integer", fmt.Sprintf("Most entries to show (default %d, at most %d).", protocol.MCPEntries, protocol.MaxLsLimit)},
			prop{"all", "boolean", "Also list entries whose names start with a dot (default false)."},
			prop{"noIgnore", "boolean", noIgnoreDoc}),
		Annotations: readOnly,
	}, {
		Name:         protocol.MethodStats,
		Description:  "The toold daemon's state: sessions, running commands, file index cache and spool usage. For diagnosing toold itself.",
		InputSchema:  inputSchema(protocol.MethodStats),
		OutputSchema: outputSchema(protocol.MethodStats),
		Annotations:  readOnly,
	}}
}
