package fileindex

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
	"github.com/hashicorp/golang-lru/v2/simplelru"
	"golang.org/x/sync/semaphore"
)

// Defaults for the zero Options.
const (
	DefaultMaxEntries    = 256
	DefaultMaxIndexBytes = 64 << 20
	DefaultSpacing       = 64 << 10
)

// MaxSpacing bounds Options.Spacing: a lookup reads, and pools a buffer of,
// that many bytes.
const MaxSpacing = 64 << 20

// Errors returned by Open, Index and the line lookups. Open's errors also wrap
// the os errors: errors.Is(err, fs.ErrNotExist) and fs.ErrPermission work.
var (
	// ErrIsDir is wrapped by Open's error for a directory.
	ErrIsDir = errors.New("is a directory")
	// ErrNotRegular is wrapped by Open's error for a FIFO, device or socket,
	// which have no size to index and may never end.
	ErrNotRegular = errors.New("not a regular file")
	// ErrOutOfRange is returned for a line or byte offset outside the file.
	ErrOutOfRange = errors.New("fileindex: line or offset out of range")
	// ErrChanged says the file shrank or was rewritten under an open File:
	// Open it again.
	ErrChanged = errors.New("file changed while being read")
)

// Options configure a Cache. The zero value gives the defaults.
type Options struct {
	// MaxEntries bounds the number of cached indexes; 0 means 256.
	MaxEntries int
	// MaxIndexBytes bounds the memory of all cached indexes together; 0
	// means 64 MiB. An index bigger than that alone is used but not kept.
	MaxIndexBytes int64
	// Spacing is the number of bytes between checkpoints; 0 means 64 KiB,
	// at most MaxSpacing. A line lookup reads at most this many bytes.
	Spacing int64
	// Logger gets the watcher's troubles; nil discards them.
	Logger *slog.Logger

	// noWatch turns the watcher off, for tests of the stat checks alone.
	noWatch bool
}

// Cache is an LRU of line indexes keyed by file (device and inode, so that
// hard links share one), kept right by stat checks and an fsnotify watcher
// on the names they were opened by. It is safe for concurrent use.
type Cache struct {
	maxIndexBytes int64
	spacing       int64
	log           *slog.Logger
	bufs          sync.Pool // *[]byte of bufSize: build buffers
	bufSize       int
	lookups       sync.Pool           // *[]byte of spacing bytes: line lookup buffers
	snaps         *semaphore.Weighted // the snapshots held (snapshotBudget)

	mu            sync.Mutex
	lru           *simplelru.LRU[fileKey, *entry]
	byName        map[string]*entry // a name a cached file was opened by → its entry
	indexBytes    int64
	dirRefs       map[string]int      // parent directory → names of cached entries in it
	dirtyDirs     map[string]struct{} // directories whose refcount crossed zero
	closed        bool
	hits, misses  int64
	invalidations int64
	extends       int64
	evictions     int64

	// watchMu serializes changes to the watch list. It is taken before mu,
	// never while holding it, and never by the draining goroutine: fsnotify
	// can block in Add/Remove until its events are drained.
	watchMu sync.Mutex
	watcher *fsnotify.Watcher // nil when inotify is unavailable
	watched map[string]bool
	charges map[string]int // the watches' descriptors, by directory (watchfd.go)
	warned  atomic.Bool

	wg sync.WaitGroup
}

// entry is one cached file. Its build mutex makes concurrent Index calls for
// the same file build once: the others wait and then find a valid index.
type entry struct {
	key     fileKey
	suspect atomic.Bool // a Write event came since the index was checked

	build sync.Mutex
	idx   *index // guarded by build

	// guarded by Cache.mu
	names   map[string]struct{} // the names it was opened by, each in byName
	bytes   int64
	removed bool
}

// fileKey identifies a file: its device and inode, or its path where the
// platform has no inode numbers.
type fileKey struct {
	dev, ino uint64
	path     string
}

func keyOf(path string, id fileID) fileKey {
	if id.ino == 0 {
		return fileKey{path: path}
	}
	return fileKey{dev: id.dev, ino: id.ino}
}

// fileID is what fstat says about a file's identity and state.
type fileID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds
}

func (a fileID) sameInode(b fileID) bool { return a.dev == b.dev && a.ino == b.ino }

