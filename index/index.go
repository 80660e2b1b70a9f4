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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/fsnotify/fsnotify"

	"github.com/toold/toold/search"
	"github.com/toold/toold/spool"
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
		// toold's directory too: whoever could write there could put a
		// symlink in the place of index.
		top := filepath.Join(c, "toold")
		if err := spool.PrivateDir(top); err != nil {
			return nil, fmt.Errorf("index: %w", err)
		}
		opt.Dir = filepath.Join(top, "index")
	}
	if opt.Quota <= 0 {
		opt.Quota = DefaultQuota
	}
	if opt.DirtyLimit <= 0 {
		opt.DirtyLimit = 1000
	}
	// As the spool root: ours alone, never a symlink (its target would be
	// chmod'ed and written to), never another uid's.
	if err := spool.PrivateDir(opt.Dir); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	log := opt.Logger
	if log == nil {
		log = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Manager{opt: opt, log: log, ctx: ctx, cancel: cancel, trees: map[string]*Tree{}}, nil
}

// closeWait bounds Close's wait for the builds to stop: a read that never
// returns (a file system that does not answer) must not keep the daemon
// from exiting.
const closeWait = 5 * time.Second

// Close stops every build and watcher and unmaps the indexes. A build
// that has not stopped within closeWait is left to the process's exit.
func (m *Manager) Close() error {
	m.cancel()
	done := make(chan struct{})
	go func() { m.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(closeWait):
		m.log.Warn("index: a build did not stop (a read that does not return): left to the process's exit")
	}
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
	// names created, removed or renamed since the listing (sinceN: since
	// the build under way started): whether each was there before.
	names, sinceN map[string]bool
	// The listing of the tree the index was made from, by a walk with
	// ignoreFrom's rules, and its maps to the index (lm); structural: the
	// tree's names changed since (a grep walks).
	listing *search.Listing
	lm      *listMaps
	// plans are the picks of queries of the tree as it is, by query.
	plans      map[string]cachedPlan
	planBytes  int
	ignoreFrom string
	structural bool
	loaded     time.Time     // when the index was made or taken from disk
	gen        int           // indexes loaded so far
	overflows  int           // events lost, counted
	rebuild    chan struct{} // to the tree's loop
	watcher    *fsnotify.Watcher
	charged    map[string]int // the watches' descriptors, by directory (watchfd.go)
	builtMs    int64
	used       time.Time
	stop       context.CancelFunc
	prog       *progress

	hits, scans atomic.Int64

	gate     chan struct{} // closed when the first grep is done (Scanned)
	gateOnce sync.Once
	// saved: an index file of the tree was on disk when the daemon met
	// it (a restart): taking it is quick, so the load does not wait for
	// the gate and the first grep waits for the load (first, closed when
	// it is over) rather than scan.
	saved     bool
	first     chan struct{}
	firstOnce sync.Once

	// Sync: a name created in syncDir, watched by the tree's watcher, comes
	// back as an event after every event queued before it (one inotify
	// queue keeps their order): once it is seen, every change made before
	// the grep started is marked.
	syncDir string
	syncSeq atomic.Int64
	syncMu  sync.Mutex
	waiters map[string]chan struct{}
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
	p := m.Plan(dir, q, ignoreFrom, true)
	m.Scanned(dir)
	return p.Candidate
}

// Scanned tells the index that the grep of dir that came first is done:
// the build of its tree, which waits for it (so as not to slow it), may
// start. A build starts anyway after startDelay.
func (m *Manager) Scanned(dir string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.trees[dir]; t != nil {
		t.gateOnce.Do(func() { close(t.gate) })
	}
}

