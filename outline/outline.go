package outline

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toold/toold/protocol"
)

// Formats, Outline.Format.
const (
	Go       = "go"
	Ctags    = "ctags"
	Markdown = "markdown"
	JSON     = "json"
	YAML     = "yaml"
	CSV      = "csv"
	TSV      = "tsv"
	Log      = "log"
	Indent   = "indent"
)

// Entry is one item of an outline: the wire's type, as its fields are
// what the formats make (lines Line..EndLine, 1-based and inclusive; Lines,
// Levels and Kinds for a log's time buckets and for chunks).
type Entry = protocol.OutlineEntry

// Outline is a file's outline.
type Outline struct {
	Format       string  `json:"format"`
	Entries      []Entry `json:"entries"`
	TotalEntries int     `json:"totalEntries"`
	Truncated    bool    `json:"truncated"`
	// Summary is a line about the whole file for the notice (a CSV's row
	// count, a log's buckets with the most errors); "" when none.
	Summary string `json:"-"`
}

// Options bound an outline's memory. The zero value means the defaults.
type Options struct {
	// MaxEntries bounds the entries held; default 4096.
	MaxEntries int
	// MaxGoBytes is the largest Go file parsed by go/ast; a larger one is
	// outlined by indent. Default 16 MiB. Within it, a file whose parse
	// would take more than the daemon's go/ast budget (goBudget) or nest
	// deeper than maxGoDepth is outlined by indent too (see buildGo).
	MaxGoBytes int64
	// MaxCtagsBytes is the largest file given to ctags (some of its parsers
	// take minutes on tens of MB); a larger one is outlined by indent.
	// Default 16 MiB.
	MaxCtagsBytes int64
	// Start starts ctags; nil starts it plainly.
	Start Starter
	// FromLine leaves out the entries that start before it (paging an
	// outline as a window is paged); 0 or 1 for all.
	FromLine int64
}

func (o Options) withDefaults() Options {
	if o.MaxEntries <= 0 {
		o.MaxEntries = 4096
	}
	if o.MaxGoBytes <= 0 {
		o.MaxGoBytes = 16 << 20
	}
	if o.MaxCtagsBytes <= 0 {
		o.MaxCtagsBytes = 16 << 20
	}
	return o
}

// maxName bounds an entry's name, in bytes.
const maxName = 120

// Detect chooses a format from the path's extension and the file's first
// bytes. ctags is chosen for code; Build falls back to indent when ctags is
// missing or finds nothing.
func Detect(path string, head []byte) string {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".go":
		return Go
	case ".md", ".markdown", ".mdown", ".mkd":
		return Markdown
	case ".json", ".geojson", ".har":
		return JSON
	case ".yaml", ".yml":
		return YAML
	case ".csv":
		return CSV
	case ".tsv", ".tab":
		return TSV
	case ".log", ".out", ".err", ".jsonl", ".ndjson":
		return Log
	case ".txt", ".text", "":
		if looksLikeLog(head) {
			return Log
		}
		return Indent
	}
	if looksLikeLog(head) {
		return Log
	}
	return Ctags
}

// looksLikeLog says whether most of head's first lines start with a time.
func looksLikeLog(head []byte) bool {
	lines := strings.Split(string(head), "\n")
	if len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last may be cut
	}
	n, stamped := 0, 0
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n++
		if _, ok := parseTime([]byte(l)); ok {
			stamped++
		}
		if n == 20 {
			break
		}
	}
	return n > 0 && stamped*2 >= n
}

// Scanner is a streaming outliner: Write is fed the file's bytes in order,
// then Finish is called once with the file's line count.
type Scanner interface {
	io.Writer
	Finish(totalLines int64) *Outline
}

// NewScanner returns the streaming scanner of format, or nil for a format
// that needs the whole file (go, ctags).
func NewScanner(format string, opt Options) Scanner {
	opt = opt.withDefaults()
	switch format {
	case Markdown:
		return newMarkdown(opt)
	case JSON:
		return newJSON(opt)
	case YAML:
		return newYAML(opt)
	case CSV:
		return newCSV(opt, ',')
	case TSV:
		return newCSV(opt, '\t')
	case Log:
		return newLog(opt)
	case Indent:
		return newIndent(opt)
	}
	return nil
}

// ErrStream says the format needs Build, not a Scanner.
var ErrStream = errors.New("outline: format is not streamed")

// Build outlines the whole file at path (r, size bytes, totalLines lines)
// in a format that is not streamed: go (falling back to indent for a file
// too large or that does not parse) or ctags (falling back to indent when
// ctags is missing or finds nothing). A fallback is returned as nil, nil:
// the caller streams the file through NewScanner(Indent).
func Build(ctx context.Context, format, path string, r io.ReaderAt, size, totalLines int64, opt Options) (*Outline, error) {
	opt = opt.withDefaults()
	switch format {
	case Go:
		return buildGo(ctx, path, r, size, totalLines, opt)
	case Ctags:
		if size > opt.MaxCtagsBytes {
			return nil, nil
		}
		o, err := ctagsOutline(ctx, path, r, size, opt)
		if o != nil {
			fillEnds(o.Entries, totalLines)
		}
		return o, err
	}
	return nil, ErrStream
}

