package search

import (
	"container/heap"
	"context"
	"io/fs"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// entry is a directory entry as the walk sees it, without a stat.
type entry struct {
	name string
	typ  fs.FileMode // fs.ModeType bits: 0 for a regular file
}

// dirFuture is a directory to walk: read ahead by the walk's readers, or by
// the walk itself when it gets there first.
type dirFuture struct {
	rel       string // from the walk root, '/'-separated; "" for the root
	comps     []string
	name      string
	parent    *dirHandle   // held until the directory is opened
	inherited *ignoreRules // the rules of the directories above
	anc       prio         // the best match of the directory and its ancestors
	taken     atomic.Bool  // by a reader or the walk, whichever first
	byRead    bool         // taken by a reader: it holds a read-ahead slot
	done      chan struct{}

	// Set once done:
	h     *dirHandle
	ents  []entry
	skip  []bool // excluded by ignore rules
	subs  []*dirFuture
	rules *ignoreRules // inherited and this directory's own
	err   error
}

// walkOptions say which ignore files apply and where the walk may go.
type walkOptions struct {
	ignoreFrom string // see GrepOptions.IgnoreFrom
	noIgnore   bool   // read no ignore file
	allow      Allow
}

// walker walks a tree depth first, each directory's entries sorted by
// name, while readers read the directories ahead of it in parallel. At
// most readAhead directories are read and not yet walked.
type walker struct {
	ctx   context.Context
	visit func(dirRel string, e entry, dir *dirHandle, ignored int) error
	// ignored counts entries excluded by ignore rules, in walk order.
	ignored int

	mu       sync.Mutex
	cond     *sync.Cond
	queue    futureHeap
	inflight int
	closed   bool
	wg       sync.WaitGroup
}

const readAhead = 128

// joinRel is the path of name in the directory at dirRel.
func joinRel(dirRel, name string) string {
	if dirRel == "" {
		return name
	}
	return dirRel + "/" + name
}

// walk calls visit for each entry beneath dir (not for dir itself), with
// the path of its directory relative to dir ("" for dir itself), in
// depth-first order with each directory's entries sorted by name, skipping
// VCS directories and what ignore files exclude. A directory is visited
// before its entries; symlinks are visited, never followed. visit is told
// how many entries were ignored so far. An error from visit ends the walk
// and is returned.
func walk(ctx context.Context, dir string, opt walkOptions, visit func(dirRel string, e entry, dir *dirHandle, ignored int) error) (ignored int, err error) {
	fd, err := openDir(dir)
	if err != nil {
		return 0, err
	}
	if err := checkOpen(fd, opt.allow); err != nil {
		unix.Close(fd)
		return 0, err
	}
	var rules *ignoreRules
	var anc prio
	var comps []string
	if !opt.noIgnore {
		rules, anc, comps = parentRules(dir, opt.ignoreFrom)
	}
	h := newDirHandle(fd)
	w := &walker{ctx: ctx, visit: visit}
	w.cond = sync.NewCond(&w.mu)
	for range runtime.GOMAXPROCS(0) {
		w.wg.Add(1)
		go w.reader()
	}
	f := &dirFuture{comps: comps, inherited: rules, anc: anc, done: make(chan struct{})}
	f.taken.Store(true)
	w.read(f, h)
	err = w.walkDir(f)
	w.mu.Lock()
	w.closed = true
	w.cond.Broadcast()
	w.mu.Unlock()
	w.wg.Wait()
	// What was queued and never read still holds its parent.
	for _, q := range w.queue {
		if q.taken.CompareAndSwap(false, true) {
			q.parent.release()
		}
	}
	return w.ignored, err
}

// walkDir walks the entries of f, which is read.
func (w *walker) walkDir(f *dirFuture) error {
	if f.err != nil {
		f.abandon()
		return nil // an unreadable directory is skipped, as by find
	}
	defer f.h.release()
	sub := 0
	for i, e := range f.ents {
		if err := w.ctx.Err(); err != nil {
			f.abandonFrom(sub)
			return err
		}
		if f.skip[i] {
			w.ignored++
			continue
		}
		err := w.visit(f.rel, e, f.h, w.ignored)
		if e.typ.IsDir() {
			if err == nil {
				err = w.walkDir(w.wait(f.subs[sub]))
			} else {
				f.subs[sub].abandon()
			}
			// Walked: let the collector have its entries. Held, they kept
			// the whole tree's listing live to the walk's end (10 MB on the
			// kernel), marked again by each GC.
			f.subs[sub] = nil
			sub++
		}
		if err != nil {
			f.abandonFrom(sub)
			return err
		}
	}
	return nil
}

// wait returns f read: by a reader, or now by the walk itself.
func (w *walker) wait(f *dirFuture) *dirFuture {
	if f.taken.CompareAndSwap(false, true) {
		w.read(f, f.parent)
		return f
	}
	<-f.done
	if f.byRead {
		w.mu.Lock()
		w.inflight--
		w.cond.Broadcast()
		w.mu.Unlock()
	}
	return f
}

// abandon releases what f holds without walking it.
func (f *dirFuture) abandon() {
	if f.taken.CompareAndSwap(false, true) {
		f.parent.release()
		return
	}
	<-f.done
	if f.h != nil {
		f.h.release()
	}
	for _, s := range f.subs {
		s.abandon()
	}
}

func (f *dirFuture) abandonFrom(i int) {
	for _, s := range f.subs[i:] {
		s.abandon()
	}
}

// reader reads queued directories, nearest first in walk order, while
// fewer than readAhead are read and not yet walked.
func (w *walker) reader() {
	defer w.wg.Done()
	for {
		w.mu.Lock()
		for !w.closed && (len(w.queue) == 0 || w.inflight >= readAhead) {
			w.cond.Wait()
		}
		if w.closed {
			w.mu.Unlock()
			return
		}
		f := heap.Pop(&w.queue).(*dirFuture)
		if !f.taken.CompareAndSwap(false, true) {
			w.mu.Unlock()
			continue
		}
		f.byRead = true
		w.inflight++
		w.mu.Unlock()
		w.read(f, f.parent)
	}
}

// read opens and lists the directory of f beneath parent (releasing
// parent), applies its ignore files, and queues its subdirectories.
func (w *walker) read(f *dirFuture, parent *dirHandle) {
	defer close(f.done)
	if f.parent != nil {
		fd, err := openDirAt(parent.fd, f.name)
		parent.release()
		if err != nil {
			f.err = err
			return
		}
		f.h = newDirHandle(fd)
	} else {
		f.h = parent
	}
	f.ents, f.err = readDir(f.h.fd)
	if f.err != nil {
		f.h.release()
		f.h = nil
		return
	}
	if f.inherited != nil {
		f.rules = f.inherited.with(f.comps, readDirIgnoreAt(f.h.fd, f.ents))
	}
	f.skip = make([]bool, len(f.ents))
	var subs []*dirFuture
	for i, e := range f.ents {
		isDir := e.typ.IsDir()
		if isDir && vcsDirs[e.name] {
			continue
		}
		ep := entryPath{dir: f.comps, name: e.name, isDir: isDir}
		skip, anc := f.rules.excluded(f.anc, &ep)
		if skip {
			f.skip[i] = true
			continue
		}
		if isDir {
			f.h.acquire()
			subs = append(subs, &dirFuture{
				rel: joinRel(f.rel, e.name), comps: ep.path(), name: e.name,
				parent: f.h, inherited: f.rules, anc: anc, done: make(chan struct{}),
			})
		}
	}
	// VCS directories are dropped, not counted as ignored.
	kept, skip := f.ents[:0], f.skip[:0]
	for i, e := range f.ents {
		if !(e.typ.IsDir() && vcsDirs[e.name]) {
			kept, skip = append(kept, e), append(skip, f.skip[i])
		}
	}
	f.ents, f.skip, f.subs = kept, skip, subs
	if len(subs) > 0 {
		w.mu.Lock()
		for _, s := range subs {
			heap.Push(&w.queue, s)
		}
		w.cond.Broadcast()
		w.mu.Unlock()
	}
}

// futureHeap orders directories as the walk reaches them: by path,
// component by component.
type futureHeap []*dirFuture

func (q futureHeap) Len() int           { return len(q) }
func (q futureHeap) Less(i, j int) bool { return comparePaths(q[i].rel, q[j].rel) < 0 }
func (q futureHeap) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *futureHeap) Push(x any)        { *q = append(*q, x.(*dirFuture)) }
func (q *futureHeap) Pop() any {
	old := *q
	f := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return f
}

// comparePaths orders '/'-separated paths component by component, as a
// depth-first walk of sorted directories meets them.
func comparePaths(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x == '/' {
			return -1
		}
		if y == '/' {
			return 1
		}
		return int(x) - int(y)
	}
	return len(a) - len(b)
}
