package search

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// LimitKind says which limit ended a grep. The zero value is LimitNone.
type LimitKind int

const (
	// LimitNone: every match is shown.
	LimitNone LimitKind = iota
	// LimitMatches: GrepOptions.Limit matches were shown and there are more.
	LimitMatches
	// LimitBytes: the next match would pass GrepOptions.MaxBytes.
	LimitBytes
)

// String returns "", "matches" or "bytes".
func (k LimitKind) String() string {
	switch k {
	case LimitMatches:
		return "matches"
	case LimitBytes:
		return "bytes"
	}
	return ""
}

// GrepOptions are a grep's filters and limits. The zero value searches
// every file with no limit: defaults and caps are the caller's policy.
type GrepOptions struct {
	// Glob keeps the files of a tree that match it (doublestar syntax, **
	// for any number of directories): matched against the path relative to
	// the searched directory, or against the file name when it holds no
	// '/'. Empty keeps every file.
	Glob string
	// Context is how many lines before and after each match are shown.
	Context int
	// Limit is how many matching lines are shown; 0 is no limit.
	Limit int
	// MaxLineChars clips shown lines at this many characters; 0 does not.
	MaxLineChars int
	// MaxBytes bounds the bytes of the shown lines and paths; 0 is no bound.
	MaxBytes int
	// MaxFileSize skips a tree's files larger than this (a file or reader
	// searched by name is searched whatever its size); 0 is no cap.
	MaxFileSize int64
	// Clean shows lines as a terminal would have left them (ANSI escapes
	// stripped, \r redraws resolved), as exec's preview and page show an
	// exec spool; lines are matched as they are.
	Clean bool
	// IgnoreFrom is an ancestor of the searched directory (say, the root
	// of its repository) whose ignore files, and those of the directories
	// between, apply too. Empty: only the tree's own. Either way a
	// .gitignore applies only inside a git work tree (a .git at or above
	// its directory), a .ignore everywhere, as ripgrep has it.
	IgnoreFrom string
	// NoIgnore reads no ignore file: ignored files are searched too (VCS
	// directories stay skipped).
	NoIgnore bool
	// Allow checks the searched directory or file once open; nil allows all.
	Allow Allow
	// Candidate, when set, says which files of a tree may match (an
	// index's answer, by path relative to the searched directory): the
	// others are passed over as files without a match.
	Candidate func(rel string) bool
	// Text, when set, says which files of a GrepListing's listing (by
	// index) are text as they are now (an index judged them with IsBinary
	// and they have not changed since): their judgement is skipped.
	Text func(i int32) bool
}

// Match is one matching line.
type Match struct {
	// Line is the line's number, from 1.
	Line int
	// Text is the line without its line ending, clipped.
	Text string
	// Before and After are the context lines around it, each shown once in
	// a file: Before are lines Line-len(Before) to Line-1; After stops
	// before the next matching line.
	Before, After []string

	size, clipped int // bytes of the shown lines; how many were clipped
}

// FileMatches are the matches in one file.
type FileMatches struct {
	// Path is relative to the searched directory ('/'-separated), or the
	// name the file or reader was searched by.
	Path string
	// Matches are the shown matches, in line order.
	Matches []Match
	// Count is how many lines of the file match, shown or not.
	Count int
}

// Skipped counts the files of a tree that were not searched.
type Skipped struct {
	// Binary files are not text (truncate.IsBinary) and have a match that
	// is not shown (a file without one is not judged); TooLarge ones are
	// over GrepOptions.MaxFileSize; Ignored entries (files or directories)
	// are excluded by .gitignore or .ignore files.
	Binary, TooLarge, Ignored int
}

// GrepResult is the outcome of a grep.
type GrepResult struct {
	// Files holds each file with a shown match, in walk order: depth
	// first, entries sorted by name.
	Files []FileMatches
	// TotalMatches adds up the Count of Files.
	TotalMatches int
	// LimitReached says which limit ended the search, if any.
	LimitReached LimitKind
	// ClippedLines counts the shown lines cut at MaxLineChars.
	ClippedLines int
	Skipped      Skipped
}

// Grep searches path, a file or a directory tree, for the lines m matches.
func Grep(ctx context.Context, m *Matcher, path string, opt GrepOptions) (*GrepResult, error) {
	if err := CheckGlob(opt.Glob); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return grepTree(ctx, m, path, &opt)
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "grep", Path: path, Err: ErrNotRegular}
	}
	f, err := os.OpenFile(path, ReadFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkOpen(int(f.Fd()), opt.Allow); err != nil {
		return nil, err
	}
	return GrepReader(ctx, m, f, fi.Size(), path, opt)
}

// ErrNotRegular is returned for a path that is neither a directory nor a
// regular file (a FIFO, a socket, a device).
var ErrNotRegular = errors.New("not a regular file")

// ReadFlags open a file of a tree to read it, the type checked after the
// open: a FIFO swapped in must not block the open, nor a terminal become the
// daemon's controlling terminal (its hangup would end the daemon). For
// every open of a path a client or a tree names (grep, the index's build,
// read beneath the roots).
const ReadFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// GrepReader searches the first size bytes of r, under the name name (an
// exec spool, a file).
func GrepReader(ctx context.Context, m *Matcher, r io.ReaderAt, size int64, name string, opt GrepOptions) (*GrepResult, error) {
	c := &collector{opt: &opt}
	s := newScanner(m, &opt)
	var buf []byte
	err := s.scanReaderAt(ctx, r, size, &buf, 0)
	switch {
	case errors.Is(err, errBinary):
		c.res.Skipped.Binary++
	case err != nil:
		return nil, err
	default:
		c.add(name, s.res, s.hit)
	}
	return &c.res, nil
}
