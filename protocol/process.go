package protocol

import (
	"encoding/json"
	"reflect"
	"strconv"
)

// Method names of the processes that outlive the call (PROTOCOL.md,
// "Processes that outlive the call"), and of progress.
const (
	MethodProcessRead  = "process/read"
	MethodProcessWait  = "process/wait"
	MethodProcessWrite = "process/write"
	MethodProcessKill  = "process/kill"
	MethodProcessList  = "process/list"

	// MethodProgress is the notification that carries a request's progress
	// to the client that gave its params a workDoneToken: ProgressParams.
	MethodProgress = "$/progress"
)

// Limits and defaults of background processes.
const (
	// MaxProcesses is how many processes of one session may run at once;
	// one more is refused with -32602.
	MaxProcesses = 16
	// DefaultWaitTimeoutMs is process/wait's timeoutMs when none is given.
	DefaultWaitTimeoutMs = 30000
	// MaxWriteWaitMs bounds how long process/write waits for a process to
	// read its stdin.
	MaxWriteWaitMs = 10000
	// MaxTerminals is how many processes of one session may run on a
	// terminal (exec's tty) at once; one more is refused with -32602.
	MaxTerminals = 8
)

// A terminal's size (exec's cols and rows, process/write's): the
// defaults, and the caps a larger one is clamped to.
const (
	DefaultTTYCols = 120
	DefaultTTYRows = 40
	MaxTTYCols     = 1000
	MaxTTYRows     = 1000
)

// TTYEnv are the environment defaults of a command run with tty: each
// applies unless the session's environment or the exec's env sets the
// variable. A terminal is a real one (TERM), and nothing opens a pager or
// an editor that would wait for keys a model cannot see: pagers print
// (cat), editors leave the file as it is (true: git commit without -m
// then stops with "empty message", git rebase -i keeps its plan).
var TTYEnv = map[string]string{
	"TERM":          "xterm-256color",
	"PAGER":         "cat",
	"GIT_PAGER":     "cat",
	"MANPAGER":      "cat",
	"SYSTEMD_PAGER": "cat",
	"EDITOR":        "true",
	"VISUAL":        "true",
	"GIT_EDITOR":    "true",
}

// Reasons process/wait returns (ProcessOutput.Reason).
const (
	ReasonExit    = "exit"
	ReasonPattern = "pattern"
	ReasonIdle    = "idle"
	ReasonTimeout = "timeout"
	// ReasonInput: the process waits for input (WaitingForInput).
	ReasonInput = "input"
)

// Progress kinds (the kind field of a progress value).
const (
	ProgressExec  = "exec"
	ProgressIndex = "index"
)

// ProgressParams are MethodProgress's params: the request's token as the
// client wrote it, and an ExecProgress or IndexProgress.
type ProgressParams struct {
	Token any `json:"token"`
	Value any `json:"value"`
}

// ExecProgress is the progress of an exec, or of a process being waited
// for: how long it has run and what it has printed.
type ExecProgress struct {
	Kind      string      `json:"kind"` // ProgressExec
	ElapsedMs int64       `json:"elapsedMs"`
	Stdout    StreamCount `json:"stdout"`
	Stderr    StreamCount `json:"stderr"`
	// LastLine is the newest line of either stream, cleaned and clipped.
	LastLine string `json:"lastLine"`
}

// StreamCount is how much one stream has printed so far.
type StreamCount struct {
	Lines int64 `json:"lines"`
	Bytes int64 `json:"bytes"`
}

// IndexProgress is the progress of a file's line index build.
type IndexProgress struct {
	Kind       string `json:"kind"` // ProgressIndex
	BytesDone  int64  `json:"bytesDone"`
	BytesTotal int64  `json:"bytesTotal"`
}

// OutputParams shape the preview of a process's output, as exec's params
// shape a command's.
type OutputParams struct {
	MaxLines     *Num    `json:"maxLines"`
	MaxBytes     *Num    `json:"maxBytes"`
	Preview      *string `json:"preview"`
	MaxLineChars *Num    `json:"maxLineChars"`
	Clean        *bool   `json:"clean"`
	// Render is toold's own (not in PROTOCOL.md): a bound on the result
	// as rendered for a model (toold mcp sends it). nil: none.
	Render *RenderParams `json:"render"`
}

// RenderParams bound a result as notice renders it for a model
// (notice.ExecText, notice.ProcessText, notice.GrepText,
// notice.EntriesText, notice.WindowText), once, in the daemon: exec and the
// process methods give up shown lines of streams whose middle a spool
// keeps, and highlight groups in highlight.Rank's order (the last ranked
// first); grep, find and ls give up their last matches or entries, as a
// smaller limit would; read, readBytes and page give up their last lines
// (bytes, by startByte), as a smaller limit (maxBytes) would. The session
// saw (for a later ifChanged) the window it is given, no more.
type RenderParams struct {
	// MaxBytes is the most bytes of the rendered text.
	MaxBytes *Num `json:"maxBytes"`
	// OutlineOver (read only) answers a read of a text file over that
	// many bytes that gives no offset, limit, outline or ifChanged with
	// the file's outline (at most MCPOutlineMaxBytes) and its first lines
	// (at most MCPFirstLines, MCPFirstBytes), as Zed's agent answers it:
	// a model sees the file's shape before it reads a range. A file with no
	// outline is read as asked. nil: never.
	OutlineOver *Num `json:"outlineOver"`
}

