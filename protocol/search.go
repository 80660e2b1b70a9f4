package protocol

// Search methods: grep, find and ls (PROTOCOL.md, "Search").
const (
	MethodGrep = "grep"
	MethodFind = "find"
	MethodLs   = "ls"
)

// Defaults and caps of the search methods. A limit above its cap is
// clamped to it.
const (
	DefaultGrepLimit        = 100
	MaxGrepLimit            = 2000
	DefaultGrepMaxLineChars = 500
	DefaultGrepMaxBytes     = 51200
	MaxGrepBytes            = MaxWindowBytes
	MaxGrepContext          = 100
	// MaxGrepFileSize: a tree's files larger than this are skipped (tooLarge);
	// a file or spool named by path or spool is searched whatever its size.
	MaxGrepFileSize  = 64 << 20
	DefaultFindLimit = 1000
	MaxFindLimit     = 100000
	DefaultLsLimit   = 500
	MaxLsLimit       = 100000
)

// Find types: FindParams.Type.
const (
	FindTypeFile = "file"
	FindTypeDir  = "dir"
)

// Limits by which a grep ends: GrepResult.LimitReached.
const (
	GrepByMatches = "matches"
	GrepByBytes   = "bytes"
)

// GrepParams are grep's params.
type GrepParams struct {
	Pattern      string `json:"pattern"`
	Literal      bool   `json:"literal"`
	IgnoreCase   bool   `json:"ignoreCase"`
	Path         string `json:"path"`
	Spool        string `json:"spool"`
	Glob         string `json:"glob"`
	NoIgnore     bool   `json:"noIgnore"` // search what .gitignore/.ignore exclude
	Context      *Num   `json:"context"`
	Limit        *Num   `json:"limit"`
	MaxLineChars *Num   `json:"maxLineChars"`
	MaxBytes     *Num   `json:"maxBytes"`
	// Render is as find's: the last matches are cut, as a smaller limit
	// cuts them, until notice's rendering (notice.GrepText) fits.
	Render *RenderParams `json:"render"`
}

// FindParams are find's params.
type FindParams struct {
	Pattern  string `json:"pattern"`
	Path     string `json:"path"`
	Type     string `json:"type"`
	NoIgnore bool   `json:"noIgnore"`
	Limit    *Num   `json:"limit"`
	// Render is toold's own, as exec's (RenderParams): the result's
	// entries are cut, as a smaller limit cuts them, until notice's
	// rendering of it fits.
	Render *RenderParams `json:"render"`
}

// LsParams are ls' params.
type LsParams struct {
	Path     string `json:"path"`
	Limit    *Num   `json:"limit"`
	All      bool   `json:"all"`
	NoIgnore bool   `json:"noIgnore"`
	// Render is as find's.
	Render *RenderParams `json:"render"`
}

// GrepResult is grep's result.
type GrepResult struct {
	// Files are the files with a shown match, in walk order: depth first,
	// each directory's entries sorted by name.
	Files        []GrepFile  `json:"files"`
	TotalMatches int         `json:"totalMatches"` // the Count of Files added up
	LimitReached *string     `json:"limitReached"` // GrepByMatches, GrepByBytes or null
	ClippedLines int         `json:"clippedLines"` // shown lines cut at maxLineChars
	Skipped      GrepSkipped `json:"skipped"`
	Notice       *string     `json:"notice"`
}

// GrepFile is one file's matches.
type GrepFile struct {
	// Path is relative to the searched directory; for a file, the path
	// searched; for a spool, the spool file.
	Path    string      `json:"path"`
	Matches []GrepMatch `json:"matches"`
	Count   int         `json:"count"` // matching lines in the file, shown or not
}

// GrepMatch is one matching line and its context, each line without its
// line ending, clipped at maxLineChars.
type GrepMatch struct {
	Line   int      `json:"line"`
	Text   string   `json:"text"`
	Before []string `json:"before"` // lines line-len(before) to line-1; [] when none
	After  []string `json:"after"`  // up to the next matching line; [] when none
}

// GrepSkipped counts what a grep of a tree did not search: binary files
// with a match, files over MaxGrepFileSize, entries the ignore files
// exclude.
type GrepSkipped struct {
	Binary   int `json:"binary"`
	TooLarge int `json:"tooLarge"`
	Ignored  int `json:"ignored"`
}

// EntriesResult is find's and ls' result.
type EntriesResult struct {
	// Entries are sorted; a directory's ends with '/'. find's are paths
	// relative to its path; ls' are names, a symlink's as "name -> target".
	Entries      []string `json:"entries"`
	Total        int      `json:"total"` // entries that passed the filters, listed or not
	LimitReached bool     `json:"limitReached"`
	Notice       *string  `json:"notice"`
}
