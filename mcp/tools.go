package mcp

import (
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/protocol"
)

// instructions tell the model what the server is for.
const instructions = `toold reads files and runs commands with output cut to fit a context window, losing nothing: ` +
	`what a result leaves out is named at its end, with the call that reads it (read with an offset, readBytes with a startByte, page with a spool id).`

// prop is one parameter of a tool's input schema.
type prop struct {
	name, typ, desc string
}

// schema is a JSON Schema object with props, of which required are required.
func schema(required []string, props ...prop) map[string]any {
	ps := make(map[string]any, len(props))
	for _, p := range props {
		s := map[string]any{"type": p.typ, "description": p.desc}
		switch p.typ {
		case "integer":
			s["minimum"] = 0
		case "array":
			s["items"] = map[string]any{"type": "string"}
		case "object":
			s["additionalProperties"] = map[string]any{"type": "string"}
		}
		if p.name == "until" {
			delete(s, "additionalProperties")
			s["properties"] = map[string]any{
				"pattern": map[string]any{"type": "string", "description": "RE2 expression; the wait ends at a new line that matches it."},
				"idleMs":  map[string]any{"type": "integer", "minimum": 0, "description": "The wait ends once no output has come for this many milliseconds."},
			}
		}
		if p.name == "preview" {
			s["enum"] = protocol.PreviewModes
		}
		ps[p.name] = s
	}
	s := map[string]any{"type": "object", "properties": ps}
	if len(required) > 0 {
		s["required"] = required
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
	readOnly      = &sdk.ToolAnnotations{ReadOnlyHint: true}
	pID           = prop{"id", "string", "The process id from exec (yieldMs or background) or process_list."}
	pProcMaxLines = prop{"maxLines", "integer", fmt.Sprintf("Most lines of each of stdout and stderr to show (default %d); the rest is named with its page call.", protocol.DefaultLimits.Exec.MaxLines)}
	pProcMaxBytes = prop{"maxBytes", "integer", fmt.Sprintf("Most bytes of each of stdout and stderr to show (default %d, at most %d).", protocol.DefaultLimits.Exec.MaxBytes, protocol.MaxExecBytes)}
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
			"Images (png, jpeg, gif, webp) come back as images. Use this instead of cat, head or sed.",
		InputSchema: schema([]string{"path"}, pPath, pOffset, pLimit, pMaxBytes, pMaxLineChars),
		Annotations: readOnly,
	}, {
		Name: protocol.MethodReadBytes,
		Description: "Read a file from a byte offset, in whole lines: for a line too long for read (minified code, logs), " +
			"or to walk a file by bytes. The result's last line says which startByte reads on.",
		InputSchema: schema([]string{"path"}, pPath, pStartByte,
			prop{"maxBytes", "integer", fmt.Sprintf("Most bytes to show (default %d, at most %d).", protocol.DefaultLimits.ReadBytes.MaxBytes, protocol.MaxWindowBytes)}),
		Annotations: readOnly,
	}, {
		Name: protocol.MethodPage,
		Description: "Read the output exec left out. When exec shows only the first and last lines of a command's output, " +
			"it keeps all of it in a spool and names it: [... lines 1001-4000 omitted (...); page spool=ID offset=1001 ...]. " +
			"Pass that spool and offset; the lines come numbered as in read. Give startByte instead of offset to page by bytes.",
		InputSchema: schema([]string{"spool"},
			prop{"spool", "string", "The spool id from exec's result."},
			pOffset, pLimit, pMaxBytes, pMaxLineChars, pStartByte, pClean),
		Annotations: readOnly,
	}, {
		Name: protocol.MethodExec,
		Description: "Run a command and get its exit status and output. Long output shows its first and last lines " +
			"and one line that names the lines in between and the spool that keeps them: read those with page. " +
			"stdin is empty unless given; the command and its children are killed after timeoutMs. Give command or argv. " +
			"For a command that may run long (a build, a test suite) give yieldMs: if it still runs then, the result has what it printed so far " +
			"and a process id, and it goes on in the background. For one that never ends by itself (a dev server, a watcher, a REPL) give background: true, " +
			"then process_wait for the line that says it is ready (until.pattern). Background processes end with the session.",
		InputSchema: schema(nil,
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
			pClean,
			prop{"yieldMs", "integer", "Return after this many milliseconds if the command still runs, leaving it running as a background process (timeoutMs then applies only if given; stdin stays open for process_write)."},
			prop{"background", "boolean", "Start the command as a background process and return at once (yieldMs 0): for servers, watchers and REPLs."}),
	}, {
		Name: toolName(protocol.MethodProcessWait),
		Description: "Wait for a background process (from exec with yieldMs or background) until it exits, prints a line matching until.pattern " +
			"(RE2, e.g. \"listening on|ready\" for a server, \"error|fail\" for a failure), or prints nothing for until.idleMs (a watcher that has rebuilt), " +
			"whichever comes first, at most timeoutMs. Returns why (reason), the output since the last read, and the exit status once it has exited.",
		InputSchema: schema([]string{"id"}, pID,
			prop{"timeoutMs", "integer", fmt.Sprintf("Most milliseconds to wait (default %d; 0: no limit). The process goes on running when the wait ends.", protocol.DefaultWaitTimeoutMs)},
			prop{"until", "object", "pattern (an RE2 expression matched against each new line) and/or idleMs (milliseconds without output)."},
			pProcMaxLines, pProcMaxBytes),
	}, {
		Name: toolName(protocol.MethodProcessRead),
		Description: "Read what a background process printed since the last read (or since the cursor given), without waiting, " +
			"previewed as exec previews output; the result has the cursor to read on from, whether it still runs, and its exit status once it has exited.",
		InputSchema: schema([]string{"id"}, pID,
			prop{"since", "string", "A cursor from an earlier result, to read again from there (default: where the last read ended)."},
			pProcMaxLines, pProcMaxBytes),
		Annotations: readOnly,
	}, {
		Name:        toolName(protocol.MethodProcessWrite),
		Description: "Write text to a background process's stdin: answer a prompt or drive a REPL (end a line with \\n). close: true closes stdin after it (EOF).",
		InputSchema: schema([]string{"id", "stdin"}, pID,
			prop{"stdin", "string", "The text to write."},
			prop{"close", "boolean", "Close stdin after writing (default false)."}),
	}, {
		Name:        toolName(protocol.MethodProcessKill),
		Description: "End a background process and everything it started (SIGTERM, then SIGKILL after 2 s). Returns its exit status; process_read still gives its last output.",
		InputSchema: schema([]string{"id"}, pID,
			prop{"signal", "string", "A signal to send first, such as SIGINT (default SIGTERM)."}),
	}, {
		Name:        toolName(protocol.MethodProcessList),
		Description: "List this session's background processes: id, command, whether it runs, exit status, start time.",
		InputSchema: schema(nil),
		Annotations: readOnly,
	}, {
		Name:        protocol.MethodStats,
		Description: "The toold daemon's state: sessions, running commands, file index cache and spool usage. For diagnosing toold itself.",
		InputSchema: schema(nil),
		Annotations: readOnly,
	}}
}
