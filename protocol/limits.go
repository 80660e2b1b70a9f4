package protocol

// ReadLimits are the per-call defaults of read.
type ReadLimits struct {
	Limit        int `json:"limit"`
	MaxBytes     int `json:"maxBytes"`
	MaxLineChars int `json:"maxLineChars"`
}

// ReadBytesLimits are the per-call defaults of readBytes.
type ReadBytesLimits struct {
	MaxBytes int `json:"maxBytes"`
}

// ExecLimits are the per-call defaults of exec.
type ExecLimits struct {
	MaxLines  int   `json:"maxLines"`
	MaxBytes  int   `json:"maxBytes"`
	TimeoutMs int64 `json:"timeoutMs"`
}

// Limits are a session's per-call defaults, set by initialize.
type Limits struct {
	Read      ReadLimits      `json:"read"`
	ReadBytes ReadBytesLimits `json:"readBytes"`
	Exec      ExecLimits      `json:"exec"`
}

// DefaultLimits are the contract's defaults.
var DefaultLimits = Limits{
	Read:      ReadLimits{Limit: 2000, MaxBytes: 51200, MaxLineChars: 2000},
	ReadBytes: ReadBytesLimits{MaxBytes: 65536},
	Exec:      ExecLimits{MaxLines: 2000, MaxBytes: 51200, TimeoutMs: 120000},
}

// Caps: a size or count above its cap is clamped to it, not refused.
const (
	MaxWindowBytes   = 262144           // read, readBytes and page maxBytes
	MaxLimitLines    = 1 << 20          // read limit
	MaxLineChars     = 1 << 30          // maxLineChars of read, page and exec
	MaxExecLines     = 100000           // exec maxLines
	MaxExecBytes     = 262144           // exec maxBytes
	MaxExecTimeoutMs = 24 * 3600 * 1000 // a day
	MaxImageBytes    = 5 << 20          // images returned as base64
)

// MCP's read of a file larger than MCPOutlineBytes with no offset or limit
// answers with the file's outline, cut to MCPOutlineMaxBytes, and its first
// lines, at most MCPFirstLines and MCPFirstBytes.
const (
	MCPOutlineBytes    = 64 << 10
	MCPOutlineMaxBytes = 12 << 10
	MCPFirstLines      = 100
	MCPFirstBytes      = 8 << 10
)

// Spool bounds: the cap of one spool file, and the default quotas over a
// session's spool files and over all of a daemon's (toold's flags
// --spool-session-quota and --spool-daemon-quota set others). Past a quota
// the writing session's oldest spools are evicted.
const (
	MaxSpoolFileBytes   int64 = 100 << 20
	DefaultSessionQuota int64 = 1 << 30
	DefaultDaemonQuota  int64 = 4 << 30
)

// Preview modes of exec's preview param.
const (
	PreviewHeadTail = "headTail" // the default: the first and the last lines
	PreviewHead     = "head"
	PreviewTail     = "tail"
)

// PreviewModes lists the preview modes, the default first.
var PreviewModes = []string{PreviewHeadTail, PreviewHead, PreviewTail}

// Limits by which a window ends: Window.TruncatedBy.
const (
	ByLines = "lines"
	ByBytes = "bytes"
)

// toold mcp's budget (PROTOCOL.md, "MCP"): a tool result must reach the
// model whole, and clients set aside results past ~50 KB (Claude Code saves
// one to a file and shows its first 2 KB), so at toold mcp's default limits
// a result's text is at most MCPResultBytes, both streams and the notice
// together. The sizes below are what toold mcp sends a call that gives none
// of its own; a call that gives a size gets what it asks for.
const (
	MCPResultBytes = 24 << 10
	// MCPExecBytes is exec's and the process tools' maxBytes per stream:
	// two streams and the lines around them fit in MCPResultBytes.
	MCPExecBytes = 10 << 10
	// MCPWindowBytes is read's, readBytes' and page's maxBytes: the
	// window, its line numbers and its notice fit.
	MCPWindowBytes = 16 << 10
	// MCPGrepBytes is grep's maxBytes (of lines; each match also shows its
	// path and line number).
	MCPGrepBytes = 12 << 10
	// MCPEntries is find's and ls' limit.
	MCPEntries = 250
)
