package protocol

// InitializeResult is initialize's result.
type InitializeResult struct {
	ServerInfo ServerInfo `json:"serverInfo"`
	Session    string     `json:"session"`
	// SpoolDir is the session's spool directory; null when it has none
	// (the spool root was refused or cannot be made: exec gives its
	// preview without spools).
	SpoolDir *string  `json:"spoolDir"`
	Limits   Limits   `json:"limits"` // the effective ones
	Methods  []string `json:"methods"`
	// Sandbox is the session's sandbox as enforced; null when off.
	Sandbox *SandboxInfo `json:"sandbox"`
	// Notice names the params initialize ignored (a misspelt limit would
	// otherwise leave its default in force without a word); null when none.
	Notice *string `json:"notice"`
}

// SandboxInfo is the sandbox a session's commands run in.
type SandboxInfo struct {
	Mode string `json:"mode"`
	// Writable are the directories writes are allowed beneath, TMPDIR's
	// among them (none else in read-only).
	Writable []string `json:"writable"`
	// Readable, when not null, are the only directories reads are allowed
	// beneath (read-only with roots); null means everywhere.
	Readable []string `json:"readable"`
	Network  bool     `json:"network"`
	// TmpDir is the session's private TMPDIR, removed with the session.
	TmpDir string `json:"tmpDir"`
	// Unenforced says what this kernel cannot enforce (bestEffort); []
	// when it enforces everything.
	Unenforced []string `json:"unenforced"`
}

// ServerInfo names the server.
type ServerInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ServerName is ServerInfo.Name.
const ServerName = "toold"

// Window is the one shape read, readBytes and page answer with.
type Window struct {
	Path         string  `json:"path"`
	Content      string  `json:"content"`
	StartLine    int64   `json:"startLine"`
	EndLine      int64   `json:"endLine"`
	TotalLines   int64   `json:"totalLines"`
	StartByte    int64   `json:"startByte"`
	EndByte      int64   `json:"endByte"`
	TotalBytes   int64   `json:"totalBytes"`
	Truncated    bool    `json:"truncated"`
	TruncatedBy  *string `json:"truncatedBy"` // ByLines, ByBytes or null
	Next         *Next   `json:"next"`
	ClippedLines int     `json:"clippedLines"`
	PartialLine  bool    `json:"partialLine"`
	Binary       bool    `json:"binary"`
	Notice       *string `json:"notice"`
	Image        *Image  `json:"image,omitempty"`
}

// Next says where the following window starts: Offset in line mode,
// StartByte in byte mode.
type Next struct {
	Offset    *int64 `json:"offset,omitempty"`
	StartByte *int64 `json:"startByte,omitempty"`
}

// Image is an image file's content, for a client that shows images.
type Image struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"` // base64
}

// ExecResult is exec's result: how the command ended, its two streams and a
// notice for the model.
type ExecResult struct {
	ExitCode   *int    `json:"exitCode"`  // null when killed by a signal
	Signal     *string `json:"signal"`    // the signal that killed it, e.g. "SIGTERM"
	TimedOut   bool    `json:"timedOut"`  // the timeout ended it
	Cancelled  bool    `json:"cancelled"` // cancelled, or the daemon stopped
	DurationMs int64   `json:"durationMs"`
	Stdout     Stream  `json:"stdout"`
	Stderr     Stream  `json:"stderr"`
	// Process is the id of the background process the command became
	// (yieldMs or background), null when it has exited: exitCode is then
	// null too, and the streams hold the output so far.
	Process *string `json:"process"`
	Notice  *string `json:"notice"`
}

// Stream is the preview of one output stream: Head, the omitted middle
// (with its Highlights), then Tail, and the spool that keeps it whole.
type Stream struct {
	Head         string    `json:"head"`
	Tail         string    `json:"tail"`
	TotalBytes   int64     `json:"totalBytes"`
	TotalLines   int64     `json:"totalLines"`
	ShownLines   int       `json:"shownLines"`
	ShownBytes   int       `json:"shownBytes"`
	ClippedLines int       `json:"clippedLines"`
	Omitted      *Omitted  `json:"omitted"`
	Truncated    bool      `json:"truncated"`
	Spool        *SpoolRef `json:"spool"`
	Binary       bool      `json:"binary"`
	// Highlights are groups of lines from the omitted middle that a model
	// must see, in output order; never null on the wire ([] when none).
	Highlights []Highlight `json:"highlights"`
	// HighlightsOmitted counts groups found but left out for the budget.
	HighlightsOmitted int `json:"highlightsOmitted"`
	// Kinds are the shapes of the failure lines found, when more were
	// found than the preview shows: most frequent first, at most 10; never
	// null on the wire ([] when every one found is shown).
	Kinds []Kind `json:"kinds"`
}

// Kind is a shape of failure lines: a representative line with its
// variable parts (numbers, ids, paths, quoted values) masked as <*>, how
// many lines have it, and where the first and the last are.
type Kind struct {
	Text      string `json:"text"`
	Count     int64  `json:"count"`
	FirstLine int64  `json:"firstLine"`
	LastLine  int64  `json:"lastLine"`
}

// Highlight is a group of whole lines (1-based, inclusive) from the omitted
// middle of a stream, cleaned and clipped as head and tail are.
type Highlight struct {
	FromLine int64  `json:"fromLine"`
	ToLine   int64  `json:"toLine"`
	Text     string `json:"text"`
}

// Omitted names the raw lines (1-based, inclusive) that Head and Tail leave
// out, and their raw bytes.
type Omitted struct {
	FromLine int64 `json:"fromLine"`
	ToLine   int64 `json:"toLine"`
	Bytes    int64 `json:"bytes"`
}

// SpoolRef names the spool file that holds a stream's raw output.
type SpoolRef struct {
	ID     string `json:"id"`
	Path   string `json:"path"`
	Bytes  int64  `json:"bytes"`
	Capped bool   `json:"capped"` // output past the spool's cap was dropped
}

// Stats is stats' result.
type Stats struct {
	Sessions     int        `json:"sessions"`
	ExecsRunning int        `json:"execsRunning"`
	Cache        CacheStats `json:"cache"`
	SpoolBytes   int64      `json:"spoolBytes"`
	UptimeMs     int64      `json:"uptimeMs"`
}

// CacheStats are the file index cache's counters.
type CacheStats struct {
	Entries       int   `json:"entries"`
	Hits          int64 `json:"hits"`
	Misses        int64 `json:"misses"`
	Invalidations int64 `json:"invalidations"`
	IndexBytes    int64 `json:"indexBytes"`
}
