package search

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The search of a tree: the walk (or an index's listing) sends the files
// to search in batches, one directory's at a time, to the workers and, in
// walk order, to the collector.

// batchSize is how many files of one directory a job carries: fewer
// channel hand-offs than one job per file.
const batchSize = 32

// batch is up to batchSize files of one directory to search (targets): a
// worker's unit of work, so the channels and variables that carry one call
// it a job. out gets their outcomes, in order. A batch without files ends
// the walk.
type batch struct {
	dir   *dirHandle
	files []target
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

// target is one file of a batch: a file to search.
type target struct {
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
func (f *target) rel() string { return joinRel(f.dir, f.name) }

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
	return grepBatches(ctx, m, dir, opt, func(ctx context.Context, _ *os.Root, pending, jobs chan<- *batch) error {
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
	return grepBatches(ctx, m, dir, &opt, func(ctx context.Context, root *os.Root, pending, jobs chan<- *batch) error {
		return listGiven(ctx, root, l, pick, parts, &opt, pending, jobs)
	})
}

// grepBatches runs the search of the files list sends as jobs.
func grepBatches(ctx context.Context, m *Matcher, dir string, opt *GrepOptions, list func(ctx context.Context, root *os.Root, pending, jobs chan<- *batch) error) (*GrepResult, error) {
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
	jobs := make(chan *batch, 16)
	// pending is how far the workers may run ahead of the collector, which
	// waits for the jobs in walk order: past a file of tens of megabytes
	// (the kernel's asic_reg headers), a few thousand small files.
	pending := make(chan *batch, 256)
	// help offers a job whose files are being searched to an idle worker;
	// never closed, since a worker may offer one after the walk ends.
	help := make(chan *batch, 4)
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
		if !c.addBatch(j, <-j.out) {
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

// listFiles walks dir and sends batches of the files to search to both
// pending (in walk order, for the collector) and jobs (for the workers).
func listFiles(ctx context.Context, dir string, opt *GrepOptions, pending, jobs chan<- *batch) error {
	g := newGlob(opt.Glob)
	send := func(j *batch, ch chan<- *batch) error {
		select {
		case ch <- j:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	var cur *batch
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
			cur = &batch{dir: h, files: make([]target, 0, batchSize), out: make(chan []outcome, 1), seq: seq}
			seq++
		}
		cur.files = append(cur.files, target{name: e.name, dir: dirRel, symlink: e.typ&fs.ModeSymlink != 0, ignored: ignored})
		return nil
	})
	if ferr := flush(); err == nil {
		err = ferr
	}
	last := &batch{ignored: ignored, out: make(chan []outcome, 1)}
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
func listGiven(ctx context.Context, root *os.Root, l *Listing, pick []int32, parts []FileParts, opt *GrepOptions, pending, jobs chan<- *batch) error {
	g := newGlob(opt.Glob)
	top := openListedDir(root)
	defer top.release()
	beneath := top != nil && beneathOK()
	send := func(j *batch) error {
		for _, ch := range []chan<- *batch{pending, jobs} {
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
	var cur *batch
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
			cur = &batch{dir: top, files: make([]target, 0, batchSize), out: make(chan []outcome, 1), seq: seq}
			seq++
		}
		cur.files = append(cur.files, target{name: f.Rel, symlink: f.Symlink || !beneath, beneath: true, parts: fp, ignored: f.Ignored,
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
	last := &batch{ignored: l.Ignored, out: make(chan []outcome, 1)}
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
