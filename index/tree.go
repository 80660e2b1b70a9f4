package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sys/unix"

	"github.com/toold/toold/internal/beneath"
	"github.com/toold/toold/search"
)

// load lists the tree, watches its directories, then takes its index
// from disk when it is sound and current, else builds it. A watch limit
// leaves the tree scanning, with no error.
func (t *Tree) load(ctx context.Context, w *fsnotify.Watcher, ignoreFrom string) error {
	t.mu.Lock()
	t.state = StateBuilding
	t.since, t.sinceD, t.sinceN = map[string]bool{}, map[string]bool{}, map[string]bool{}
	gen := t.overflows
	t.mu.Unlock()
	lo, err := t.prepare(ctx, w, ignoreFrom)
	if err != nil || lo == nil {
		return err
	}
	idx, listing, reused := lo.idx, lo.listing, lo.changed
	lm := listingMaps(idx, listing, t.root)
	t.mu.Lock()
	defer t.mu.Unlock()
	if ctx.Err() != nil { // dropped (over the quota) or closed meanwhile
		idx.close()
		return ctx.Err()
	}
	old := t.idx
	t.idx, t.dirty, t.dirtyD = idx, t.since, t.sinceD
	t.names, t.sinceN = t.sinceN, nil
	t.since, t.sinceD = nil, nil
	t.listing, t.ignoreFrom, t.structural, t.loaded = listing, ignoreFrom, false, time.Now()
	t.gen++
	t.lm = lm
	t.forgetPlans()
	for _, p := range reused {
		t.dirty[p] = true
	}
	for p := range t.dirty {
		lm.markDirty(p)
	}
	old.close()
	if lo.built {
		t.builtMs = lo.ms
	}
	if t.overflows != gen {
		t.state = StateScanning // events were lost meanwhile: again
		t.kick()
		return nil
	}
	t.state, t.reason = StateReady, ""
	t.m.log.Info("index ready", "root", t.root, "files", len(idx.files), "bytes", len(idx.data), "ms", lo.ms, "built", lo.built)
	go t.m.evict(t.file)
	return nil
}

// loaded is what prepare made ready: the index, the listing it answers
// for, its files changed since (taken from disk), and the time it took.
type loaded struct {
	idx     *mapped
	listing *search.Listing
	changed changed
	built   bool
	ms      int64
}

// prepare watches the tree's directories, lists it, then takes its index
// from disk when it is sound and current, else builds it; nil (and no
// error) past the watch limit, the tree left scanning. Watched, then
// listed: what changes after the watch is seen. The directories watched
// first are those of the index file a run before left (a restart: one
// walk fewer), else those of a first listing; the listing's are watched
// next (what appeared between).
func (t *Tree) prepare(ctx context.Context, w *fsnotify.Watcher, ignoreFrom string) (*loaded, error) {
	opt := search.GrepOptions{IgnoreFrom: ignoreFrom}
	saved := t.savedIndex()
	var dirs []string
	if saved != nil {
		dirs = saved.dirs()
	} else {
		t.firstDone() // a build: the greps waiting scan meanwhile
		first, err := search.Files(ctx, t.root, opt)
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", t.root, err)
		}
		dirs = first.Dirs
	}
	listing, err := t.watchAndList(ctx, w, dirs, opt)
	if err != nil || listing == nil {
		saved.close()
		return nil, err
	}
	root, err := os.OpenRoot(t.root)
	if err != nil {
		saved.close()
		return nil, err
	}
	defer root.Close()
	start := time.Now()
	if saved != nil {
		if ch := t.changedSince(root, saved); ch != nil {
			return &loaded{idx: saved, listing: listing, changed: ch, ms: time.Since(start).Milliseconds()}, nil
		}
		saved.close()
	}
	t.firstDone() // a build: the greps waiting scan meanwhile
	if err := build(ctx, root, listing.Files, t.file, t.prog); err != nil {
		return nil, fmt.Errorf("building the index of %s: %w", t.root, err)
	}
	idx, err := openIndex(t.file)
	if err != nil {
		return nil, err
	}
	return &loaded{idx: idx, listing: listing, built: true, ms: time.Since(start).Milliseconds()}, nil
}