// New makes a Cache and starts its fsnotify watcher and the goroutine that
// drains it. A watcher that cannot be created is logged, and the Cache relies
// on stat checks alone.
func New(opts Options) (*Cache, error) {
	if opts.MaxEntries < 0 || opts.MaxIndexBytes < 0 || opts.Spacing < 0 || opts.Spacing > MaxSpacing {
		return nil, fmt.Errorf("fileindex: option out of range: MaxEntries %d, MaxIndexBytes %d, Spacing %d (at most %d)",
			opts.MaxEntries, opts.MaxIndexBytes, opts.Spacing, MaxSpacing)
	}
	if opts.MaxEntries == 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.MaxIndexBytes == 0 {
		opts.MaxIndexBytes = DefaultMaxIndexBytes
	}
	if opts.Spacing == 0 {
		opts.Spacing = DefaultSpacing
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Cache{
		maxIndexBytes: opts.MaxIndexBytes,
		spacing:       opts.Spacing,
		log:           opts.Logger,
		bufSize:       int(max(readBufSize, opts.Spacing)),
		snaps:         semaphore.NewWeighted(snapshotBudget),
		byName:        make(map[string]*entry),
		dirRefs:       make(map[string]int),
		dirtyDirs:     make(map[string]struct{}),
		watched:       make(map[string]bool),
	}
	c.bufs.New = func() any {
		b := make([]byte, c.bufSize)
		return &b
	}
	c.lookups.New = func() any {
		b := make([]byte, c.spacing)
		return &b
	}
	lru, err := simplelru.NewLRU(opts.MaxEntries, c.onEvict)
	if err != nil {
		return nil, fmt.Errorf("fileindex: %w", err)
	}
	c.lru = lru
	if !opts.noWatch {
		w, err := fsnotify.NewWatcher()
		if err != nil {
			c.log.Warn("fileindex: no file watcher, relying on stat checks", "err", err)
		} else {
			c.watcher = w
			c.wg.Add(1)
			go c.drain(w)
		}
	}
	return c, nil
}

// Close stops the watcher, waits for its goroutine and drops every entry.
// Open fails after Close; Files already open keep working.
func (c *Cache) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	c.mu.Unlock()
	var err error
	if c.watcher != nil {
		c.watchMu.Lock()
		err = c.watcher.Close()
		clear(c.watched)
		c.uncharge("")
		c.watchMu.Unlock()
	}
	c.wg.Wait()
	c.mu.Lock()
	c.lru.Purge()
	clear(c.dirtyDirs)
	c.mu.Unlock()
	return err
}

// Stats are the cache's counters; see the package doc for what they count.
// The JSON names are those of the protocol's stats.cache; Extends and
// Evictions are for tests and logs.
type Stats struct {
	Entries       int
	Hits          int64
	Misses        int64
	Invalidations int64
	IndexBytes    int64
	Extends       int64
	Evictions     int64
}

// Stats returns the current counters.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{
		Entries:       c.lru.Len(),
		Hits:          c.hits,
		Misses:        c.misses,
		Invalidations: c.invalidations,
		IndexBytes:    c.indexBytes,
		Extends:       c.extends,
		Evictions:     c.evictions,
	}
}

// Invalidate drops path's entry, if any (e.g. when a spool is deleted).
func (c *Cache) Invalidate(path string) {
	path = filepath.Clean(path)
	c.mu.Lock()
	if e, ok := c.byName[path]; ok {
		c.dropLocked(e)
	}
	c.mu.Unlock()
	c.syncWatches()
}

// Open opens path and fstats the open file. The returned File's index is
// built on its first Index call. Errors wrap the os errors, and ErrIsDir or
// ErrNotRegular in an *fs.PathError.
func (c *Cache) Open(ctx context.Context, path string) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("fileindex: %w", err)
	}
	f, err := openFile(path)
	if err != nil {
		return nil, fmt.Errorf("fileindex: %w", err)
	}
	return c.OpenFile(ctx, path, f)
}

// OpenFile makes a File of f, which the caller opened read-only for path
// (e.g. beneath a root, so that what is read is what was checked), and
// fstats it. The File owns f from then on, even on error. Errors are as
// Open's.
func (c *Cache) OpenFile(ctx context.Context, path string, f *os.File) (*File, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	if closed {
		f.Close()
		return nil, fmt.Errorf("fileindex: cache closed: %w", fs.ErrClosed)
	}
	file, err := c.adopt(ctx, filepath.Clean(path), f)
	if err != nil {
		return nil, fmt.Errorf("fileindex: %w", err)
	}
	return file, nil
}

// index returns an index valid for f's descriptor, from the cache when it
// holds one, else extended or built.
func (c *Cache) index(ctx context.Context, f *File) (*index, error) {
	e := c.acquire(f.path, f.id)
	c.syncWatches() // watch the directory before reading, so no change is missed

	e.build.Lock()
	defer e.build.Unlock()
	suspect := e.suspect.Swap(false)
	old := e.idx
	if old != nil && old.id == f.id && !suspect {
		c.mu.Lock()
		c.hits++
		c.mu.Unlock()
		return old, nil
	}
	x, how, err := c.compute(ctx, f, old, suspect)
	if err != nil {
		c.failed(e, old != nil, suspect)
		if errors.Is(err, ErrChanged) {
			return nil, &fs.PathError{Op: "read", Path: f.path, Err: err}
		}
		return nil, err
	}
	c.publish(e, x, how, old != nil)
	return x, nil
}