// ProcessReadParams are process/read's params.
type ProcessReadParams struct {
	ID string `json:"id"`
	// Since is a cursor from an earlier result; nil: where the last read
	// (or wait, or the exec that started the process) ended.
	Since *string `json:"since"`
	OutputParams
}

// ProcessWaitParams are process/wait's params.
type ProcessWaitParams struct {
	ID string `json:"id"`
	// TimeoutMs bounds the wait (default DefaultWaitTimeoutMs; 0: none).
	TimeoutMs *Num   `json:"timeoutMs"`
	Until     *Until `json:"until"`
	OutputParams
}

// Until is what ends a process/wait besides the exit.
type Until struct {
	// Pattern is an RE2 expression matched against each new line of
	// either stream, cleaned as the preview cleans it.
	Pattern *string `json:"pattern"`
	// IdleMs ends the wait once no output has come for that long.
	IdleMs *Num `json:"idleMs"`
}

// ProcessWriteParams are process/write's params.
type ProcessWriteParams struct {
	ID string `json:"id"`
	// Stdin is written to the process's stdin pipe, or typed into its
	// terminal (tty): there "\n" is Enter (sent as "\r", what the Enter
	// key sends) and control characters act ("\u0003" interrupts,
	// "\u0004" at a line's start is end of file).
	Stdin string `json:"stdin"`
	// Close closes stdin after writing; on a terminal it types Ctrl-D
	// (end of file) and the terminal stays open.
	Close bool `json:"close"`
	// Cols and Rows resize the process's terminal (both, or either with
	// the other kept); -32602 for a process without one.
	Cols *Num `json:"cols"`
	Rows *Num `json:"rows"`
}

// ProcessWriteResult is process/write's result.
type ProcessWriteResult struct {
	Written int     `json:"written"`
	Notice  *string `json:"notice"`
}

// ProcessKillParams are process/kill's params.
type ProcessKillParams struct {
	ID string `json:"id"`
	// Signal is a name ("SIGINT" or "INT") or a number; default SIGTERM.
	// Whatever it is, the group gets SIGTERM then SIGKILL 2 s later if it
	// is still there.
	Signal *SignalParam `json:"signal"`
}

// SignalParam is process/kill's signal: a JSON string (a name, "SIGINT" or
// "INT", or digits) or a JSON number, kept as the text given ("9" for 9).
type SignalParam string

// UnmarshalJSON implements json.Unmarshaler: a string or a whole number;
// anything else is a type error that names the field.
func (s *SignalParam) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		*s = SignalParam(v)
		return nil
	}
	var n Num
	if err := n.UnmarshalJSON(b); err != nil {
		return &json.UnmarshalTypeError{Value: string(b), Type: reflect.TypeFor[string]()}
	}
	*s = SignalParam(strconv.FormatInt(int64(n), 10))
	return nil
}

// ProcessOutput is process/read's and process/wait's result: the output
// since the cursor, as exec previews it. Line numbers in omitted and
// highlights are the spool's (the stream's whole output), so that page
// reads them as they are; totalLines and totalBytes count the new output.
type ProcessOutput struct {
	ID     string `json:"id"`
	Stdout Stream `json:"stdout"`
	Stderr Stream `json:"stderr"`
	// Since is the cursor the output starts at; Cursor is where it ends:
	// pass it as since to read what comes next (or omit since).
	Since    string  `json:"since"`
	Cursor   string  `json:"cursor"`
	Running  bool    `json:"running"`
	ExitCode *int    `json:"exitCode"` // null while running or when killed by a signal
	Signal   *string `json:"signal"`
	// Reason is why process/wait returned: ReasonExit, ReasonPattern,
	// ReasonIdle, ReasonInput or ReasonTimeout; "" for process/read.
	Reason string `json:"reason,omitempty"`
	// WaitingForInput is set while the process waits for input; null
	// when it does not.
	WaitingForInput *WaitingForInput `json:"waitingForInput"`
	Notice          *string          `json:"notice"`
}

// WaitingForInput says that a process waits for input: every process of
// its group that is not stopped is blocked reading its terminal or its
// stdin pipe, and it has printed nothing since.
type WaitingForInput struct {
	// Prompt is the last line the process wrote, whole or not (a prompt
	// has no newline yet), cleaned as the preview cleans lines and
	// clipped.
	Prompt string `json:"prompt"`
	// SinceMs is how long it has waited: milliseconds since its last
	// output (or the last write to it), when the reply was made.
	SinceMs int64 `json:"sinceMs"`
	// Echo is false when its terminal does not echo what is typed (a
	// password prompt): what process/write sends is not shown.
	Echo bool `json:"echo"`
}

// ProcessInfo is one process in process/list, and process/kill's result.
type ProcessInfo struct {
	ID        string  `json:"id"`
	Command   string  `json:"command"`
	Running   bool    `json:"running"`
	ExitCode  *int    `json:"exitCode"`
	Signal    *string `json:"signal"`
	StartedMs int64   `json:"startedMs"` // Unix time in milliseconds
	// TTY is set for a process on a terminal of its own.
	TTY bool `json:"tty"`
	// WaitingForInput is set while it waits for input; null when not.
	WaitingForInput *WaitingForInput `json:"waitingForInput"`
}

// ProcessData is error.data for an error about a process.
type ProcessData struct {
	Process string `json:"process"`
}
