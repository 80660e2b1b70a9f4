package search

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
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

// collector merges the files' results in walk order under the limits.
type collector struct {
	opt          *GrepOptions
	res          GrepResult
	shown, bytes int
}

// add merges the matches of one file, whose scanner stopped keeping them
// for reason hit; it reports false when a limit is reached and the search
// should stop.
func (c *collector) add(path string, fm FileMatches, hit0 LimitKind) bool {
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
		hit = hit0
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

// batchSize is how many files of one directory a job carries: fewer
// channel hand-offs than one job per file.
const batchSize = 32

// fileJob is a batch of files of one directory to search; out gets their
// outcomes, in order. A job without files ends the walk.
type fileJob struct {
	dir   *dirHandle
	files []jobFile
	out   chan []outcome
	// ignored is the walk's final count of ignored entries, in the last job.
	ignored int
	// seq is the job's place in walk order (0 the first).
	seq int64

	// The workers that search the job share it (see worker.search): each
	// claims the next file, and the one that ends the last sends outs.
	outs       []outcome
	next, done atomic.Int32
}

// jobFile is one file of a job.
type jobFile struct {
	// dir is the path of its directory relative to the searched one: its
	// own path is joined only where it is needed (a match, a symlink).
	name, dir string
	symlink   bool
	// beneath: name is a path beneath dir (a listed file), opened with
	// openBeneath.
	beneath bool
	// parts, when set, are the only pieces of the file that may match.
	parts *Parts
	// text: the file is known to be text (GrepOptions.Text).
	text bool
	// ignored is how many entries the walk had ignored when it met this
	// file, so that the count follows walk order wherever the search stops.
	ignored int
}

// rel is the path of f relative to the searched directory.
func (f *jobFile) rel() string { return joinRel(f.dir, f.name) }

// outcome is a searched file: its matches, or why it was skipped.
type outcome struct {
	res  FileMatches
	hit  LimitKind
	skip int // skipBinary, skipTooLarge, skipOther, or 0
}

const (
	skipBinary = 1 + iota
	skipTooLarge
	skipOther // unreadable, vanished, not a regular file
)

// grepTree searches the files beneath dir: a walk lists them in order,
// GOMAXPROCS workers search them, and the results are merged in walk
// order, so the outcome does not depend on which worker ends first. At
// most cap(pending) jobs are in flight, which bounds memory.
func grepTree(ctx context.Context, m *Matcher, dir string, opt *GrepOptions) (*GrepResult, error) {
	return grepJobs(ctx, m, dir, opt, func(ctx context.Context, _ *os.Root, pending, jobs chan<- *fileJob) error {
		return listFiles(ctx, dir, opt, pending, jobs)
	})
}

// GrepListing searches the files of l, a Listing of the directory dir
// whose tree has not changed since (as an index's watcher knows), that
// pick names (indices into l.Files, ascending: those that may match),
// of some only the parts given (ascending by file), without walking the
// tree: the reply is
// the one a grep of dir would give.
func GrepListing(ctx context.Context, m *Matcher, dir string, l *Listing, pick []int32, parts []FileParts, opt GrepOptions) (*GrepResult, error) {
	if err := CheckGlob(opt.Glob); err != nil {
		return nil, err
	}
	if opt.Allow != nil {
		fd, err := openDir(dir)
		if err != nil {
			return nil, err
		}
		err = checkOpen(fd, opt.Allow)
		unix.Close(fd)
		if err != nil {
			return nil, err
		}
	}
	return grepJobs(ctx, m, dir, &opt, func(ctx context.Context, root *os.Root, pending, jobs chan<- *fileJob) error {
		return listGiven(ctx, root, l, pick, parts, &opt, pending, jobs)
	})
}

// grepJobs runs the search of the files list sends as jobs.
func grepJobs(ctx context.Context, m *Matcher, dir string, opt *GrepOptions, list func(ctx context.Context, root *os.Root, pending, jobs chan<- *fileJob) error) (*GrepResult, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if err := checkRoot(root, opt.Allow); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan *fileJob, 16)
	// pending is how far the workers may run ahead of the collector, which
	// waits for the jobs in walk order: past a file of tens of megabytes
	// (the kernel's asic_reg headers), a few thousand small files.
	pending := make(chan *fileJob, 256)
	// help offers a job whose files are being searched to an idle worker;
	// never closed, since a worker may offer one after the walk ends.
	help := make(chan *fileJob, 4)
	var wg sync.WaitGroup
	ahead := newAhead(opt)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &worker{ctx: ctx, root: root, s: newScanner(m, opt), help: help, ahead: ahead}
			w.run(jobs)
			w.putBuf()
			w.beneath.close()
		}()
	}
	var walkErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(pending)
		defer close(jobs)
		walkErr = list(ctx, root, pending, jobs)
	}()
	c := &collector{opt: opt}
	for j := range pending {
		if !c.addJob(j, <-j.out) {
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

// addJob merges the outcomes of a job; false when a limit is reached.
func (c *collector) addJob(j *fileJob, outs []outcome) bool {
	if len(j.files) == 0 {
		c.res.Skipped.Ignored = j.ignored
		return true
	}
	for i, o := range outs {
		c.res.Skipped.Ignored = j.files[i].ignored
		switch o.skip {
		case skipBinary:
			c.res.Skipped.Binary++
		case skipTooLarge:
			c.res.Skipped.TooLarge++
		case 0:
			if o.res.Count > 0 && !c.add(j.files[i].rel(), o.res, o.hit) {
				return false
			}
		}
	}
	return true
}

// listFiles walks dir and sends batches of the files to search to both
// pending (in walk order, for the collector) and jobs (for the workers).
func listFiles(ctx context.Context, dir string, opt *GrepOptions, pending, jobs chan<- *fileJob) error {
	g := newGlob(opt.Glob)
	send := func(j *fileJob, ch chan<- *fileJob) error {
		select {
		case ch <- j:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var cur *fileJob
	var seq int64
	flush := func() error {
		j := cur
		cur = nil
		if j == nil {
			return nil
		}
		if err := send(j, pending); err != nil {
			j.dir.release()
			return err
		}
		if err := send(j, jobs); err != nil {
			j.dir.release()
			j.out <- make([]outcome, len(j.files)) // never read: the collector drains
			return err
		}
		return nil
	}
	wo := walkOptions{ignoreFrom: opt.IgnoreFrom, noIgnore: opt.NoIgnore, allow: opt.Allow}
	ignored, err := walk(ctx, dir, wo, func(dirRel string, e entry, h *dirHandle, ignored int) error {
		if !e.typ.IsRegular() && e.typ&fs.ModeSymlink == 0 {
			return nil
		}
		rel := "" // a name glob needs no path
		if !g.nameOnly {
			rel = joinRel(dirRel, e.name)
		}
		if !g.match(rel, e.name) {
			return nil
		}
		if opt.Candidate != nil && !opt.Candidate(joinRel(dirRel, e.name)) {
			return nil
		}
		if cur != nil && (cur.dir != h || len(cur.files) == batchSize) {
			if err := flush(); err != nil {
				return err
			}
		}
		if cur == nil {
			h.acquire()
			cur = &fileJob{dir: h, files: make([]jobFile, 0, batchSize), out: make(chan []outcome, 1), seq: seq}
			seq++
		}
		cur.files = append(cur.files, jobFile{name: e.name, dir: dirRel, symlink: e.typ&fs.ModeSymlink != 0, ignored: ignored})
		return nil
	})
	if ferr := flush(); err == nil {
		err = ferr
	}
	last := &fileJob{ignored: ignored, out: make(chan []outcome, 1)}
	last.out <- nil
	if serr := send(last, pending); err == nil {
		err = serr
	}
	return err
}

// listGiven sends the files of l that pick names (and the glob keeps) as
// jobs: each opened beneath the tree's directory, opened once through the
// root, by its whole path in one openat2 (openBeneath), a symlinked file
// (or every file, without openat2) through the root.
func listGiven(ctx context.Context, root *os.Root, l *Listing, pick []int32, parts []FileParts, opt *GrepOptions, pending, jobs chan<- *fileJob) error {
	g := newGlob(opt.Glob)
	top := openListedDir(root)
	defer top.release()
	beneath := top != nil && beneathOK()
	send := func(j *fileJob) error {
		for _, ch := range []chan<- *fileJob{pending, jobs} {
			select {
			case ch <- j:
			case <-ctx.Done():
				j.dir.release() // the job's hold: no worker will release it
				if ch == jobs {
					j.out <- make([]outcome, len(j.files)) // never read: the collector drains
				}
				return ctx.Err()
			}
		}
		return nil
	}
	var cur *fileJob
	var seq int64
	for _, i := range pick {
		f := &l.Files[i]
		if !g.match(f.Rel, f.Rel[strings.LastIndexByte(f.Rel, '/')+1:]) {
			continue
		}
		for len(parts) > 0 && parts[0].File < i {
			parts = parts[1:]
		}
		var fp *Parts
		if len(parts) > 0 && parts[0].File == i {
			fp = &parts[0].Parts
		}
		if cur == nil {
			top.acquire()
			cur = &fileJob{dir: top, files: make([]jobFile, 0, batchSize), out: make(chan []outcome, 1), seq: seq}
			seq++
		}
		cur.files = append(cur.files, jobFile{name: f.Rel, symlink: f.Symlink || !beneath, beneath: true, parts: fp, ignored: f.Ignored,
			text: opt.Text != nil && opt.Text(i)})
		if len(cur.files) == batchSize {
			j := cur
			cur = nil
			if err := send(j); err != nil {
				return err
			}
		}
	}
	if cur != nil {
		if err := send(cur); err != nil {
			return err
		}
	}
	last := &fileJob{ignored: l.Ignored, out: make(chan []outcome, 1)}
	last.out <- nil
	select {
	case pending <- last:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// openListedDir opens the tree's directory through its root; nil when it
// cannot (its files are then opened through the root one by one).
func openListedDir(root *os.Root) *dirHandle {
	f, err := root.Open(".")
	if err != nil {
		return nil
	}
	defer f.Close()
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return nil
	}
	unix.CloseOnExec(fd)
	return newDirHandle(fd)
}

// worker searches the files of jobs, reusing its scanner and buffer.
type worker struct {
	ctx  context.Context
	root *os.Root
	s    *scanner
	buf  []byte
	name []byte // openFile's scratch
	// beneath opens the files a listing names (GrepListing).
	beneath beneathCache
	// help takes the job being searched (job) when one of its files is
	// large, for an idle worker to share.
	help  chan *fileJob
	job   *fileJob
	ahead *ahead
	text  bool // the file being searched is known text: not judged
}

// run searches the jobs sent on jobs, and those offered on help, until
// jobs is closed. A job offered on help always has a worker that goes on
// with it: none needs a helper to end.
func (w *worker) run(jobs <-chan *fileJob) {
	for {
		var j *fileJob
		select {
		case jj, ok := <-jobs:
			if !ok {
				return
			}
			j = jj
			j.outs = make([]outcome, len(j.files)) // before any other worker sees j
		case j = <-w.help:
		}
		w.search(j)
	}
}

// search searches the files of j that no other worker has claimed; the
// worker that ends its last file sends its outcomes and releases its
// directory. The walk batches the files of a directory, and a directory
// may hold large files only: the kernel's asic_reg/dcn holds 121 MB in
// 28 files, one job, which another worker shares once the first large
// file is met.
func (w *worker) search(j *fileJob) {
	w.job = j
	defer func() { w.job = nil }()
	for {
		i := int(j.next.Add(1)) - 1
		if i >= len(j.files) {
			return
		}
		pos := j.seq*batchSize + int64(i)
		if w.ahead.past(pos) {
			j.outs[i] = outcome{skip: skipOther} // never merged: the limit comes before
		} else {
			j.outs[i] = w.searchFile(j.dir, &j.files[i])
			w.ahead.found(pos, &j.outs[i])
		}
		if int(j.done.Add(1)) == len(j.files) {
			j.dir.release()
			j.out <- j.outs
			return
		}
	}
}

// shareSize is how large a file is when its job is offered to an idle
// worker: a few milliseconds of search.
const shareSize = 256 << 10

// share offers the job being searched to an idle worker, when files of it
// are left to claim.
func (w *worker) share() {
	if j := w.job; j != nil && int(j.next.Load()) < len(j.files) {
		select {
		case w.help <- j:
		default: // the other workers are offered enough
		}
	}
}

func (w *worker) searchFile(dir *dirHandle, f *jobFile) outcome {
	if err := w.ctx.Err(); err != nil {
		return outcome{skip: skipOther}
	}
	w.text = f.text
	if f.symlink {
		r, size, err := openJob(w.ctx, w.root, dir, f)
		if err != nil {
			return outcome{skip: skipOther}
		}
		defer r.Close()
		return w.scan(r, size, 0)
	}
	var fd int
	var err error
	if f.beneath {
		fd, err = w.beneath.open(dir, f.name)
	} else {
		fd, err = openFile(dir.fd, f.name, &w.name)
	}
	if err != nil {
		return outcome{skip: skipOther}
	}
	defer unix.Close(fd)
	if f.parts != nil {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && f.parts.usable(&st) {
			return w.scanParts(fd, st.Size, f.parts)
		}
	}
	// Most files of a tree are small: one read into the worker's buffer
	// holds them whole, and a read that comes back short of the buffer
	// has met the file's end (as a regular file's read does), so neither
	// a stat nor a read that returns 0 is needed. The name was a regular
	// file when its directory was read; should it have become something
	// else since, a pipe refuses pread and a directory read, and what
	// fills the buffer is looked at with fstat as a large file is.
	head := headSize
	if limit := w.s.opt.MaxFileSize; limit > 0 && limit < headSize {
		head = int(limit) + 1 // a file that fills it is too large
	}
	w.needBuf(head)
	buf := w.buf[:head]
	n, err := preadOnce(fd, buf)
	if n >= shareSize {
		w.share()
	}
	switch {
	case err != nil:
		return outcome{skip: skipOther}
	case n < len(buf):
		return w.scanAll(buf[:n])
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return outcome{skip: skipOther}
	}
	// A file that shrank since the read is searched as it was read.
	return w.scan(fdReader(fd), max(st.Size, int64(n)), n)
}

// headSize is how much of a file the first read asks for.
const headSize = chunkSize

// bufs keeps the workers' buffers (*[]byte of headSize to 2*chunkSize
// bytes) from one grep to the next: each grep starts a worker a CPU, and
// each worker that met a file made and zeroed a buffer of headSize (a
// MiB) for its first read.
var bufs sync.Pool

// needBuf makes w.buf hold at least n bytes: one kept in bufs, else a
// new one.
func (w *worker) needBuf(n int) {
	if cap(w.buf) >= n {
		return
	}
	if p, ok := bufs.Get().(*[]byte); ok {
		if cap(*p) >= n {
			w.buf = *p
			return
		}
		bufs.Put(p)
	}
	w.buf = make([]byte, n)
}

// putBuf gives w.buf to bufs, unless a long line grew it past 2*chunkSize
// (see scan).
func (w *worker) putBuf() {
	if b := w.buf; cap(b) >= headSize && cap(b) <= 2*chunkSize {
		bufs.Put(&b)
	}
	w.buf = nil
}

// scan searches the first size bytes of r, of which w.buf[:have] are read.
func (w *worker) scan(r io.ReaderAt, size int64, have int) outcome {
	if opt := w.s.opt; opt.MaxFileSize > 0 && size > opt.MaxFileSize {
		return outcome{skip: skipTooLarge}
	}
	s := w.s
	s.reset()
	s.judged = w.text
	switch err := s.scanReaderAt(w.ctx, r, size, &w.buf, have); {
	case errors.Is(err, errBinary):
		return outcome{skip: skipBinary}
	case err != nil:
		return outcome{skip: skipOther}
	}
	if cap(w.buf) > 2*chunkSize {
		w.buf = nil // a long line grew it: do not keep that much
	}
	return outcome{res: s.res, hit: s.hit}
}

// scanAll searches a whole file held in buf.
func (w *worker) scanAll(buf []byte) outcome {
	s := w.s
	s.reset()
	s.judged = w.text
	if err := s.scanBuffer(buf); err != nil {
		return outcome{skip: skipBinary}
	}
	return outcome{res: s.res, hit: s.hit}
}

// checkRoot checks root, through which symlinked files are opened, as the
// walk's own directory is checked: it was opened by path on its own.
func checkRoot(root *os.Root, allow Allow) error {
	if allow == nil {
		return nil
	}
	d, err := root.Open(".")
	if err != nil {
		return err
	}
	defer d.Close()
	return checkOpen(int(d.Fd()), allow)
}

// readerAtCloser is an open file of the tree.
type readerAtCloser interface {
	io.ReaderAt
	io.Closer
}

// openJob opens a regular file of the tree without blocking (a FIFO) and
// without leaving the tree: a plain file beneath its directory, a symlink
// through the tree's root, which refuses links that lead out of it.
func openJob(ctx context.Context, root *os.Root, dir *dirHandle, f *jobFile) (readerAtCloser, int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	if !f.symlink {
		return openFileAt(dir.fd, f.name)
	}
	file, err := root.OpenFile(f.rel(), ReadFlags, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := file.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		file.Close()
		return nil, 0, ErrNotRegular
	}
	return file, fi.Size(), nil
}