// computed says how compute made an index.
type computed int

const (
	built    computed = iota // from scratch
	extended                 // the old index, extended over what the file grew
	prefixed                 // the old index's prefix; the entry keeps the old
)

// compute chooses how to index f given the entry's old index (nil for
// none), and does it.
func (c *Cache) compute(ctx context.Context, f *File, old *index, suspect bool) (*index, computed, error) {
	bufp := c.bufs.Get().(*[]byte)
	defer c.bufs.Put(bufp)
	buf, id := *bufp, f.id
	switch {
	case old != nil && old.id.sameInode(id) && (id.size > old.size || id.size == old.size && (id.mtime == old.id.mtime || f.appending())):
		// Grown: extend when the old tail is unchanged. At the same size
		// and mtime this is a late Write event (suspect) for the append the
		// index already saw; with a newer mtime, an fstat inside an append
		// (its times move before its size), told by the size having grown
		// since. Either way the tail check decides, where a build from
		// scratch would stall a reader polling a growing log. The same size
		// and a newer mtime that stays so is a rewrite in place, which may
		// have moved lines anywhere: rebuilt.
		x, err := extend(ctx, f.r, old, id, buf)
		if errors.Is(err, errTailChanged) {
			x, err = build(ctx, f.r, id, c.spacing, buf)
			return x, built, err
		}
		return x, extended, err
	case old != nil && !suspect && old.id.sameInode(id) && id.size < old.size && id.ctime < old.id.ctime:
		// f was opened before the file grew to what the entry indexed: the
		// entry's prefix serves it, and the entry stays as it is.
		x, err := prefix(ctx, f.r, old, id, buf)
		return x, prefixed, err
	}
	x, err := build(ctx, f.r, id, c.spacing, buf)
	return x, built, err
}

// failed undoes what index did for a failed build: the entry stays suspect
// if it was, and an entry that never held an index goes.
func (c *Cache) failed(e *entry, hadOld, suspect bool) {
	if suspect {
		e.suspect.Store(true)
	}
	if hadOld {
		return
	}
	c.mu.Lock()
	if cur, ok := c.lru.Peek(e.key); ok && cur == e {
		c.lru.Remove(e.key)
	}
	c.mu.Unlock()
	c.syncWatches()
}

// publish counts the lookup and, unless x is a prefix, makes x the entry's
// index, evicting the oldest entries past the memory bound.
func (c *Cache) publish(e *entry, x *index, how computed, hadOld bool) {
	c.mu.Lock()
	switch {
	case how == extended:
		c.hits++
		c.extends++
	case how == prefixed:
		c.hits++
	case hadOld:
		c.misses++
		c.invalidations++
	default:
		c.misses++
	}
	evicted := false
	if how != prefixed {
		e.idx = x
		if !e.removed {
			c.indexBytes += x.memBytes() - e.bytes
			e.bytes = x.memBytes()
			for c.indexBytes > c.maxIndexBytes && c.lru.Len() > 0 {
				c.lru.RemoveOldest()
				c.evictions++
				evicted = true
			}
		}
	}
	c.mu.Unlock()
	if evicted {
		c.syncWatches()
	}
}

// acquire returns the entry of the file that id describes, opened by path,
// adding an empty one when there is none, and links path to it.
func (c *Cache) acquire(path string, id fileID) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := keyOf(path, id)
	e, ok := c.lru.Get(key)
	if !ok {
		e = &entry{key: key, names: make(map[string]struct{})}
		if c.closed {
			// A File opened before Close: index it, keep nothing.
			e.removed = true
			return e
		}
		if c.lru.Add(key, e) {
			c.evictions++
		}
	}
	if _, ok := e.names[path]; !ok {
		if old, ok := c.byName[path]; ok {
			c.unlinkLocked(old, path) // the name now leads to another file
		}
		e.names[path] = struct{}{}
		c.byName[path] = e
		dir := filepath.Dir(path)
		if c.dirRefs[dir]++; c.dirRefs[dir] == 1 {
			c.dirtyDirs[dir] = struct{}{}
		}
	}
	return e
}

// unlinkLocked forgets that name leads to e, and releases its directory.
func (c *Cache) unlinkLocked(e *entry, name string) {
	delete(e.names, name)
	if c.byName[name] == e {
		delete(c.byName, name)
	}
	dir := filepath.Dir(name)
	if c.dirRefs[dir]--; c.dirRefs[dir] <= 0 {
		delete(c.dirRefs, dir)
		c.dirtyDirs[dir] = struct{}{}
	}
}

