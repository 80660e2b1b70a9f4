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

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/fsnotify/fsnotify"

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
	// Listed, watched, listed again: what changes after the watch is
	// seen, and the listing the fast path uses is the second.
	first, err := search.Files(ctx, t.root, search.GrepOptions{IgnoreFrom: ignoreFrom})
	if err != nil {
		return fmt.Errorf("listing %s: %w", t.root, err)
	}
	if err := t.watchDirs(w, first.Dirs); err != nil {
		t.fail(err.Error())
		return nil
	}
	listing, err := search.Files(ctx, t.root, search.GrepOptions{IgnoreFrom: ignoreFrom})
	if err != nil {
		return fmt.Errorf("listing %s: %w", t.root, err)
	}
	if err := t.watchDirs(w, newDirs(first.Dirs, listing.Dirs)); err != nil {
		t.fail(err.Error())
		return nil
	}
	root, err := os.OpenRoot(t.root)
	if err != nil {
		return err
	}
	defer root.Close()
	start := time.Now()
	idx, reused := t.reuse(root)
	if idx == nil {
		if err := build(ctx, root, listing.Files, t.file, t.prog); err != nil {
			return fmt.Errorf("building the index of %s: %w", t.root, err)
		}
		if idx, err = openIndex(t.file); err != nil {
			return err
		}
	}
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
	t.inv, t.always, t.listed = listingMaps(idx, listing)
	for _, p := range reused {
		t.dirty[p] = true
	}
	old.close()
	if !reused.any() {
		t.builtMs = time.Since(start).Milliseconds()
	}
	if t.overflows != gen {
		t.state = StateScanning // events were lost meanwhile: again
		t.kick()
		return nil
	}
	t.state, t.reason = StateReady, ""
	t.m.log.Info("index ready", "root", t.root, "files", len(idx.files), "bytes", len(idx.data), "ms", time.Since(start).Milliseconds())
	go t.m.evict(t.file)
	return nil
}

// listingMaps maps the index's files to the listing's (inv), lists the
// listing's files the index does not answer for (always), and maps the
// listing's paths to their indices (listed).
func listingMaps(idx *mapped, l *search.Listing) (inv []int32, always *roaring.Bitmap, listed map[string]int32) {
	inv = make([]int32, len(idx.files))
	for i := range inv {
		inv[i] = -1
	}
	always = roaring.New()
	listed = make(map[string]int32, len(l.Files))
	for i, f := range l.Files {
		listed[f.Rel] = int32(i)
		id, ok := idx.byPath[f.Rel]
		if !ok || f.Symlink || idx.files[id].flags&flagSkipped != 0 {
			always.Add(uint32(i))
			continue
		}
		inv[id] = int32(i)
	}
	always.RunOptimize()
	return inv, always, listed
}

// changed lists files whose size or mtime differ from the index's.
type changed []string

func (c changed) any() bool { return c != nil }

// reuse opens the index file left by an earlier run: sound (checksum)
// and with every file's size and mtime checked, those that differ being
// candidates until the next build. nil when there is none or it is
// corrupt (then removed).
func (t *Tree) reuse(root *os.Root) (*mapped, changed) {
	idx, err := openIndex(t.file)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			t.m.log.Warn("index file unusable: rebuilding", "file", t.file, "err", err)
			os.Remove(t.file)
		}
		return nil, nil
	}
	ch := changed{}
	for _, f := range idx.files {
		fi, err := root.Stat(f.path)
		if err != nil || fi.Size() != f.size || fi.ModTime().UnixNano() != f.mtime {
			ch = append(ch, f.path)
		}
	}
	if len(ch) > t.m.opt.DirtyLimit {
		idx.close()
		return nil, nil
	}
	return idx, ch
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
// out are all seen.
func (t *Tree) watchDirs(w *fsnotify.Watcher, list []string) error {
	for i, d := range list {
		if limit := t.m.opt.WatchLimit; limit > 0 && i >= limit {
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
	rel, err := filepath.Rel(t.root, ev.Name)
	if err != nil || strings.HasPrefix(rel, "..") {
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
