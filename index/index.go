package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/fsnotify/fsnotify"
)

// DefaultQuota bounds all indexes on disk together (--index-quota).
const DefaultQuota = 2 << 30

// Options configure a Manager.
type Options struct {
	// Dir holds the index files (made 0700); default
	// os.UserCacheDir()/toold/index.
	Dir string
	// Quota bounds the index files' bytes; the least recently used tree's
	// is removed past it. 0: DefaultQuota.
	Quota  int64
	Logger *slog.Logger
	// WatchLimit, for tests, fails the watch past this many directories as
	// the kernel's limit (ENOSPC) would; 0: no limit of ours.
	WatchLimit int
	// DirtyLimit is how many changed files a tree takes before it is
	// rebuilt; 0: 1000.
	DirtyLimit int
}

// Manager owns the daemon's indexes: one per tree grepped, shared by
// every session.
type Manager struct {
	opt    Options
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	trees map[string]*Tree
}

// New returns a Manager storing its files in opt.Dir.
func New(opt Options) (*Manager, error) {
	if opt.Dir == "" {
		c, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("index: no cache directory: %w", err)
		}
		opt.Dir = filepath.Join(c, "toold", "index")
	}
	if opt.Quota <= 0 {
		opt.Quota = DefaultQuota
	}
	if opt.DirtyLimit <= 0 {
		opt.DirtyLimit = 1000
	}
	if err := os.MkdirAll(opt.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	if err := os.Chmod(opt.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{opt: opt, log: log, ctx: ctx, cancel: cancel, trees: map[string]*Tree{}}, nil
}

// Close stops every build and watcher and unmaps the indexes.
func (m *Manager) Close() error {
	m.cancel()
	m.wg.Wait()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, t := range m.trees {
		t.close()
	}
	m.trees = map[string]*Tree{}
	return nil
}

// States of a tree's index (stats).
const (
	StateBuilding = "building"
	StateReady    = "ready"
	StateScanning = "scanning" // not trusted now: grep scans
)

// Tree is the index of one directory tree.
type Tree struct {
	root string
	file string
	m    *Manager

	mu     sync.Mutex
	state  string
	reason string // why scanning
	idx    *mapped
	dirty  map[string]bool // changed files, candidates until rebuilt
	dirtyD map[string]bool // names created, removed or renamed: all beneath
	// since and sinceD: what changed since the build under way started,
	// which become dirty and dirtyD when its index replaces the old.
	since, sinceD map[string]bool
	overflows     int           // events lost, counted
	rebuild       chan struct{} // to the tree's loop
	watcher       *fsnotify.Watcher
	builtMs       int64
	used          time.Time
	stop          context.CancelFunc
	prog          *progress

	hits, scans atomic.Int64
}

// Stats is one tree's line of stats.index.
type Stats struct {
	Root, State, Reason string
	Files               int
	Bytes, BuiltMs      int64
	Hits, Scans         int64
}

// Stats lists the trees.
func (m *Manager) Stats() []Stats {
	m.mu.Lock()
	trees := make([]*Tree, 0, len(m.trees))
	for _, t := range m.trees {
		trees = append(trees, t)
	}
	m.mu.Unlock()
	slices.SortFunc(trees, func(a, b *Tree) int { return strings.Compare(a.root, b.root) })
	out := make([]Stats, 0, len(trees))
	for _, t := range trees {
		t.mu.Lock()
		s := Stats{Root: t.root, State: t.state, Reason: t.reason, BuiltMs: t.builtMs, Hits: t.hits.Load(), Scans: t.scans.Load()}
		if t.idx != nil {
			s.Files, s.Bytes = len(t.idx.files), int64(len(t.idx.data))
		}
		t.mu.Unlock()
		out = append(out, s)
	}
	return out
}

// Candidates returns, for a grep of the directory dir with the query q,
// which of its files may match (by path relative to dir), or nil when the
// grep must scan: no index of dir's tree is ready and trusted, or q has no
// trigram. The first grep of a tree starts its index's build. ignoreFrom
// is the grep's (the build lists the files the grep would).
func (m *Manager) Candidates(dir string, q *Query, ignoreFrom string) func(rel string) bool {
	t, prefix := m.treeFor(dir, ignoreFrom)
	if t == nil {
		return nil
	}
	cand := t.candidates(q, prefix)
	if cand == nil {
		t.scans.Add(1)
	} else {
		t.hits.Add(1)
	}
	return cand
}

// treeFor returns the tree that holds dir (its root dir or an ancestor)
// and dir's path in it, starting dir's own when there is none.
func (m *Manager) treeFor(dir, ignoreFrom string) (*Tree, string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ctx.Err() != nil {
		return nil, ""
	}
	for d, rel := dir, ""; ; {
		if t, ok := m.trees[d]; ok {
			t.touch()
			return t, rel
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		rel = joinRel(filepath.Base(d), rel)
		d = parent
	}
	sum := sha256.Sum256([]byte(dir))
	ctx, stop := context.WithCancel(m.ctx)
	t := &Tree{root: dir, file: filepath.Join(m.opt.Dir, hex.EncodeToString(sum[:12])+".idx"), m: m,
		state: StateBuilding, used: time.Now(), prog: &progress{}, stop: stop, rebuild: make(chan struct{}, 1)}
	m.trees[dir] = t
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t.start(ctx, ignoreFrom)
	}()
	return t, ""
}

func joinRel(a, b string) string {
	if b == "" {
		return a
	}
	return a + "/" + b
}

// Progress reports the build of dir's tree: bytes read and to read; ok
// is false when none is under way.
func (m *Manager) Progress(dir string) (done, total int64, ok bool) {
	m.mu.Lock()
	t := m.trees[dir]
	m.mu.Unlock()
	if t == nil {
		return 0, 0, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != StateBuilding {
		return 0, 0, false
	}
	return t.prog.done.Load(), t.prog.total.Load(), true
}

func (t *Tree) touch() {
	if time.Since(t.used) > time.Minute {
		now := time.Now()
		os.Chtimes(t.file, now, now) // the file's mtime is its LRU time
	}
	t.used = time.Now()
}

// candidates is the index's answer under t's lock.
func (t *Tree) candidates(q *Query, prefix string) func(rel string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != StateReady || q == nil {
		return nil
	}
	bm, err := t.idx.eval(q)
	if err != nil {
		t.setScanning(err.Error())
		return nil
	}
	if bm == nil {
		return nil
	}
	return t.matcher(bm, prefix)
}

// matcher answers for one grep: the index's files in bm, the files it
// does not hold, skipped or changed since.
func (t *Tree) matcher(bm *roaring.Bitmap, prefix string) func(rel string) bool {
	idx := t.idx
	dirty, dirtyD := maps(t.dirty), maps(t.dirtyD)
	return func(rel string) bool {
		if prefix != "" {
			rel = prefix + "/" + rel
		}
		id, ok := idx.byPath[rel]
		if !ok || idx.files[id].flags&flagSkipped != 0 || dirty[rel] {
			return true
		}
		for i := len(rel) - 1; len(dirtyD) > 0 && i > 0; i-- {
			if rel[i] == '/' && dirtyD[rel[:i]] {
				return true
			}
		}
		return bm.Contains(id)
	}
}

func maps(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// setScanning stops trusting the index until it is rebuilt. Under t.mu.
func (t *Tree) setScanning(reason string) {
	t.state, t.reason = StateScanning, reason
	t.m.log.Info("index not trusted: grep scans", "root", t.root, "reason", reason)
}

func (t *Tree) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.watcher != nil {
		t.watcher.Close()
		t.watcher = nil
	}
	if t.idx != nil {
		t.idx.close()
		t.idx = nil
	}
}

// errWatchLimit stands for the kernel's inotify limit (ENOSPC).
var errWatchLimit = errors.New("watch limit reached")

// start watches the tree, then loads its index from disk when it is
// there and sound, else builds it; ends when the manager closes.
func (t *Tree) start(ctx context.Context, ignoreFrom string) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.fail("no watcher: " + err.Error())
		return
	}
	t.mu.Lock()
	t.watcher = w
	t.dirty, t.dirtyD = map[string]bool{}, map[string]bool{}
	t.mu.Unlock()
	go t.watch(w, t.rebuild)
	for ctx.Err() == nil {
		if err := t.load(ctx, w, ignoreFrom); err != nil {
			if ctx.Err() == nil {
				t.fail(err.Error())
			}
			return
		}
		// Ready (or scanning): rebuild when told to.
		select {
		case <-ctx.Done():
			return
		case <-t.rebuild:
		}
	}
}

func (t *Tree) fail(reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.setScanning(reason)
}