// onEvict runs, under c.mu, for every entry that leaves the LRU.
func (c *Cache) onEvict(_ fileKey, e *entry) {
	c.indexBytes -= e.bytes
	e.bytes = 0
	e.removed = true
	for name := range e.names {
		c.unlinkLocked(e, name)
	}
}

// dropLocked removes e as stale. A File in the middle of using it rechecks.
func (c *Cache) dropLocked(e *entry) {
	e.suspect.Store(true)
	c.lru.Remove(e.key)
	c.invalidations++
}

// syncWatches adds and removes directory watches to follow the refcounts.
// It runs on callers' goroutines, never on the draining one.
func (c *Cache) syncWatches() {
	if c.watcher == nil {
		return
	}
	c.mu.Lock()
	empty := len(c.dirtyDirs) == 0
	c.mu.Unlock()
	if empty {
		return
	}
	c.watchMu.Lock()
	defer c.watchMu.Unlock()
	type change struct {
		dir  string
		need bool
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	changes := make([]change, 0, len(c.dirtyDirs))
	for d := range c.dirtyDirs {
		changes = append(changes, change{d, c.dirRefs[d] > 0})
	}
	clear(c.dirtyDirs)
	c.mu.Unlock()
	for _, ch := range changes {
		switch {
		case ch.need:
			// Added even when c.watched says so: the directory may have been
			// removed and recreated, its old watch gone with it, while its
			// refcount was zero. Adding an existing watch changes nothing.
			// With kqueue a watch past the descriptors' budget is not made.
			err := errWatchBudget
			if c.charge(ch.dir) {
				err = c.watcher.Add(ch.dir)
			}
			if err != nil {
				delete(c.watched, ch.dir)
				c.uncharge(ch.dir)
				// inotify limits, permissions: the stat checks still hold.
				level := slog.LevelDebug
				if !c.warned.Swap(true) {
					level = slog.LevelWarn
				}
				c.log.Log(context.Background(), level, "fileindex: cannot watch directory, relying on stat checks",
					"dir", ch.dir, "err", err)
				continue
			}
			c.watched[ch.dir] = true
		case !ch.need && c.watched[ch.dir]:
			delete(c.watched, ch.dir)
			c.uncharge(ch.dir)
			if err := c.watcher.Remove(ch.dir); err != nil && !errors.Is(err, fsnotify.ErrNonExistentWatch) {
				c.log.Debug("fileindex: removing watch", "dir", ch.dir, "err", err)
			}
		}
	}
}

// drain is the one goroutine that reads the watcher; it ends when the
// watcher is closed.
func (c *Cache) drain(w *fsnotify.Watcher) {
	defer c.wg.Done()
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			c.event(ev)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			c.flush(err)
		}
	}
}

// event applies one watcher event to the entries.
func (c *Cache) event(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byName[name]
	if ok && ev.Has(fsnotify.Write) {
		e.suspect.Store(true)
	}
	if !ev.Has(fsnotify.Create | fsnotify.Remove | fsnotify.Rename) {
		return
	}
	if ok {
		c.dropLocked(e)
	}
	if c.dirRefs[name] > 0 && ev.Has(fsnotify.Remove|fsnotify.Rename) {
		// A watched directory itself went away, and its watch with it.
		for _, v := range c.lru.Values() {
			for n := range v.names {
				if filepath.Dir(n) == name {
					c.dropLocked(v)
					break
				}
			}
		}
	}
}

// flush drops every entry: the watcher overflowed or failed, so events may
// have been lost.
func (c *Cache) flush(err error) {
	level := slog.LevelWarn
	if errors.Is(err, fsnotify.ErrEventOverflow) {
		level = slog.LevelDebug
	}
	c.log.Log(context.Background(), level, "fileindex: watcher error, dropping every index", "err", err)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.lru.Values() {
		c.dropLocked(e)
	}
}

// withBuf runs f with a pooled buffer of c.bufSize bytes.
func (c *Cache) withBuf(f func(buf []byte) error) error {
	bufp := c.bufs.Get().(*[]byte)
	defer c.bufs.Put(bufp)
	return f(*bufp)
}

// withLookupBuf runs f with a pooled buffer of c.spacing bytes, all that a
// line lookup reads (the builds' buffers are 256 KiB or more: a pool
// dropped under -race made a lookup of a small file allocate one).
func (c *Cache) withLookupBuf(f func(buf []byte) error) error {
	bufp := c.lookups.Get().(*[]byte)
	defer c.lookups.Put(bufp)
	return f(*bufp)
}
