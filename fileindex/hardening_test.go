package fileindex

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toold/toold/internal/testenv"

	"github.com/fsnotify/fsnotify"
	"golang.org/x/sync/semaphore"
)

// TestLateWriteEventExtends: the Write event of an
// append arrives after a read already indexed the grown file. The next read
// of the same state checks the tail instead of building from scratch; main
// counted a miss and an invalidation, a full build of the file.
func TestLateWriteEventExtends(t *testing.T) {
	c, path, content := indexedLog(t)
	more := []byte("appended\n")
	appendFile(t, path, more)
	content = append(content, more...)
	check(t, open(t, c, path), content, false) // extends

	c.event(fsnotify.Event{Name: path, Op: fsnotify.Write}) // the append's event, late
	check(t, open(t, c, path), content, true)
	if st := c.Stats(); st.Misses != 1 || st.Invalidations != 0 || st.Extends != 2 {
		t.Errorf("a late Write event rebuilt the index: %+v", st)
	}

	// A late event over a rewritten tail still rebuilds.
	rewritten := bytes.Clone(content)
	copy(rewritten[len(rewritten)-9:], "REWRITTEN")
	writeInPlace(t, path, rewritten)
	c.event(fsnotify.Event{Name: path, Op: fsnotify.Write})
	check(t, open(t, c, path), rewritten, true)
	if st := c.Stats(); st.Misses != 2 || st.Invalidations != 1 {
		t.Errorf("a rewritten tail was not rebuilt: %+v", st)
	}
}

// TestSizeLies reads files whose stat size is not their content's: procfs
// (size 0) and sysfs (size 4096) are read to EOF, windowed from a snapshot,
// and kept out of the cache. Main indexed /proc/cpuinfo as empty.
func TestSizeLies(t *testing.T) {
	c := newCache(t, Options{noWatch: true})
	for _, path := range []string{"/proc/cpuinfo", "/proc/version", "/proc/self/maps", "/sys/kernel/mm/transparent_hugepage/enabled"} {
		want, err := os.ReadFile(path)
		if err != nil || len(want) == 0 {
			continue
		}
		f := open(t, c, path)
		if f.Size() == 0 || f.Lines() == 0 {
			t.Errorf("%s: size %d, %d lines", path, f.Size(), f.Lines())
			continue
		}
		got := make([]byte, f.Size())
		if _, err := f.ReadAt(got, 0); err != nil {
			t.Errorf("%s: %v", path, err)
		}
		if path == "/proc/version" || path == "/sys/kernel/mm/transparent_hugepage/enabled" {
			check(t, f, want, true) // static: the snapshot is the file
		}
	}
	if st := c.Stats(); st.Entries != 0 {
		t.Errorf("snapshots were cached: %+v", st)
	}
}

// TestShortReadIsChange: a file truncated after Open reads short inside
// Size(), which is ErrChanged (a *fs.PathError), not io.EOF.
func TestShortReadIsChange(t *testing.T) {
	c := newCache(t, Options{noWatch: true})
	path := filepath.Join(t.TempDir(), "f")
	testenv.WriteFile(t, path, bytes.Repeat([]byte("x\n"), 5000))
	f, err := c.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n, err := f.ReadAt(nil, f.Size()); n != 0 || err != nil {
		t.Fatalf("reading nothing at the end: %d, %v", n, err)
	}
	if err := os.Truncate(path, 100); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1000)
	_, err = f.ReadAt(buf, 0)
	var perr *fs.PathError
	if !errors.Is(err, ErrChanged) || !errors.As(err, &perr) {
		t.Fatalf("ReadAt after truncation: %v, want ErrChanged", err)
	}
	if err := f.Index(context.Background()); !errors.Is(err, ErrChanged) {
		t.Fatalf("Index after truncation: %v, want ErrChanged", err)
	}
}

// TestOpenFileAdopts: OpenFile takes a descriptor the caller opened, and
// refuses (closing it) what is not a regular file.
func TestOpenFileAdopts(t *testing.T) {
	c := newCache(t, Options{noWatch: true})
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	testenv.WriteFile(t, path, []byte("one\ntwo\n"))
	osf, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.OpenFile(context.Background(), path, osf)
	if err != nil {
		t.Fatal(err)
	}
	check(t, f, []byte("one\ntwo\n"), true)
	f.Close()

	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.OpenFile(context.Background(), dir, d); !errors.Is(err, ErrIsDir) {
		t.Errorf("a directory: %v", err)
	}
	if err := d.Close(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("the refused descriptor was not closed: %v", err)
	}
}