// watchAndList watches dirs, lists the tree, and watches the directories
// of the listing that were not in dirs; nil past the watch limit (the
// tree then scans).
func (t *Tree) watchAndList(ctx context.Context, w *fsnotify.Watcher, dirs []string, opt search.GrepOptions) (*search.Listing, error) {
	if err := t.watchDirs(w, dirs); err != nil {
		t.fail(err.Error())
		return nil, nil
	}
	listing, err := search.Files(ctx, t.root, opt)
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", t.root, err)
	}
	if err := t.watchDirs(w, newDirs(dirs, listing.Dirs)); err != nil {
		t.fail(err.Error())
		return nil, nil
	}
	return listing, nil
}

// changed lists files whose size or mtime differ from the index's.
type changed []string

func (c changed) any() bool { return c != nil }

// savedIndex opens the index file left by an earlier run (or build),
// when it is sound (checksum); nil when there is none or it is corrupt
// (then removed).
func (t *Tree) savedIndex() *mapped {
	idx, err := openIndex(t.file)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			t.m.log.Warn("index file unusable: rebuilding", "file", t.file, "err", err)
			os.Remove(t.file)
		}
		return nil
	}
	return idx
}

// changedSince checks the size and mtime of each file of idx: those that
// differ are candidates until the next build. nil when too many differ
// (a build is worth it).
func (t *Tree) changedSince(root *os.Root, idx *mapped) changed {
	ch := changed{}
	st := newStatter(root)
	defer st.close()
	for _, f := range idx.files {
		size, mtime, ok := st.stat(f.path)
		if !ok || size != f.size || mtime != f.mtime {
			ch = append(ch, f.path)
		}
	}
	if len(ch) > t.m.opt.DirtyLimit {
		return nil
	}
	return ch
}

// dirs lists the directories of idx's files and their ancestors, the
// tree's own ("") first.
func (m *mapped) dirs() []string {
	seen := map[string]bool{"": true}
	out := []string{""}
	for _, f := range m.files {
		for d := f.path; ; {
			i := strings.LastIndexByte(d, '/')
			if i < 0 {
				break
			}
			d = d[:i]
			if seen[d] {
				break
			}
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// statter stats the files of a tree in walk order, each beneath its
// directory opened once, no symlink followed (openDirBeneath: the tree's
// os.Root resolves every component of every path, twice the time).
type statter struct {
	root   *os.Root
	rootFd int    // the tree's directory, -1 without openat2
	dir    string // the directory dirFd is
	dirFd  int
}

func newStatter(root *os.Root) *statter {
	s := &statter{root: root, rootFd: -1, dirFd: -1}
	if f, err := root.Open("."); err == nil {
		if fd, err := unix.Dup(int(f.Fd())); err == nil {
			s.rootFd = fd
		}
		f.Close()
	}
	return s
}

// stat returns the size and mtime (ns) of the file rel, following a
// symlink within the tree.
func (s *statter) stat(rel string) (size, mtime int64, ok bool) {
	dir, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	if dir != s.dir || s.dirFd < 0 {
		s.closeDir()
		s.dir, s.dirFd = dir, s.openDir(dir)
	}
	var st unix.Stat_t
	if s.dirFd < 0 || unix.Fstatat(s.dirFd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT == unix.S_IFLNK {
		fi, err := s.root.Stat(rel)
		if err != nil {
			return 0, 0, false
		}
		return fi.Size(), fi.ModTime().UnixNano(), true
	}
	return st.Size, st.Mtim.Nano(), true
}

func (s *statter) openDir(dir string) int {
	if s.rootFd < 0 {
		return -1
	}
	if dir == "" {
		dir = "."
	}
	fd, err := openDirBeneath(s.rootFd, dir)
	if err != nil {
		return -1
	}
	return fd
}

func (s *statter) closeDir() {
	if s.dirFd >= 0 {
		unix.Close(s.dirFd)
		s.dirFd = -1
	}
}

func (s *statter) close() {
	s.closeDir()
	if s.rootFd >= 0 {
		unix.Close(s.rootFd)
	}
}

// newDirs lists the directories of b not in a.
func newDirs(a, b []string) []string {
	seen := make(map[string]bool, len(a))
	for _, d := range a {
		seen[d] = true
	}
	var out []string
	for _, d := range b {
		if !seen[d] {
			out = append(out, d)
		}
	}
	return out
}

// watchDirs watches the directories the walk went through: a write, a
// rename over a file, a name created or removed, a directory moved in or
// out are all seen. With kqueue a watch that does not fit the
// descriptors' budget is the watch limit too (charge).
func (t *Tree) watchDirs(w *fsnotify.Watcher, list []string) error {
	for i, d := range list {
		if limit := t.m.opt.WatchLimit; limit > 0 && i >= limit {
			return errWatchLimit
		}
		if !t.charge(filepath.Join(t.root, d)) {
			return errWatchLimit
		}
		if err := w.Add(filepath.Join(t.root, d)); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return errWatchLimit
			}
			t.m.log.Debug("index: watch", "dir", d, "err", err)
		}
	}
	return nil
}

// watch marks what changes as candidates and asks for a rebuild when the
// watcher overflows or too much changed.
func (t *Tree) watch(w *fsnotify.Watcher, rebuild chan<- struct{}) {
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if !t.synced(ev.Name) {
				t.mark(ev)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				t.overflow()
			}
		}
	}
}

