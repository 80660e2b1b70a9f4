package protocol

// InitializeParams are initialize's params.
type InitializeParams struct {
	ClientInfo *ClientInfo       `json:"clientInfo"`
	Cwd        string            `json:"cwd"`
	Env        map[string]string `json:"env"`
	Roots      []string          `json:"roots"`
	Limits     *LimitsParams     `json:"limits"`
	// Sandbox confines the session's commands (PROTOCOL.md, "Sandbox");
	// nil means the daemon's default (off unless serve's --sandbox).
	Sandbox *SandboxParams `json:"sandbox"`
	// Notices are facts about the client that the daemon's notices are
	// composed with; nil is the default of each.
	Notices *NoticeParams `json:"notices"`
}

// NoticeParams are initialize's notices: what the reader of a result can
// do, so that a notice says only what it can.
type NoticeParams struct {
	// SpoolsKept, false, says that the session's spools are gone when its
	// results are read (toold call ends its session with its one call): a
	// notice then says the output was not kept instead of naming a spool
	// to page. Default true.
	SpoolsKept *bool `json:"spoolsKept"`
	// ToolNames, true, says that the reader calls the methods as toold
	// mcp's tools: notices name process/read as process_read (MCP tool
	// names allow no "/"). Default false.
	ToolNames bool `json:"toolNames"`
}

// The sandbox modes.
const (
	SandboxOff            = "off"
	SandboxReadOnly       = "read-only"
	SandboxWorkspaceWrite = "workspace-write"
)

// SandboxModes lists the modes, for the flags and the schema.
var SandboxModes = []string{SandboxOff, SandboxReadOnly, SandboxWorkspaceWrite}

// SandboxParams are initialize's sandbox.
type SandboxParams struct {
	// Mode is off (the default), read-only (no write but TMPDIR) or
	// workspace-write (writes beneath the roots, or the cwd without
	// roots, the writable dirs and TMPDIR).
	Mode string `json:"mode"`
	// Writable are more directories workspace-write may write beneath.
	Writable []string `json:"writable"`
	// Network allows sockets beyond loopback; default false.
	Network bool `json:"network"`
	// BestEffort starts the session when the kernel cannot enforce all
	// of the sandbox, its notice saying what is not; else that is -32007.
	BestEffort bool `json:"bestEffort"`
}

// ClientInfo names the client.
type ClientInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// LimitsParams are initialize's limits: each field optional, shaped as the
// params they are the defaults of.
type LimitsParams struct {
	Read      *ReadLimitsParams      `json:"read,omitempty"`
	ReadBytes *ReadBytesLimitsParams `json:"readBytes,omitempty"`
	Exec      *ExecLimitsParams      `json:"exec,omitempty"`
}

// ReadLimitsParams are initialize's limits.read.
type ReadLimitsParams struct {
	Limit        *Num `json:"limit,omitempty"`
	MaxBytes     *Num `json:"maxBytes,omitempty"`
	MaxLineChars *Num `json:"maxLineChars,omitempty"`
}

// ReadBytesLimitsParams are initialize's limits.readBytes.
type ReadBytesLimitsParams struct {
	MaxBytes *Num `json:"maxBytes,omitempty"`
}

// ExecLimitsParams are initialize's limits.exec.
type ExecLimitsParams struct {
	MaxLines  *Num `json:"maxLines,omitempty"`
	MaxBytes  *Num `json:"maxBytes,omitempty"`
	TimeoutMs *Num `json:"timeoutMs,omitempty"`
}

// ReadParams are read's params, and page's in line mode.
type ReadParams struct {
	Path         string `json:"path"`
	Offset       *Num   `json:"offset"`
	Limit        *Num   `json:"limit"`
	MaxBytes     *Num   `json:"maxBytes"`
	MaxLineChars *Num   `json:"maxLineChars"`
	// Outline asks for the file's outline instead of its lines: an empty
	// content and Window.Outline, bounded by maxBytes.
	Outline bool `json:"outline"`
	// IfChanged asks for the lines only if they changed since the session
	// last read them: Window.Unchanged, or the window and Window.Changed.
	IfChanged bool `json:"ifChanged"`
	// Render is toold's own (not in PROTOCOL.md), as exec's
	// (RenderParams): the window gives up its last lines (bytes, by
	// startByte) until its rendering fits, and a read of a large file with
	// no range can be answered with its outline and first lines.
	Render *RenderParams `json:"render"`
}

// ReadBytesParams are readBytes' params.
type ReadBytesParams struct {
	Path      string `json:"path"`
	StartByte *Num   `json:"startByte"`
	MaxBytes  *Num   `json:"maxBytes"`
	// Render is as read's: the window gives up its last bytes until its
	// rendering fits.
	Render *RenderParams `json:"render"`
}

// PageParams are page's params: a spool, then read's or, with StartByte,
// readBytes'.
type PageParams struct {
	Spool string `json:"spool"`
	ReadParams
	StartByte *Num  `json:"startByte"`
	Clean     *bool `json:"clean"`
}

// ExecParams are exec's params.
type ExecParams struct {
	Command      *string           `json:"command"`
	Argv         []string          `json:"argv"`
	Cwd          string            `json:"cwd"`
	Env          map[string]string `json:"env"`
	Stdin        *string           `json:"stdin"`
	TimeoutMs    *Num              `json:"timeoutMs"`
	MergeStderr  bool              `json:"mergeStderr"`
	OutputParams                   // maxLines, maxBytes, preview, maxLineChars, clean
	// YieldMs makes the command a background process if it still runs
	// after that long: the result then has its preview so far and Process.
	// Its timeoutMs then applies only when given, and stdin stays open for
	// process/write.
	YieldMs *Num `json:"yieldMs"`
	// Background is YieldMs 0: the result comes at once.
	Background bool `json:"background"`
	// TTY runs the command on a pseudo-terminal of its own (PROTOCOL.md,
	// "Commands that wait for input"): its controlling terminal, stdin,
	// stdout and stderr (stderr then comes in stdout), of Cols x Rows
	// (defaults DefaultTTYCols, DefaultTTYRows), with TTYEnv's defaults.
	TTY  bool `json:"tty"`
	Cols *Num `json:"cols"`
	Rows *Num `json:"rows"`
}
