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
	// Unenforced says, one sentence each, what this system does not
	// enforce of the sandbox; [] when it enforces everything.
	Unenforced []string `json:"unenforced"`
	// LandlockABI is the Landlock ABI enforced (capped by
	// TOOLD_SANDBOX_ABI); 0 for none.
	LandlockABI int `json:"landlockABI"`
	// UserNamespaces: the commands run in user, mount and PID namespaces
	// of the session's (and a network namespace with the network off).
	UserNamespaces bool `json:"userNamespaces"`
}

// SandboxSupport is what the daemon's system can enforce of a sandbox
// (stats, toold status).
type SandboxSupport struct {
	OS          string `json:"os"`
	LandlockABI int    `json:"landlockABI"`
	// UserNamespaces: usable ones (with capabilities inside);
	// UserNamespacesError says why not.
	UserNamespaces      bool   `json:"userNamespaces"`
	UserNamespacesError string `json:"userNamespacesError,omitempty"`
	Seccomp             bool   `json:"seccomp"`
	// Cgroups: each session gets a cgroup that ends its processes.
	Cgroups bool `json:"cgroups"`
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
	// Outline is the file's outline, for read and page with outline: true.
	Outline *Outline `json:"outline,omitempty"`
	// Unchanged says, for read with ifChanged: true, that none of the
	// window's lines changed since the session last read them: content is
	// empty.
	Unchanged bool `json:"unchanged,omitempty"`
	// Changed are, for read with ifChanged: true of a window the session
	// read before, the line ranges that differ from what it saw.
	Changed []LineRange `json:"changed,omitempty"`
}

// Outline is a file's outline: entries in line order, bounded by maxBytes
// (Truncated when some were left out of TotalEntries).
type Outline struct {
	// Format says how it was made: OutlineGo, OutlineCtags, ...
	Format       string         `json:"format"`
	Entries      []OutlineEntry `json:"entries"`
	TotalEntries int            `json:"totalEntries"`
	Truncated    bool           `json:"truncated"`
}

// OutlineEntry is one item of an outline: lines Line..EndLine, a read of
// offset=Line limit=EndLine-Line+1 opens it.
type OutlineEntry struct {
	Line    int64  `json:"line"`
	EndLine int64  `json:"endLine"`
	Depth   int    `json:"depth"`
	Kind    string `json:"kind"`
	Name    string `json:"name"`
	// Lines, Levels and Kinds describe a chunk of lines (a log's time
	// bucket, rows, array elements): its line count, its lines per log
	// level, its most frequent kinds of error (as exec's kinds: a masked
	// line, how many lines have it, the first and last of them).
	Lines  int64            `json:"lines,omitempty"`
	Levels map[string]int64 `json:"levels,omitempty"`
	Kinds  []Kind           `json:"kinds,omitempty"`
}

// LineRange is lines FromLine..ToLine, 1-based and inclusive.
type LineRange struct {
	FromLine int64 `json:"fromLine"`
	ToLine   int64 `json:"toLine"`
}

// Outline formats: Outline.Format.
const (
	OutlineGo       = "go"
	OutlineCtags    = "ctags"
	OutlineMarkdown = "markdown"
	OutlineJSON     = "json"
	OutlineYAML     = "yaml"
	OutlineCSV      = "csv"
	OutlineTSV      = "tsv"
	OutlineLog      = "log"
	OutlineIndent   = "indent"
)

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
	// WaitingForInput is set when exec returned because the command
	// waits for input (it runs on as process Process); null otherwise.
	WaitingForInput *WaitingForInput `json:"waitingForInput"`
	Notice          *string          `json:"notice"`
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
	// Reason says why the group is shown: one of HighlightReasons.
	Reason string `json:"reason"`
	// Rank is the group's place in highlight.Rank's order (0 first;
	// merged groups keep their best): the daemon's own, for fitting a
	// rendering (RenderParams), not sent.
	Rank int `json:"-"`
}

// The reasons of a highlight (Highlight.Reason): an error; a warning; the
// last lines before a non-zero exit, or lines a closing summary of failure
// refers to ("see previous errors", "N failed"); a shape seen once or
// twice among thousands of repeats, in no known format or words.
const (
	HighlightError   = "error"
	HighlightWarning = "warning"
	HighlightExit    = "exit"
	HighlightRare    = "rare"
)