// TestHardLinksIndexOnce: hard links cost one index: entries are keyed
// by device and inode, so the names of one file share one index; main built
// and kept one per name. A Write event on any name marks the shared entry.
func TestHardLinksIndexOnce(t *testing.T) {
	c := newCache(t, Options{noWatch: true})
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	// 300 lines (3,000 with TOOLD_LONG=1): the size is not what is
	// checked here, and each name's check reads the file over again.
	content := bytes.Repeat([]byte("shared line\n"), testenv.Size(300, 3000))
	testenv.WriteFile(t, path, content)
	names := []string{path}
	for _, n := range []string{"link1", "link2", "sub/link3"} {
		name := filepath.Join(dir, n)
		os.MkdirAll(filepath.Dir(name), 0o755)
		if err := os.Link(path, name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	for _, n := range names {
		check(t, open(t, c, n), content, false)
	}
	if st := c.Stats(); st.Entries != 1 || st.Misses != 1 || st.Hits != 3 {
		t.Errorf("hard links indexed apart: %+v", st)
	}
	c.mu.Lock()
	refs := len(c.dirRefs)
	c.mu.Unlock()
	if refs != 2 {
		t.Errorf("%d directories watched, want 2", refs)
	}
	c.event(fsnotify.Event{Name: names[3], Op: fsnotify.Remove})
	if st := c.Stats(); st.Entries != 0 {
		t.Errorf("removing a name left the entry: %+v", st)
	}
	c.mu.Lock()
	left := len(c.byName) + len(c.dirRefs)
	c.mu.Unlock()
	if left != 0 {
		t.Errorf("names or directory refs left behind: %d", left)
	}
}

// TestSameSizeNewerTimes: the same size with a newer mtime is a rewrite in
// place that may have moved lines anywhere, so it is rebuilt, even when the
// tail the extend check reads is unchanged (lines moved at the start here).
func TestSameSizeNewerTimes(t *testing.T) {
	c, path, content := indexedLog(t)
	// A line moved at the start, the tail untouched: only a rebuild sees it.
	rewritten := bytes.Clone(content)
	copy(rewritten, "a line\nof the log\n")
	writeInPlace(t, path, rewritten)
	bumpMtime(t, path)
	check(t, open(t, c, path), rewritten, true)
	if st := c.Stats(); st.Misses != 2 {
		t.Errorf("a rewrite in place at the same size was not rebuilt: %+v", st)
	}
}

// indexedLog writes a log of 1000 lines and indexes it in a Cache of its
// own, without watcher (the cases send the events).
func indexedLog(t *testing.T) (*Cache, string, []byte) {
	c := newCache(t, Options{Spacing: 64, noWatch: true})
	path := filepath.Join(t.TempDir(), "log")
	// 120 lines (2 KiB, 34 of the index's 64-byte spacings) in the quick
	// run, whose checks visit every byte offset; 1000 with TOOLD_LONG=1.
	content := bytes.Repeat([]byte("a line of the log\n"), testenv.Size(120, 1000))
	testenv.WriteFile(t, path, content)
	check(t, open(t, c, path), content, false)
	return c, path, content
}

// TestSnapshotBudget: past snapshotFree bytes a snapshot waits for the
// budget (and gives up with its context), holds what it keeps until its
// File is closed, and gives back the rest: 64 reads of /proc/kallsyms
// (5 MB) at once held 650 MiB.
func TestSnapshotBudget(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big")
	testenv.WriteFile(t, big, bytes.Repeat([]byte("line\n"), 200_000)) // 1 MB
	small := filepath.Join(t.TempDir(), "small")
	testenv.WriteFile(t, small, []byte("small\n"))
	c := &Cache{snaps: semaphore.NewWeighted(snapshotBudget)}
	read := func(ctx context.Context, path string) ([]byte, int64, error) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		data, _, held, err := c.readSnapshot(ctx, f, MaxSnapshotBytes)
		return data, held, err
	}
	if err := c.snaps.Acquire(context.Background(), snapshotBudget); err != nil {
		t.Fatal(err)
	}
	if data, held, err := read(context.Background(), small); err != nil || held != 0 || string(data) != "small\n" {
		t.Errorf("a small file with the budget taken: %q held %d, %v", data, held, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := read(ctx, big); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a big file with the budget taken: %v, want the context's deadline", err)
	}
	c.snaps.Release(snapshotBudget)
	data, held, err := read(context.Background(), big)
	if err != nil || len(data) != 1_000_000 || held != int64(cap(data)) || held >= snapshotWeight {
		t.Fatalf("a big file: %d bytes, held %d (cap %d), %v", len(data), held, cap(data), err)
	}
	// What is held is all that is taken: the rest is free.
	if !c.snaps.TryAcquire(snapshotBudget - held) {
		t.Error("more than the snapshot's buffer is held")
	} else {
		c.snaps.Release(snapshotBudget - held)
	}
	c.snaps.Release(held)
}

// TestReadSnapshotCap: a file read to EOF stops at the cap and says so.
func TestReadSnapshotCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	testenv.WriteFile(t, path, []byte("0123456789abcdef"))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tt := range []struct {
		max  int64
		want string
		cut  bool
	}{{10, "0123456789", true}, {16, "0123456789abcdef", false}, {100, "0123456789abcdef", false}} {
		c := &Cache{snaps: semaphore.NewWeighted(snapshotBudget)}
		data, cut, _, err := c.readSnapshot(context.Background(), f, tt.max)
		if err != nil || string(data) != tt.want || cut != tt.cut {
			t.Errorf("max %d: %q, cut %v, %v; want %q, cut %v", tt.max, data, cut, err, tt.want, tt.cut)
		}
	}
}
