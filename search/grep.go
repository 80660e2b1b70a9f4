package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"sync"
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
	// Binary files are not text (truncate.IsBinary); TooLarge ones are
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

// collector merges the files' results in walk order under the limits.
type collector struct {
	opt          *GrepOptions
	res          GrepResult
	shown, bytes int
}

// add merges the result of one file's scanner; it reports false when a
// limit is reached and the search should stop.
func (c *collector) add(path string, s *scanner) bool {
	fm := s.res
	if fm.Count == 0 {
		return true
	}
	fm.Path = path
	n, cost, hit := 0, len(path)+1, LimitNone
	for _, m := range fm.Matches {
		if c.opt.Limit > 0 && c.shown >= c.opt.Limit {
			hit = LimitMatches
			break
		}
		if c.opt.MaxBytes > 0 && c.bytes+cost+m.size > c.opt.MaxBytes {
			hit = LimitBytes
			break
		}
		c.shown++
		c.bytes += cost + m.size
		c.res.ClippedLines += m.clipped
		cost = 0
		n++
	}
	if hit == LimitNone && n < fm.Count {
		hit = s.hit
		if hit == LimitNone { // kept all it could: only past the shown limit
			hit = LimitMatches
		}
	}
	if n > 0 {
		fm.Matches = fm.Matches[:n]
		c.res.Files = append(c.res.Files, fm)
		c.res.TotalMatches += fm.Count
	}
	c.res.LimitReached = hit
	return hit == LimitNone
}

// Grep searches path, a file or a directory tree, for the lines m matches.
func Grep(ctx context.Context, m *Matcher, path string, opt GrepOptions) (*GrepResult, error) {
	if err := checkGlob(opt.Glob); err != nil {
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
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return GrepReader(ctx, m, f, fi.Size(), path, opt)
}

// ErrNotRegular is returned for a path that is neither a directory nor a
// regular file (a FIFO, a socket, a device).
var ErrNotRegular = errors.New("not a regular file")

// GrepReader searches the first size bytes of r, under the name name (an
// exec spool, a file).
func GrepReader(ctx context.Context, m *Matcher, r io.ReaderAt, size int64, name string, opt GrepOptions) (*GrepResult, error) {
	c := &collector{opt: &opt}
	s := newScanner(m, &opt)
	var buf []byte
	err := s.scanReaderAt(r, size, &buf)
	switch {
	case errors.Is(err, errBinary):
		c.res.Skipped.Binary++
	case err != nil:
		return nil, err
	default:
		c.add(name, s)
	}
	return &c.res, ctx.Err()
}

// fileJob is one file of a tree to search; out gets its outcome.
type fileJob struct {
	dir     *dirHandle
	name    string
	rel     string
	symlink bool
	// ignored is how many entries the walk had ignored when it met this
	// file, so that the count follows walk order wherever the search stops.
	ignored int
	out     chan outcome
}

// outcome is a searched file: its scanner, or why it was skipped.
type outcome struct {
	s    *scanner
	skip int // skipBinary, skipTooLarge, or 0
}

const (
	skipBinary = 1 + iota
	skipTooLarge
	skipOther // unreadable, vanished, not a regular file
)

// grepTree searches the files beneath dir: a walk lists them in order,
// GOMAXPROCS workers search them, and the results are merged in walk
// order, so the outcome does not depend on which worker ends first. At
// most cap(pending) files are in flight, which bounds memory.
func grepTree(ctx context.Context, m *Matcher, dir string, opt *GrepOptions) (*GrepResult, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan *fileJob, 64)
	pending := make(chan *fileJob, 256)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for j := range jobs {
				j.out <- searchJob(ctx, m, opt, root, j, &buf)
			}
		}()
	}
	var walkErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(pending)
		defer close(jobs)
		walkErr = listFiles(ctx, root, opt.Glob, pending, jobs)
	}()
	c := &collector{opt: opt}
	for j := range pending {
		o := <-j.out
		c.res.Skipped.Ignored = j.ignored
		switch {
		case o.skip == skipBinary:
			c.res.Skipped.Binary++
		case o.skip == skipTooLarge:
			c.res.Skipped.TooLarge++
		case o.s != nil && !c.add(j.rel, o.s):
			cancel()
			for range pending {
			}
		}
	}
	wg.Wait()
	if walkErr != nil && !errors.Is(walkErr, context.Canceled) {
		return nil, walkErr
	}
	if c.res.LimitReached == LimitNone {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return &c.res, nil
}

// listFiles walks root and sends each file to search to both pending (in
// walk order, for the collector) and jobs (for the workers); a last job
// with no file carries the final count of ignored entries.
func listFiles(ctx context.Context, root *os.Root, glob string, pending, jobs chan<- *fileJob) error {
	g := newGlob(glob)
	send := func(j *fileJob, ch chan<- *fileJob) error {
		select {
		case ch <- j:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	ignored, err := walk(ctx, root, func(rel string, e entry, h *dirHandle, ignored int) error {
		if !e.typ.IsRegular() && e.typ&fs.ModeSymlink == 0 || !g.match(rel, e.name) {
			return nil
		}
		j := &fileJob{dir: h, name: e.name, rel: rel, symlink: e.typ&fs.ModeSymlink != 0,
			ignored: ignored, out: make(chan outcome, 1)}
		if err := send(j, pending); err != nil {
			return err
		}
		h.acquire()
		if err := send(j, jobs); err != nil {
			h.release()
			j.out <- outcome{skip: skipOther}
			return err
		}
		return nil
	})
	last := &fileJob{ignored: ignored, out: make(chan outcome, 1)}
	last.out <- outcome{}
	if serr := send(last, pending); err == nil {
		err = serr
	}
	return err
}

// searchJob searches one file of a tree. Its directory handle is released
// once the file is open.
func searchJob(ctx context.Context, m *Matcher, opt *GrepOptions, root *os.Root, j *fileJob, buf *[]byte) outcome {
	f, err := openJob(ctx, root, j)
	j.dir.release()
	if err != nil {
		return outcome{skip: skipOther}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return outcome{skip: skipOther}
	}
	if opt.MaxFileSize > 0 && fi.Size() > opt.MaxFileSize {
		return outcome{skip: skipTooLarge}
	}
	s := newScanner(m, opt)
	switch err := s.scanReaderAt(f, fi.Size(), buf); {
	case errors.Is(err, errBinary):
		return outcome{skip: skipBinary}
	case err != nil:
		return outcome{skip: skipOther}
	}
	if cap(*buf) > 2*chunkSize {
		*buf = nil // a long line grew it: do not keep that much
	}
	return outcome{s: s}
}

// openJob opens a job's file without blocking (a FIFO) and without leaving
// the tree: a plain file beneath its directory, a symlink beneath the root,
// which refuses links that lead out of it.
func openJob(ctx context.Context, root *os.Root, j *fileJob) (*os.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if j.symlink {
		return root.OpenFile(j.rel, flags, 0)
	}
	return j.dir.root.OpenFile(j.name, flags, 0)
}