// Fit cuts o to at most maxBytes of JSON: the deepest entries go first
// (never the shallowest depth there is), then the last ones. It returns
// the line of the first entry cut at the end (where the next page of the
// outline starts), 0 when none was. It sets Truncated when any went.
func Fit(o *Outline, maxBytes int) (next int64) {
	size := func() int {
		n := 64 + len(o.Format)
		for i := range o.Entries {
			n += entrySize(&o.Entries[i]) + 1
		}
		return n
	}
	total := size()
	for total > maxBytes {
		deepest, shallowest := 0, 1<<30
		for _, e := range o.Entries {
			deepest, shallowest = max(deepest, e.Depth), min(shallowest, e.Depth)
		}
		if deepest <= shallowest {
			break
		}
		kept := o.Entries[:0]
		for _, e := range o.Entries {
			if e.Depth < deepest {
				kept = append(kept, e)
			}
		}
		o.Entries = kept
		o.Truncated = true
		total = size()
	}
	n := 64 + len(o.Format)
	for i := range o.Entries {
		n += entrySize(&o.Entries[i]) + 1
		if n > maxBytes {
			next = o.Entries[i].Line
			o.Entries = o.Entries[:i]
			o.Truncated = true
			break
		}
	}
	if len(o.Entries) < o.TotalEntries {
		o.Truncated = true
	}
	return next
}

// ClampEnds makes every entry of o end within the file (totalLines lines)
// and no earlier than it starts: go/ast gives a declaration the parser gave
// up in (a file that does not parse) no end, and the entry's read would be
// limit=-1. Such an entry runs to the file's last line, where the parser
// stopped looking for its end.
func ClampEnds(o *Outline, totalLines int64) {
	for i := range o.Entries {
		e := &o.Entries[i]
		if e.EndLine < e.Line {
			e.EndLine = totalLines
		}
		e.EndLine = max(min(e.EndLine, totalLines), e.Line)
	}
}

// Since leaves out of o the entries that start before line from.
func Since(o *Outline, from int64) {
	if from <= 1 {
		return
	}
	kept := o.Entries[:0]
	for _, e := range o.Entries {
		if e.Line >= from {
			kept = append(kept, e)
		}
	}
	o.Entries = kept
}

func entrySize(e *Entry) int {
	b, _ := json.Marshal(e)
	return len(b)
}

// clip cuts s to maxName bytes at a character boundary, with "…" when cut.
func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= maxName {
		return s
	}
	i := maxName
	for i > 0 && s[i]&0xC0 == 0x80 {
		i--
	}
	return s[:i] + "…"
}

// collector holds at most max entries and counts them all. When it is
// full, the deepest entries held make room for shallower ones, and entries
// as deep are no longer held: an outline of a large file keeps its top
// levels to its end rather than all levels of its beginning. add returns a
// handle (the entry's number) by which end sets the entry's last line.
type collector struct {
	from    int64 // entries starting before are counted, not held
	max     int
	entries []Entry
	seqs    []int // the handle of each entry held, rising
	total   int
	limit   int // entries deeper are not held (once full)
	limited bool
}

func (c *collector) add(e Entry) int {
	h := c.total
	c.total++
	if c.limited && e.Depth > c.limit || e.Line < c.from {
		return h
	}
	if len(c.entries) >= c.max && !c.shed(e.Depth) {
		return h
	}
	c.entries = append(c.entries, e)
	c.seqs = append(c.seqs, h)
	return h
}

// shed drops the deepest entries held when they are deeper than depth,
// and says whether there is room now.
func (c *collector) shed(depth int) bool {
	deepest := 0
	for _, e := range c.entries {
		deepest = max(deepest, e.Depth)
	}
	c.limited = true
	if deepest <= depth {
		c.limit = depth - 1 // full of entries as shallow: hold none this deep
		return false
	}
	c.limit = deepest - 1
	k := 0
	for i, e := range c.entries {
		if e.Depth < deepest {
			c.entries[k], c.seqs[k] = e, c.seqs[i]
			k++
		}
	}
	clear(c.entries[k:])
	c.entries, c.seqs = c.entries[:k], c.seqs[:k]
	return len(c.entries) < c.max
}

func (c *collector) end(h int, endLine int64) {
	if i := sort.SearchInts(c.seqs, h); i < len(c.seqs) && c.seqs[i] == h {
		c.entries[i].EndLine = endLine
	}
}

func (c *collector) outline(format string) *Outline {
	if c.entries == nil {
		c.entries = []Entry{}
	}
	return &Outline{Format: format, Entries: c.entries, TotalEntries: c.total, Truncated: c.total > len(c.entries)}
}