// startDelay bounds the wait of a build for the first grep to end.
const startDelay = 10 * time.Second

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
		state: StateBuilding, used: time.Now(), prog: &progress{}, stop: stop, rebuild: make(chan struct{}, 1),
		waiters: map[string]chan struct{}{}, gate: make(chan struct{}), first: make(chan struct{})}
	if _, err := os.Stat(t.file); err == nil {
		t.saved = true
	}
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
		t.uncharge()
		os.RemoveAll(t.syncDir)
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
	defer t.firstDone()
	if !t.saved { // a build: after the first grep, not beside it
		select {
		case <-t.gate:
		case <-time.After(startDelay):
		case <-ctx.Done():
			return
		}
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.fail("no watcher: " + err.Error())
		return
	}
	syncDir, err := os.MkdirTemp(t.m.opt.Dir, "sync-")
	if err == nil {
		// The file each sync links to; made before the watch, so it
		// stirs no event.
		if err = os.WriteFile(filepath.Join(syncDir, syncBase), nil, 0o600); err == nil {
			if err = w.Add(syncDir); errors.Is(err, syscall.ENOSPC) {
				// Not a full disk: the kernel's inotify watches are used up.
				err = fmt.Errorf("%w: the user's inotify watches are used up (fs.inotify.max_user_watches)", errWatchLimit)
			}
		}
		if err != nil {
			os.RemoveAll(syncDir)
		}
	}
	if err != nil {
		w.Close()
		t.fail("no sync directory: " + err.Error())
		return
	}
	t.mu.Lock()
	t.watcher, t.syncDir = w, syncDir
	t.dirty, t.dirtyD = map[string]bool{}, map[string]bool{}
	t.mu.Unlock()
	go t.watch(w, t.rebuild)
	for ctx.Err() == nil {
		err := t.load(ctx, w, ignoreFrom)
		t.firstDone()
		if err != nil {
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

// firstDone lets the greps waiting for the first load go on.
func (t *Tree) firstDone() {
	t.firstOnce.Do(func() { close(t.first) })
}

// firstWait bounds the wait of a grep for an index taken from disk.
const firstWait = 5 * time.Second

func (t *Tree) fail(reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.setScanning(reason)
}

// Plan is how a grep of a tree goes: with Listing set, through the
// listing the index was made from (no walk: the tree's names have not
// changed since), searching the files Pick names (indices into
// Listing.Files, ascending); else, when Candidate is set, walking and
// passing over the files it rules out; else a scan.
type Plan struct {
	Listing *search.Listing
	Pick    []int32
	Parts   []search.FileParts // of large files, the blocks that may match
	// Text says which files of Listing are text as they are (for
	// search.GrepOptions.Text).
	Text      func(i int32) bool
	Candidate func(rel string) bool
}

// Plan returns the plan of a grep of the directory dir for the query q
// (see Candidates); noIgnore greps, and greps of a subdirectory, walk.
func (m *Manager) Plan(dir string, q *Query, ignoreFrom string, noIgnore bool) Plan {
	t, prefix := m.treeFor(dir, ignoreFrom)
	if t == nil {
		return Plan{}
	}
	if t.saved && q != nil {
		select { // quicker than a scan
		case <-t.first:
		default:
			select {
			case <-t.first:
			case <-time.After(firstWait):
			}
		}
	}
	synced := q != nil && t.sync(syncTimeout)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state != StateReady || q == nil || !synced {
		t.scans.Add(1)
		return Plan{}
	}
	listing := prefix == "" && !noIgnore && ignoreFrom == t.ignoreFrom && t.settle()
	key := q.key()
	if c, ok := t.plans[key]; ok && listing {
		t.hits.Add(1)
		return Plan{Listing: t.listing, Pick: c.pick, Parts: c.parts, Text: textOf(c.text)}
	}
	bm, err := t.idx.eval(q)
	if err != nil {
		t.setScanning(err.Error()) // the file changed under the mapping: build anew
		t.kick()
	}
	if bm == nil {
		t.scans.Add(1)
		return Plan{}
	}
	t.hits.Add(1)
	if !listing {
		return Plan{Candidate: t.matcher(t.idx.fileSet(bm), prefix)}
	}
	pick, parts, text := t.pick(bm)
	t.cachePlan(key, cachedPlan{pick: pick, parts: parts, text: text})
	return Plan{Listing: t.listing, Pick: pick, Parts: parts, Text: textOf(text)}
}

// textOf is a Plan's Text: whether the listing's file i is in the bit
// set text.
func textOf(text []uint64) func(i int32) bool {
	return func(i int32) bool { return i >= 0 && int(i>>6) < len(text) && hasBit(text, i) }
}

// cachedPlan is a grep's pick of an unchanged tree, kept for the next
// grep of the same query (agents repeat theirs): read-only once cached.
type cachedPlan struct {
	pick  []int32
	parts []search.FileParts
	text  []uint64
}

// maxCachedBytes bounds the memory of the plans cached, estimated:
// 4 bytes a file picked, partBytes a file in parts.
const (
	maxCachedBytes = 8 << 20
	partBytes      = 80 // its FileParts and a range or two
)

// cachePlan keeps c for key until the tree changes (forgetPlans). Under
// t.mu.
func (t *Tree) cachePlan(key string, c cachedPlan) {
	size := 4*len(c.pick) + partBytes*len(c.parts) + 8*len(c.text)
	if size > maxCachedBytes/4 {
		return // a query that picks most of the tree: not worth the memory
	}
	if t.planBytes+size > maxCachedBytes {
		t.forgetPlans()
	}
	if t.plans == nil {
		t.plans = map[string]cachedPlan{}
	}
	t.plans[key] = c
	t.planBytes += size
}

// forgetPlans drops the cached plans: the tree or its index changed.
// Under t.mu.
func (t *Tree) forgetPlans() {
	t.plans, t.planBytes = nil, 0
}

func (t *Tree) isListed(name string) bool {
	_, ok := t.lm.listed[name]
	return ok
}

// sameKind reports whether fi, what the listed file name is now, is of
// the kind the listing says (a regular file, or a symlink opened through
// the root): a file renamed over by a link, or a link by a file, must be
// walked again, since the listing opens each as it was.
func (t *Tree) sameKind(name string, fi os.FileInfo) bool {
	link := fi.Mode()&os.ModeSymlink != 0
	if !link && !fi.Mode().IsRegular() {
		return false
	}
	return t.listing.Files[t.lm.listed[name]].Symlink == link
}

// rebuildAfter is how old an index must be before a change to the tree's
// names has it rebuilt.
const rebuildAfter = 2 * time.Minute

// syncTimeout bounds the wait for the watcher to catch up; past it the
// grep scans.
const syncTimeout = 2 * time.Second

// syncBase is the file of a tree's sync directory that each sync's name
// links to.
const syncBase = "base"

// sync waits until the watcher has handed over every event queued before
// it was called; false when it could not tell in time.
func (t *Tree) sync(timeout time.Duration) bool {
	t.mu.Lock()
	ok := t.watcher != nil && t.syncDir != ""
	t.mu.Unlock()
	if !ok {
		return false
	}
	name := filepath.Join(t.syncDir, strconv.FormatInt(t.syncSeq.Add(1), 10))
	ch := make(chan struct{})
	t.syncMu.Lock()
	t.waiters[name] = ch
	t.syncMu.Unlock()
	defer func() {
		t.syncMu.Lock()
		delete(t.waiters, name)
		t.syncMu.Unlock()
		os.Remove(name)
	}()
	// A new name for the sync directory's one file: an event like a new
	// file's, without the new inode (a file created and removed at every
	// grep cost a millisecond of system CPU on an ext4 that had deleted
	// many). Where links are refused, an empty file.
	if os.Link(filepath.Join(t.syncDir, syncBase), name) != nil {
		if err := os.WriteFile(name, nil, 0o600); err != nil {
			return false
		}
	}
	select {
	case <-ch:
		return true
	case <-time.After(timeout):
		return false
	}
}

// synced wakes the sync waiting for name, if any: true when name is the
// tree's sync file.
func (t *Tree) synced(name string) bool {
	if t.syncDir == "" || filepath.Dir(name) != t.syncDir {
		return false
	}
	t.syncMu.Lock()
	if ch, ok := t.waiters[name]; ok {
		close(ch)
		delete(t.waiters, name)
	}
	t.syncMu.Unlock()
	return true
}

// settle judges the names created, removed or renamed since the listing,
// and reports whether the listing still holds: a listed file that is a
// file again (an editor's rename over it) or a name that came and went
// leave it whole; anything else (a name added or gone, an ignore file
// touched) does not, until the next build, which it asks for. Under t.mu.
func (t *Tree) settle() bool {
	for name, before := range t.names {
		if t.structural {
			break
		}
		base := name[strings.LastIndexByte(name, '/')+1:]
		fi, err := os.Lstat(filepath.Join(t.root, name))
		now := err == nil
		switch {
		case base == ".gitignore" || base == ".ignore" || name == ".git" || strings.HasPrefix(name, ".git/"):
			t.structural = true
		case t.isListed(name):
			t.structural = !now || !t.sameKind(name, fi)
		default:
			t.structural = before || now
		}
		if !t.structural {
			delete(t.names, name)
		}
	}
	if t.structural && time.Since(t.loaded) > rebuildAfter {
		// Walks cost more than scans of candidates save: build anew, but
		// not at every change of a busy tree (a build scans it all).
		t.kick()
	}
	return !t.structural
}