// HighlightReasons are the values of Highlight.Reason.
var HighlightReasons = []string{HighlightError, HighlightWarning, HighlightExit, HighlightRare}

// RareBytes is the most bytes a stream shows of highlights of reason
// "rare".
const RareBytes = 1024

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

// StatsParams are stats' params.
type StatsParams struct {
	// Sandbox asks for Stats.Sandbox even when no sandbox was needed yet:
	// finding out what this system enforces starts a process (once per
	// daemon), which plain stats calls do not pay for.
	Sandbox bool `json:"sandbox"`
}

// Stats is stats' result.
type Stats struct {
	Sessions     int `json:"sessions"`
	ExecsRunning int `json:"execsRunning"`
	// Terminals counts the commands running on a terminal (exec's tty).
	Terminals  int        `json:"terminals"`
	Cache      CacheStats `json:"cache"`
	SpoolBytes int64      `json:"spoolBytes"`
	UptimeMs   int64      `json:"uptimeMs"`
	// Index lists the search index's trees; [] when none or it is off.
	Index []IndexStats `json:"index"`
	// Sandbox is what this system can enforce of a sandbox; null until a
	// sandbox was needed or params.sandbox asked.
	Sandbox *SandboxSupport `json:"sandbox"`
	// Daemon is what the daemon was started with.
	Daemon DaemonSettings `json:"daemon"`
}

// DaemonSettings are the settings a daemon takes only when it starts (the
// flags of toold serve): a client of a running daemon that gives others is
// told that they do not apply (toold --remote).
type DaemonSettings struct {
	SpoolRoot         string `json:"spoolRoot"`
	SpoolSessionQuota int64  `json:"spoolSessionQuota"`
	SpoolDaemonQuota  int64  `json:"spoolDaemonQuota"`
	Index             string `json:"index"`      // "on" or "off"
	IndexQuota        int64  `json:"indexQuota"` // 0 when off
	// IdleTimeoutMs is how long the daemon runs with no clients; 0: it
	// does not listen on a socket, or never exits for want of clients.
	IdleTimeoutMs  int64 `json:"idleTimeoutMs"`
	WriteTimeoutMs int64 `json:"writeTimeoutMs"` // negative: none
	MaxConns       int   `json:"maxConns"`       // connections of one uid at once
}

// Search index states: IndexStats.State.
const (
	IndexBuilding = "building"
	IndexReady    = "ready"
	IndexScanning = "scanning" // not trusted now (reason says why): grep scans
)

// IndexStats is one tree of the search index.
type IndexStats struct {
	Root    string `json:"root"`
	State   string `json:"state"`
	Reason  string `json:"reason,omitempty"` // why scanning
	Files   int    `json:"files"`
	Bytes   int64  `json:"bytes"`   // of its file on disk
	BuiltMs int64  `json:"builtMs"` // its last build; 0 when taken from disk
	Hits    int64  `json:"hits"`    // greps answered from it
	Scans   int64  `json:"scans"`   // greps of the tree that scanned
}

// CacheStats are the file index cache's counters.
type CacheStats struct {
	Entries       int   `json:"entries"`
	Hits          int64 `json:"hits"`
	Misses        int64 `json:"misses"`
	Invalidations int64 `json:"invalidations"`
	IndexBytes    int64 `json:"indexBytes"`
}

// UnchangedWindow is how an unchanged window (read with ifChanged whose
// lines the session has already) goes on the wire: path, content (""), its
// lines, totalLines, totalBytes, truncated, next, unchanged and notice, so
// that the answer to re-reading 2000 unchanged lines stays under 300 bytes.
// The byte offsets, truncatedBy and the other flags are those of the read
// the session made before. A client decodes it as a Window.
type UnchangedWindow struct {
	Path       string  `json:"path"`
	Content    string  `json:"content"`
	StartLine  int64   `json:"startLine"`
	EndLine    int64   `json:"endLine"`
	TotalLines int64   `json:"totalLines"`
	TotalBytes int64   `json:"totalBytes"`
	Truncated  bool    `json:"truncated"`
	Next       *Next   `json:"next"`
	Unchanged  bool    `json:"unchanged"`
	Notice     *string `json:"notice"`
}

// Short is w's short form for the wire, for an unchanged window.
func (w *Window) Short() *UnchangedWindow {
	return &UnchangedWindow{w.Path, "", w.StartLine, w.EndLine, w.TotalLines, w.TotalBytes, w.Truncated, w.Next, true, w.Notice}
}