// mark makes the path of ev a candidate (and, for a name created, removed
// or renamed, everything beneath it).
func (t *Tree) mark(ev fsnotify.Event) {
	if ev.Op == fsnotify.Chmod {
		return
	}
	rel, ok := beneath.Rel(ev.Name, t.root)
	if !ok {
		return
	}
	rel = filepath.ToSlash(rel)
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, m := range []map[string]bool{t.dirty, t.since} {
		if m != nil {
			m[rel] = true
		}
	}
	if t.lm != nil {
		t.lm.markDirty(rel)
	}
	t.forgetPlans()
	if ev.Op&(fsnotify.Create|fsnotify.Remove|fsnotify.Rename) != 0 {
		for _, m := range []map[string]bool{t.dirtyD, t.sinceD} {
			if m != nil {
				m[rel] = true
			}
		}
		// A name's first event says whether it was there before.
		for _, m := range []map[string]bool{t.names, t.sinceN} {
			if _, seen := m[rel]; !seen && m != nil {
				m[rel] = ev.Op&fsnotify.Create == 0
			}
		}
	}
	if len(t.dirty)+len(t.dirtyD) > t.m.opt.DirtyLimit && t.state == StateReady {
		t.kick() // re-index: until then they are candidates
	}
}

// overflow: events were lost, so the index cannot be trusted until it is
// rebuilt.
func (t *Tree) overflow() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.overflows++
	t.setScanning("watcher overflow")
	t.kick()
}

// kick asks the tree's loop for a rebuild. Under t.mu.
func (t *Tree) kick() {
	select {
	case t.rebuild <- struct{}{}:
	default:
	}
}

// evict removes the least recently used index files (by mtime) while all
// of them pass the quota, never keep.
func (m *Manager) evict(keep string) {
	ents, err := os.ReadDir(m.opt.Dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	var files []file
	var total int64
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".idx") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			files = append(files, file{filepath.Join(m.opt.Dir, e.Name()), fi.Size(), fi.ModTime()})
			total += fi.Size()
		}
	}
	slices.SortFunc(files, func(a, b file) int { return a.mod.Compare(b.mod) })
	for _, f := range files {
		if total <= m.opt.Quota {
			return
		}
		if f.path == keep {
			continue
		}
		m.drop(f.path)
		total -= f.size
	}
}

// drop forgets the tree whose index file is path, and removes the file.
func (m *Manager) drop(path string) {
	m.mu.Lock()
	for root, t := range m.trees {
		if t.file == path {
			delete(m.trees, root)
			t.stop()
			t.close()
		}
	}
	m.mu.Unlock()
	os.Remove(path)
	m.log.Info("index evicted: over the quota", "file", path, "quota", m.opt.Quota)
}
